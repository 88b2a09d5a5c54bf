import { describe, expect, it } from 'vitest';
import {
  DAY_LEVEL,
  planRollupWindow,
  type RollupWindowPlan,
  rollupBucketSpan,
  rollupBucketStart,
  ROLLUP_LEVEL_SIZES,
} from './rollupLevels.js';

const MIN = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

/** Which part of the plan covers time t, or null; asserts at most one does. */
function cover(plan: RollupWindowPlan, t: number): string | null {
  const hits: string[] = [];
  for (const r of plan.raw) if ((r.from === null || t >= r.from) && (r.to === null || t < r.to)) hits.push('raw');
  for (const b of plan.buckets) {
    const size = ROLLUP_LEVEL_SIZES[b.level]!;
    const start = Math.floor(t / size) * size;
    if ((b.from === null || start >= b.from) && (b.to === null || start < b.to)) hits.push(`L${b.level}`);
  }
  expect(hits.length).toBeLessThanOrEqual(1);
  return hits[0] ?? null;
}

describe('planRollupWindow', () => {
  it('covers every instant of the window exactly once and nothing outside it', () => {
    const base = 20_000 * DAY;
    const windows: [number | undefined, number | undefined][] = [
      [base + 12_345, base + 3 * DAY + 7 * HOUR + 13 * MIN + 999],
      [base, base + DAY],
      [base + 1, base + 2],
      [base + 30 * MIN + 5, base + 31 * MIN + 7],
      [undefined, base + 5 * HOUR + 17],
      [base + 17 * HOUR + 3, undefined],
      [undefined, undefined],
      [base + 100, base + 100],
    ];
    for (const [since, until] of windows) {
      const plan = planRollupWindow(since, until);
      const lo = since ?? base - 2 * DAY;
      const hi = until ?? base + 6 * DAY;
      // probe edges of every bucket near the window's ends and a spread of instants in between
      const probes = new Set<number>();
      for (const t of [lo, hi]) for (const d of [-MIN - 1, -1, 0, 1, MIN, HOUR, DAY]) probes.add(t + d);
      for (let t = lo - DAY; t < hi + DAY; t += 7_777_777) probes.add(t);
      for (const t of probes) {
        const inside = (since === undefined || t >= since) && (until === undefined || t < until);
        expect(cover(plan, t) !== null, `t=${t} since=${since} until=${until}`).toBe(inside);
      }
    }
  });

  it('reads raw steps only for partial minutes, and a bounded number of buckets', () => {
    const base = 20_000 * DAY;
    const plan = planRollupWindow(base + 12_345, base + 30 * DAY + 23 * HOUR + 59 * MIN + 59_999);
    for (const r of plan.raw) expect(r.to! - r.from!).toBeLessThan(MIN);
    expect(plan.raw).toHaveLength(2);
    // at most two ranges per level below the top, one at the top
    expect(plan.buckets.length).toBeLessThanOrEqual(2 * (ROLLUP_LEVEL_SIZES.length - 1) + 1);
    // 30 days hold no whole 32-day bucket: the days are the coarsest part
    expect(plan.buckets.find((b) => b.level === DAY_LEVEL)).toEqual({ level: DAY_LEVEL, from: base + DAY, to: base + 30 * DAY });
    expect(plan.buckets.some((b) => b.level > DAY_LEVEL)).toBe(false);
  });

  it('reads a year as 32-day buckets with at most 31 days at each edge', () => {
    const base = 20_000 * DAY + 5 * DAY + 3 * HOUR + 17;
    const plan = planRollupWindow(base, base + 365 * DAY);
    const bucketsRead = (level: number): number =>
      plan.buckets.filter((b) => b.level === level).reduce((n, b) => n + (b.to! - b.from!) / ROLLUP_LEVEL_SIZES[level]!, 0);
    const top = ROLLUP_LEVEL_SIZES.length - 1;
    expect(ROLLUP_LEVEL_SIZES[top]).toBe(32 * DAY);
    expect(bucketsRead(top)).toBeGreaterThanOrEqual(10);
    expect(bucketsRead(top)).toBeLessThanOrEqual(11);
    expect(bucketsRead(DAY_LEVEL)).toBeLessThanOrEqual(2 * 31);
    expect(plan.buckets.filter((b) => b.level === top)).toHaveLength(1);
  });

  it('says which span its buckets cover: whole minutes, every bucket inside it, nothing of the raw edges', () => {
    const base = 20_000 * DAY;
    for (const [since, until] of [
      [base + 12_345, base + 40 * DAY + 7 * HOUR + 5],
      [undefined, base + 5 * HOUR + 17],
      [base + 17 * HOUR + 3, undefined],
      [undefined, undefined],
    ] as const) {
      const plan = planRollupWindow(since, until);
      const span = rollupBucketSpan(plan)!;
      for (const t of [since ?? base - 3 * DAY, (since ?? base) + 90_000, (until ?? base + 3 * DAY) - 1, until ?? base + 3 * DAY]) {
        const part = cover(plan, t);
        const inSpan = (span.from === null || t >= span.from) && (span.to === null || t < span.to);
        expect(inSpan, `t=${t}`).toBe(part !== null && part !== 'raw');
      }
    }
    expect(rollupBucketSpan(planRollupWindow(base + 1, base + 2))).toBeNull();
  });

  it('is empty for an empty window', () => {
    expect(planRollupWindow(5, 5)).toEqual({ raw: [], buckets: [] });
    expect(planRollupWindow(6, 5)).toEqual({ raw: [], buckets: [] });
  });
});

describe('rollupBucketStart', () => {
  it('aligns buckets to the epoch, also before it; the day level is whole UTC days', () => {
    expect(ROLLUP_LEVEL_SIZES[DAY_LEVEL]).toBe(DAY);
    expect(rollupBucketStart(DAY_LEVEL, 20_000 * DAY + 5)).toBe(20_000 * DAY);
    expect(rollupBucketStart(0, 61_000)).toBe(MIN);
    expect(rollupBucketStart(2, -1)).toBe(-HOUR);
  });
});
