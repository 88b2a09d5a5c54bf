// The duration histogram of the server-health rollup, shared by every store that keeps one (see
// docs/architecture.md, "health"): one bucket layout, so a percentile read from SQLite's rollup and
// from PostgreSQL's has the same error bound.

/**
 * The number of slots of the duration histogram.
 *
 * @remarks
 * A quarter octave each: slot 0 holds durations below 1/16 ms (and NaN or negative ones); slot k
 * (1 ≤ k ≤ 112) holds `[2^((k−1)/4 − 4), 2^(k/4 − 4))` ms; slot 113 holds 2^24 ms (about 4.7
 * hours) and more. PostgreSQL stores it as a 1-based `integer[]` (`duration_bucket(d)` is
 * {@link durationSlot} + 1), SQLite as the columns `h0`…`h113`.
 *
 * @public
 */
export const DURATION_HISTOGRAM_SLOTS = 114;

/**
 * The bound of the relative error of a percentile read from the histogram between 1/16 ms and
 * 2^24 ms: half a slot, 2^(1/8) − 1 ≈ 9.05 %.
 *
 * @public
 */
export const DURATION_HISTOGRAM_MAX_RELATIVE_ERROR: number = 2 ** (1 / 8) - 1;

const STEPS_PER_DOUBLING = 4;
/** log2 of the lower edge of slot 1: 1/16 ms. */
const FIRST_EDGE_LOG2 = -4;
const LAST = DURATION_HISTOGRAM_SLOTS - 1;

/**
 * The 0-based histogram slot of a duration in ms.
 *
 * @public
 */
export function durationSlot(durationMs: number): number {
  if (!(durationMs >= 2 ** FIRST_EDGE_LOG2)) return 0;
  const slot = 1 + Math.floor((Math.log2(durationMs) - FIRST_EDGE_LOG2) * STEPS_PER_DOUBLING);
  return slot > LAST ? LAST : slot;
}

/**
 * The duration a slot stands for, in ms: its geometric middle (1/32 ms for slot 0, the lower
 * edge 2^24 ms for the open last slot).
 *
 * @public
 */
export function durationSlotValue(slot: number): number {
  if (slot <= 0) return 2 ** (FIRST_EDGE_LOG2 - 1);
  if (slot >= LAST) return 2 ** ((LAST - 1) / STEPS_PER_DOUBLING + FIRST_EDGE_LOG2);
  return 2 ** ((slot - 0.5) / STEPS_PER_DOUBLING + FIRST_EDGE_LOG2);
}

/**
 * The p-th percentile (0 < p ≤ 100, nearest rank) of the durations counted in `counts` (index =
 * slot), clamped into `[min, max]` of those durations; null when the histogram is empty.
 *
 * @remarks
 * The first and the last rank are the smallest and the largest duration, which a rollup keeps
 * exactly: they are returned as they are. Any other rank reads as the value of its slot, rounded
 * to 0.01 ms.
 *
 * @public
 */
export function histogramPercentile(counts: ArrayLike<number>, p: number, min: number | null, max: number | null): number | null {
  let total = 0;
  for (let i = 0; i < counts.length; i++) total += counts[i] ?? 0;
  if (total === 0) return null;
  const rank = Math.min(total, Math.max(1, Math.ceil((p / 100) * total)));
  if (rank === total && max !== null) return max;
  if (rank === 1 && min !== null) return min;
  let seen = 0;
  for (let i = 0; i < counts.length; i++) {
    seen += counts[i] ?? 0;
    if (seen >= rank) {
      let value = durationSlotValue(i);
      if (min !== null && value < min) value = min;
      if (max !== null && value > max) value = max;
      return Math.round(value * 100) / 100;
    }
  }
  return max;
}
