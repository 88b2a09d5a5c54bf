import { describe, expect, it } from 'vitest';
import { bucketStart, planRollupWindow, ROLLUP_LEVEL_MS } from './HealthRollupLevels.js';

describe('planRollupWindow', () => {
  it('covers the window exactly with at most two ranges per level and two sub-minute edges', () => {
    let seed = 42;
    const random = (): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const windows: [number, number][] = [
      [0, 8.64e15],
      [1_767_225_600_000, 1_767_225_600_000],
      [1_767_225_600_000, 1_767_225_600_001],
      [1_767_225_600_000, 1_767_225_660_000],
    ];
    for (let i = 0; i < 500; i++) {
      const since = 1_700_000_000_000 + Math.floor(random() * 1e11);
      windows.push([since, since + Math.floor(random() ** 3 * 4e10)]);
    }
    for (const [since, until] of windows) {
      const plan = planRollupWindow(since, until);
      const pieces: [number, number][] = [
        ...plan.ranges.map((r): [number, number] => [r.from, r.to]),
        ...plan.edges.map(([a, b]): [number, number] => [a, b]),
      ].sort((a, b) => a[0] - b[0]);
      let at = since;
      for (const [from, to] of pieces) {
        expect(from).toBe(at);
        expect(to).toBeGreaterThan(from);
        at = to;
      }
      expect(at).toBe(until > since ? until : since);
      for (const range of plan.ranges) {
        const size = ROLLUP_LEVEL_MS[range.level]!;
        expect(range.from % size).toBe(0);
        expect(range.to % size).toBe(0);
      }
      for (let level = 0; level < ROLLUP_LEVEL_MS.length; level++) {
        expect(plan.ranges.filter((r) => r.level === level).length).toBeLessThanOrEqual(2);
      }
      expect(plan.edges.length).toBeLessThanOrEqual(2);
      for (const [a, b] of plan.edges) expect(b - a).toBeLessThan(60_000);
    }
  });

  it('aligns buckets to the epoch', () => {
    expect(bucketStart(0, 1_767_225_659_999)).toBe(1_767_225_600_000);
    expect(bucketStart(2, 1_767_225_659_999)).toBe(1_767_225_600_000);
    expect(bucketStart(1, 1_767_229_199_999)).toBe(1_767_225_600_000);
  });
});
