/**
 * The fixed log-scale duration histogram of the server-health rollup.
 *
 * @remarks
 * Bucket 0 holds durations below 1 ms; bucket `k` (1 ≤ k < {@link HISTOGRAM_BUCKETS} − 1) holds
 * `[2^((k−1)/3), 2^(k/3))` ms, so each bucket is 26% wide; the last bucket holds everything from
 * 2^(78/3) ms (about 18.6 hours) on. A percentile read from the histogram is the geometric middle
 * of the bucket the rank falls in, clamped to the smallest and largest duration seen (exact for the first and last rank): its relative
 * error is at most 2^(1/6) − 1 ≈ 12.25 % (below 1 ms the error is at most 0.5 ms).
 *
 * @internal
 */
export const HISTOGRAM_BUCKETS = 80;

const STEPS_PER_DOUBLING = 3;
const LAST = HISTOGRAM_BUCKETS - 1;

/**
 * The histogram bucket of a duration in ms.
 *
 * @internal
 */
export function histogramBucket(durationMs: number): number {
  if (!(durationMs >= 1)) return 0;
  const k = Math.floor(Math.log2(durationMs) * STEPS_PER_DOUBLING) + 1;
  return k > LAST ? LAST : k;
}

/**
 * The lower edge of a bucket in ms.
 *
 * @internal
 */
export function bucketLowerEdge(bucket: number): number {
  return bucket <= 0 ? 0 : 2 ** ((bucket - 1) / STEPS_PER_DOUBLING);
}

/**
 * The value a bucket stands for: its geometric middle (0.5 ms for bucket 0, the lower edge for
 * the open last bucket).
 *
 * @internal
 */
export function bucketValue(bucket: number): number {
  if (bucket <= 0) return 0.5;
  if (bucket >= LAST) return bucketLowerEdge(LAST);
  return 2 ** ((bucket - 0.5) / STEPS_PER_DOUBLING);
}

/**
 * The p-th percentile (0 < p ≤ 100, nearest rank) of the durations counted in `counts`, clamped to
 * `[min, max]`; null when the histogram is empty.
 *
 * @internal
 */
export function histogramPercentile(counts: ArrayLike<number>, p: number, min: number, max: number): number | null {
  let total = 0;
  for (let i = 0; i < counts.length; i++) total += counts[i] ?? 0;
  if (total === 0) return null;
  const rank = Math.min(total, Math.max(1, Math.ceil((p / 100) * total)));
  // The first and the last rank are the smallest and largest duration, which are kept exactly.
  if (rank === total) return max;
  if (rank === 1) return min;
  let seen = 0;
  for (let i = 0; i < counts.length; i++) {
    seen += counts[i] ?? 0;
    if (seen >= rank) {
      const value = bucketValue(i);
      return Math.round(Math.min(max, Math.max(min, value)) * 100) / 100;
    }
  }
  return Math.round(max * 100) / 100;
}
