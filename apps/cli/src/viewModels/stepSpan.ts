import type { RunTimelineEntry } from '@runledger/trace';

/** When a timeline entry began and ended, in ms since the epoch. @internal */
export interface StepSpan {
  readonly start: number;
  /** Null while a call is on the wire, and for a call the run ended without (interrupted): no end was recorded. */
  readonly end: number | null;
}

/**
 * When a timeline entry began and ended: a step is stamped when it was recorded, at its end, so it
 * began its duration earlier; a call on the wire or interrupted began at its `tool_start` and has no
 * end; a lifecycle event is an instant. The waterfall's bars and the timeline's Start and End columns
 * read it.
 *
 * @internal
 */
export function stepSpan(entry: RunTimelineEntry): StepSpan {
  if (entry.event !== null) return { start: entry.time, end: entry.time };
  if (entry.callState !== null) return { start: entry.time, end: null };
  return { start: entry.time - Math.max(0, entry.durationMs ?? 0), end: entry.time };
}
