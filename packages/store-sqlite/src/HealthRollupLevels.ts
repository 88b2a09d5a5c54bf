/**
 * The bucket sizes of the server-health rollup, finest first: a minute, an hour, a day and 32
 * days, each a multiple of the one before, aligned to the epoch.
 *
 * @internal
 */
export const ROLLUP_LEVEL_MS: readonly number[] = Object.freeze([60_000, 3_600_000, 86_400_000, 32 * 86_400_000]);

/**
 * The level whose buckets are days: the grain of `health_servers` (the first and last day each
 * server was called).
 *
 * @internal
 */
export const DAY_LEVEL = 2;

/**
 * A range of whole rollup buckets of one level: `bucket_start` in `[from, to)`.
 *
 * @internal
 */
export interface RollupRange {
  readonly level: number;
  readonly from: number;
  readonly to: number;
}

/**
 * How a time window `[since, until)` is read: whole rollup buckets, plus at most two edge ranges
 * shorter than a minute that are read from the steps themselves.
 *
 * @internal
 */
export interface RollupPlan {
  readonly ranges: readonly RollupRange[];
  readonly edges: readonly (readonly [number, number])[];
}

/**
 * Splits a window into the fewest whole buckets: at most two ranges per level and two sub-minute
 * edges, so reading it costs a bounded number of index range scans whatever the window holds.
 *
 * @internal
 */
export function planRollupWindow(since: number, until: number): RollupPlan {
  const ranges: RollupRange[] = [];
  const edges: [number, number][] = [];
  if (!(until > since)) return { ranges, edges };
  const split = (a: number, b: number, level: number): void => {
    if (b <= a) return;
    if (level < 0) {
      edges.push([a, b]);
      return;
    }
    const size = ROLLUP_LEVEL_MS[level] as number;
    const first = Math.ceil(a / size) * size;
    const last = Math.floor(b / size) * size;
    if (first >= last) {
      split(a, b, level - 1);
      return;
    }
    ranges.push({ level, from: first, to: last });
    split(a, first, level - 1);
    split(last, b, level - 1);
  };
  split(since, until, ROLLUP_LEVEL_MS.length - 1);
  return { ranges, edges };
}

/**
 * The start of the bucket of a time at a level.
 *
 * @internal
 */
export function bucketStart(level: number, at: number): number {
  const size = ROLLUP_LEVEL_MS[level] as number;
  return Math.floor(at / size) * size;
}
