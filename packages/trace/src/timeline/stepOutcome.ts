import { readStepOutcome } from '../step/readStepOutcome.js';
import { RunTimelineEntry, type RunTimelineOutcome } from './RunTimelineEntry.js';

/**
 * The outcome a stored step payload states (an object or its JSON text), or `''` for none.
 *
 * @remarks
 * `toolIsError` first: when it is not a boolean the row states no outcome. Then the
 * `toolOutcome` that agrees with it; otherwise the boolean's own reading (true → `failed`,
 * false → `ok`), so a row written before outcomes existed renders as it always did.
 *
 * @public
 */
export function stepOutcome(payload: unknown): RunTimelineOutcome {
  if (typeof payload === 'string') {
    try {
      return readStepOutcome(JSON.parse(payload));
    } catch {
      return RunTimelineEntry.OUTCOME_NONE;
    }
  }
  return readStepOutcome(payload);
}
