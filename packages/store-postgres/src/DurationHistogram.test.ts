import { describe, expect, it } from 'vitest';
import { DurationHistogram } from './DurationHistogram.js';

/** The slot PostgreSQL's duration_bucket() gives (same formula, for the test only). */
function slotOf(d: number): number {
  if (d < 0.0625) return 1;
  return Math.min(114, 2 + Math.floor((Math.log(d) / Math.log(2) + 4) * 4));
}

function histogramOf(durations: number[]): number[] {
  const slots = new Array<number>(DurationHistogram.SLOTS).fill(0);
  for (const d of durations) slots[slotOf(d) - 1]! += 1;
  return slots;
}

function nearestRank(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

describe('DurationHistogram', () => {
  it('is within the documented relative error of the exact nearest-rank percentile', () => {
    let seed = 42;
    const random = (): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let trial = 0; trial < 50; trial++) {
      const durations = Array.from({ length: 500 + trial * 40 }, () => Math.round(Math.exp(random() * 12 - 1) * 100) / 100 + 0.07);
      const slots = histogramOf(durations);
      const min = Math.min(...durations);
      const max = Math.max(...durations);
      for (const p of [50, 95]) {
        const exact = nearestRank(durations, p);
        const approx = DurationHistogram.percentile(slots, p, min, max)!;
        expect(Math.abs(approx - exact) / exact).toBeLessThanOrEqual(DurationHistogram.MAX_RELATIVE_ERROR + 0.001);
      }
    }
  });

  it('is exact when every duration is the same, and null when empty', () => {
    expect(DurationHistogram.percentile(histogramOf([37, 37, 37]), 95, 37, 37)).toBe(37);
    expect(DurationHistogram.percentile(histogramOf([]), 50, null, null)).toBeNull();
  });

  it('places sub-millisecond and very long durations in the end slots', () => {
    expect(DurationHistogram.representative(1)).toBeLessThan(0.0625);
    expect(DurationHistogram.representative(114)).toBe(2 ** 24);
    expect(DurationHistogram.percentile(histogramOf([0.01]), 50, 0.01, 0.01)).toBe(0.01);
  });
});
