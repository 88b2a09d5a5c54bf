// The buckets of the per-tool answered-call duration histogram that `/metrics` exposes (Prometheus
// `le` bounds), and the one rule that puts a duration in one: every store that sums calls per tool
// keeps these counts as they are, so that they are exact (they are not edges of the health
// histogram's quarter-octave slots and cannot be derived from it).

/**
 * The upper bounds (seconds, inclusive) of the per-tool answered-call duration buckets; one more
 * bucket holds the calls above the last bound (`+Inf`).
 *
 * @public
 */
export const TOOL_DURATION_BUCKETS_SECONDS: readonly number[] = Object.freeze([
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300,
]);

/**
 * How many buckets {@link ToolCallTotals.answeredBuckets} has: one per bound of
 * {@link TOOL_DURATION_BUCKETS_SECONDS}, then the one above the last bound.
 *
 * @public
 */
export const TOOL_DURATION_BUCKET_COUNT: number = TOOL_DURATION_BUCKETS_SECONDS.length + 1;

/**
 * The bucket of {@link TOOL_DURATION_BUCKETS_SECONDS} a duration in ms falls in: the first whose
 * bound the duration in seconds (`durationMs / 1000`, as a double) does not exceed, else the last
 * bucket (above every bound).
 *
 * @public
 */
export function toolDurationBucket(durationMs: number): number {
  const seconds = durationMs / 1000;
  const bounds = TOOL_DURATION_BUCKETS_SECONDS;
  for (let k = 0; k < bounds.length; k++) if (seconds <= (bounds[k] as number)) return k;
  return bounds.length;
}
