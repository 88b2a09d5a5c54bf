// What a tool step recorded at privacy level `redacted` or `full` holds beyond metadata: its
// arguments, its result and, for a failed call, the error message. At `metadata` (the default) and
// `none` the stored payload has only their sizes, so nothing is found and nothing is shown.
import { applyPrivacy, redactText, type StoredStep } from '@runledger/trace';

/** The content of one tool step, redacted again for the screen. @internal */
export interface StepContent {
  /** A failed call's error message (its result text), or null. */
  readonly errorMessage: string | null;
  /** The arguments as indented JSON, or null when the step holds none. */
  readonly arguments: string | null;
  /** The result text, or null when the step holds none. */
  readonly result: string | null;
}

/** The most characters of each part shown (the error message on the row is shorter still). */
const MAX_SHOWN = 4_000;
const MAX_MESSAGE = 300;

/**
 * The content of each tool step among `steps` whose stored payload holds its arguments or its
 * result (recorded at `redacted` or `full`), by sequence. Each part passes the `redacted` privacy
 * filter once more (secrets, values of secret-named keys and e-mail addresses masked, strings cut
 * with a marker), whatever the level it was recorded at.
 *
 * @internal
 */
export function stepContents(steps: readonly StoredStep[]): ReadonlyMap<number, StepContent> {
  const out = new Map<number, StepContent>();
  for (const step of steps) {
    // Cheap first: a payload stored at `metadata` has `"toolResultLength"`, never `"toolResult"`.
    if (step.kind !== 'tool' || (!step.payload.includes('"toolResult"') && !step.payload.includes('"toolArguments"'))) continue;
    let payload: unknown;
    try {
      payload = JSON.parse(step.payload);
    } catch {
      continue;
    }
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) continue;
    const p = applyPrivacy(payload as Record<string, unknown>, 'redacted', { maxStringLength: MAX_SHOWN });
    const result = typeof p['toolResult'] === 'string' ? p['toolResult'] : null;
    const args = typeof p['toolArguments'] === 'object' && p['toolArguments'] !== null ? p['toolArguments'] : null;
    if (result === null && args === null) continue;
    const failed = p['toolOutcome'] === 'failed' || (p['toolOutcome'] === undefined && p['toolIsError'] === true);
    out.set(step.sequence, {
      errorMessage: failed && result !== null && result.trim() !== '' ? redactText(result.trim(), MAX_MESSAGE) : null,
      arguments: args === null ? null : (JSON.stringify(args, null, 2) ?? null),
      result,
    });
  }
  return out;
}
