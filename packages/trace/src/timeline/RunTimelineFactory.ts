import type { StoredRun, StoredStep } from '../store/RunStore.js';
import { buildRunTimeline, RUN_TIMELINE_DETAIL_KEYS, type RunTimelineOptions } from './buildRunTimeline.js';
import type { RunTimelineEntry, RunTimelineOutcome } from './RunTimelineEntry.js';
import { stepOutcome } from './stepOutcome.js';

/**
 * Builds the timeline of a run from its stored run and steps.
 *
 * @deprecated Use the functions: {@link buildRunTimeline}, {@link stepOutcome} and
 * {@link RUN_TIMELINE_DETAIL_KEYS}. This class of statics only delegates to them.
 *
 * @public
 */
export class RunTimelineFactory {
  /**
   * Every detail key an entry can carry.
   *
   * @deprecated Use {@link RUN_TIMELINE_DETAIL_KEYS}.
   */
  static readonly DETAIL_KEYS: readonly string[] = RUN_TIMELINE_DETAIL_KEYS;

  private constructor() {}

  /**
   * The outcome a stored payload states (an object or its JSON text), or `''` for none.
   *
   * @deprecated Use {@link stepOutcome}.
   */
  static stepOutcome(payload: unknown): RunTimelineOutcome {
    return stepOutcome(payload);
  }

  /**
   * Builds the entries of a run: its steps and lifecycle events, in (time, sequence) order.
   *
   * @deprecated Use {@link buildRunTimeline}.
   */
  static build(run: StoredRun | null, steps: readonly StoredStep[], options: RunTimelineOptions = {}): RunTimelineEntry[] {
    return buildRunTimeline(run, steps, options);
  }
}
