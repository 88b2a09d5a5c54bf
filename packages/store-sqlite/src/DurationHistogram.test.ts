import { describe, expect, it } from 'vitest';
import { bucketLowerEdge, bucketValue, HISTOGRAM_BUCKETS, histogramBucket, histogramPercentile } from './DurationHistogram.js';

describe('DurationHistogram', () => {
  it('puts each duration in the bucket whose edges hold it', () => {
    expect(histogramBucket(0)).toBe(0);
    expect(histogramBucket(0.99)).toBe(0);
    expect(histogramBucket(Number.NaN)).toBe(0);
    expect(histogramBucket(1)).toBe(1);
    expect(histogramBucket(2)).toBe(4);
    expect(histogramBucket(1e12)).toBe(HISTOGRAM_BUCKETS - 1);
    for (let d = 1; d < 5e7; d *= 1.37) {
      const k = histogramBucket(d);
      expect(bucketLowerEdge(k)).toBeLessThanOrEqual(d * (1 + 1e-12));
      if (k < HISTOGRAM_BUCKETS - 1) expect(d).toBeLessThan(bucketLowerEdge(k + 1) * (1 + 1e-12));
    }
  });

  it('reads a percentile within 12.25 % of the true value (0.5 ms below 1 ms)', () => {
    for (let d = 0.01; d < 6e7; d *= 1.11) {
      const k = histogramBucket(d);
      const value = bucketValue(k);
      if (d < 1) expect(Math.abs(value - d)).toBeLessThanOrEqual(0.5);
      else expect(Math.abs(value - d) / d).toBeLessThanOrEqual(2 ** (1 / 6) - 1 + 1e-9);
    }
  });

  it('takes the nearest rank and clamps to the smallest and largest duration seen', () => {
    const counts = new Array<number>(HISTOGRAM_BUCKETS).fill(0);
    expect(histogramPercentile(counts, 50, 0, 0)).toBeNull();
    counts[histogramBucket(100)] = 10;
    expect(histogramPercentile(counts, 50, 100, 100)).toBe(100);
    counts[histogramBucket(1000)] = 1;
    expect(histogramPercentile(counts, 50, 100, 1000)).toBe(100);
    expect(histogramPercentile(counts, 95, 100, 1000)).toBe(1000);
  });
});
