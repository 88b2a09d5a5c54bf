import { describe, expect, it } from 'vitest';
import {
  DURATION_HISTOGRAM_MAX_RELATIVE_ERROR,
  DURATION_HISTOGRAM_SLOTS,
  durationSlot,
  durationSlotValue,
  histogramPercentile,
} from './durationHistogram.js';

/** The 1-based slot PostgreSQL's duration_bucket() gives (its SQL formula, for the test only). */
function postgresSlot(d: number): number {
  if (d < 0.0625) return 1;
  return Math.min(114, 2 + Math.floor((Math.log(d) / Math.log(2) + 4) * 4));
}

function histogramOf(durations: number[]): number[] {
  const slots = new Array<number>(DURATION_HISTOGRAM_SLOTS).fill(0);
  for (const d of durations) slots[durationSlot(d)]! += 1;
  return slots;
}

function nearestRank(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

describe('durationSlot', () => {
  it('puts each duration in the quarter-octave slot whose edges hold it', () => {
    expect(durationSlot(0)).toBe(0);
    expect(durationSlot(0.0624)).toBe(0);
    expect(durationSlot(Number.NaN)).toBe(0);
    expect(durationSlot(-5)).toBe(0);
    expect(durationSlot(0.0625)).toBe(1);
    expect(durationSlot(1)).toBe(17);
    expect(durationSlot(2)).toBe(21);
    expect(durationSlot(2 ** 24)).toBe(DURATION_HISTOGRAM_SLOTS - 1);
    expect(durationSlot(1e12)).toBe(DURATION_HISTOGRAM_SLOTS - 1);
  });

  it("is PostgreSQL's duration_bucket() − 1 (the same layout in both stores)", () => {
    for (let d = 0.001; d < 1e9; d *= 1.0173) expect(durationSlot(d), `d=${d}`).toBe(postgresSlot(d) - 1);
  });

  it('reads a slot within 2^(1/8) − 1 of every duration it holds, between 1/16 ms and 2^24 ms', () => {
    for (let d = 0.0625; d < 2 ** 24; d *= 1.11) {
      const value = durationSlotValue(durationSlot(d));
      expect(Math.abs(value - d) / d).toBeLessThanOrEqual(DURATION_HISTOGRAM_MAX_RELATIVE_ERROR + 1e-9);
    }
    expect(durationSlotValue(0)).toBeLessThan(0.0625);
    expect(durationSlotValue(DURATION_HISTOGRAM_SLOTS - 1)).toBe(2 ** 24);
  });
});

describe('histogramPercentile', () => {
  it('is within the documented relative error of the exact nearest-rank percentile', () => {
    let seed = 42;
    const random = (): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let trial = 0; trial < 50; trial++) {
      const durations = Array.from({ length: 500 + trial * 40 }, () => Math.round(Math.exp(random() * 12 - 1) * 100) / 100 + 0.07);
      const counts = histogramOf(durations);
      const min = Math.min(...durations);
      const max = Math.max(...durations);
      for (const p of [50, 95]) {
        const exact = nearestRank(durations, p);
        const approx = histogramPercentile(counts, p, min, max)!;
        expect(Math.abs(approx - exact) / exact).toBeLessThanOrEqual(DURATION_HISTOGRAM_MAX_RELATIVE_ERROR + 0.001);
      }
    }
  });

  it('takes the nearest rank, gives the first and last rank exactly, clamps to the smallest and largest duration', () => {
    const counts = new Array<number>(DURATION_HISTOGRAM_SLOTS).fill(0);
    expect(histogramPercentile(counts, 50, null, null)).toBeNull();
    counts[durationSlot(100)] = 10;
    expect(histogramPercentile(counts, 50, 100, 100)).toBe(100);
    counts[durationSlot(1000)] = 1;
    expect(histogramPercentile(counts, 50, 100, 1000)).toBe(100);
    expect(histogramPercentile(counts, 95, 100, 1000)).toBe(1000);
    expect(histogramPercentile(histogramOf([37, 37, 37]), 95, 37, 37)).toBe(37);
    expect(histogramPercentile(histogramOf([0.01]), 50, 0.01, 0.01)).toBe(0.01);
  });
});
