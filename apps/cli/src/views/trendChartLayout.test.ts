import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { layoutTrendChart, roundTop } from './trendChartLayout.js';

describe('roundTop', () => {
  it('rounds a peak up to 1, 2 or 5 times a power of ten, within floor and cap', () => {
    expect(roundTop(0.33, 0.01, 1)).toBe(0.5);
    expect(roundTop(0.5, 0.01, 1)).toBe(0.5);
    expect(roundTop(0.51, 0.01, 1)).toBe(1);
    expect(roundTop(0.0004, 0.01, 1)).toBe(0.01);
    expect(roundTop(0, 0.01, 1)).toBe(0.01);
    expect(roundTop(1, 0.01, 1)).toBe(1);
    expect(roundTop(1234, 1)).toBe(2000);
    expect(roundTop(7, 1)).toBe(10);
    expect(roundTop(0, 1)).toBe(1);
  });

  it('is never below the peak (up to the cap) and at most 2.5 times it (fast-check)', () => {
    fc.assert(
      fc.property(fc.double({ min: 1e-6, max: 1e9, noNaN: true }), (peak) => {
        const top = roundTop(peak, 1e-9);
        expect(top).toBeGreaterThanOrEqual(peak * (1 - 1e-9));
        expect(top).toBeLessThanOrEqual(peak * 2.5 * (1 + 1e-9));
      }),
    );
  });
});

describe('layoutTrendChart', () => {
  it('draws a line between neighbours with values, a dot for a value alone, nothing across a gap', () => {
    const layout = layoutTrendChart([0.1, 0.2, null, 0.4, null, null, 0, 0.1], 0.01, 1);
    expect(layout.top).toBe(0.5);
    expect(layout.segments.map((s) => [s.from.index, s.to.index])).toEqual([
      [0, 1],
      [6, 7],
    ]);
    expect(layout.alone.map((p) => p.index)).toEqual([3]);
    expect(layout.points.map((p) => p.index)).toEqual([0, 1, 3, 6, 7]);
    expect(layout.gaps).toBe(3);
    expect(layout.peak).toEqual({ index: 3, value: 0.4 });
    expect(layout.latest).toEqual({ index: 7, value: 0.1 });
    // a zero is a point on the bottom line, a gap is no point at all
    expect(layout.points.find((p) => p.index === 6)!.y).toBe(0);
    expect(layout.points[0]!.x).toBeCloseTo(6.25, 10);
  });

  it('has no peak, no latest and no line when every bucket is a gap', () => {
    const layout = layoutTrendChart([null, null, null], 1);
    expect(layout).toMatchObject({ peak: null, latest: null, gaps: 3, segments: [], points: [], alone: [] });
    expect(layout.top).toBe(1);
  });

  it('keeps every point within the chart, one per value, each on a line or alone (fast-check)', () => {
    const values = fc.array(fc.option(fc.double({ min: 0, max: 1e7, noNaN: true }), { nil: null }), { minLength: 1, maxLength: 40 });
    fc.assert(
      fc.property(values, (series) => {
        const layout = layoutTrendChart(series, 1);
        const withValue = series.flatMap((v, i) => (v === null ? [] : [i]));
        expect(layout.points.map((p) => p.index)).toEqual(withValue);
        expect(layout.gaps).toBe(series.length - withValue.length);
        for (const point of layout.points) {
          expect(point.x).toBeGreaterThan(0);
          expect(point.x).toBeLessThan(100);
          expect(point.y).toBeGreaterThanOrEqual(0);
          expect(point.y).toBeLessThanOrEqual(1);
          const onLine = layout.segments.some((s) => s.from.index === point.index || s.to.index === point.index);
          // on a line, or alone as a dot: exactly one of the two
          expect(onLine).toBe(!layout.alone.some((p) => p.index === point.index));
        }
        for (const segment of layout.segments) {
          expect(segment.to.index).toBe(segment.from.index + 1);
          expect(series[segment.from.index]).not.toBeNull();
          expect(series[segment.to.index]).not.toBeNull();
        }
        if (withValue.length > 0) {
          expect(layout.peak!.value).toBe(Math.max(...withValue.map((i) => series[i]!)));
          expect(layout.latest!.index).toBe(withValue[withValue.length - 1]);
          expect(layout.top).toBeGreaterThanOrEqual(layout.peak!.value * (1 - 1e-9));
        }
      }),
    );
  });
});
