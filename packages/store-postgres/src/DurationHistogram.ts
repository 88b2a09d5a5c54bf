/**
 * The fixed log-scale duration histogram of the health rollup.
 *
 * @remarks
 * Slot 1 holds durations below 1/16 ms; slot k (2..113) holds [2^((k-2)/4 - 4), 2^((k-1)/4 - 4))
 * ms, a quarter octave each; slot 114 holds 2^24 ms (about 4.7 hours) and more. The slot of a
 * duration is computed in SQL only (`duration_bucket`), so every write path agrees; this module
 * turns summed slots back into percentiles. A percentile is reported as the geometric middle of
 * its slot, clamped into the [min, max] of the durations in the window: at most 2^(1/8) - 1 ≈ 9.05 %
 * away from the exact nearest-rank value between 1/16 ms and 2^24 ms.
 *
 * @internal
 */
export const DurationHistogram = {
  /** The number of slots (1-based in SQL). */
  SLOTS: 114,
  /** The upper bound of the relative error of a percentile inside the fine range. */
  MAX_RELATIVE_ERROR: 2 ** (1 / 8) - 1,

  /** The representative duration of a 1-based slot, in ms. */
  representative(slot: number): number {
    if (slot <= 1) return 1 / 32;
    if (slot >= 114) return 2 ** 24;
    const lower = 2 ** ((slot - 2) / 4 - 4);
    return lower * 2 ** (1 / 8);
  },

  /**
   * The p-th percentile (0..100, nearest rank) of the durations counted in `slots` (index 0 is
   * slot 1), clamped into [min, max]; null when the histogram is empty.
   */
  percentile(slots: ArrayLike<number>, p: number, min: number | null, max: number | null): number | null {
    let total = 0;
    for (let i = 0; i < slots.length; i++) total += slots[i] ?? 0;
    if (total === 0) return null;
    const rank = Math.min(total, Math.max(1, Math.ceil((p / 100) * total)));
    let seen = 0;
    for (let i = 0; i < slots.length; i++) {
      seen += slots[i] ?? 0;
      if (seen >= rank) {
        let value = DurationHistogram.representative(i + 1);
        if (min !== null && value < min) value = min;
        if (max !== null && value > max) value = max;
        return Math.round(value * 100) / 100;
      }
    }
    return max;
  },
} as const;
