import type { RunTimelineEntry } from '@runledger/trace';

/**
 * How long a call on the wire has been running at `now`, in ms; null for any other entry.
 *
 * @internal
 */
export function wireMs(entry: RunTimelineEntry, now: number): number | null {
  return entry.callState === 'on_the_wire' ? Math.max(0, now - entry.time) : null;
}
