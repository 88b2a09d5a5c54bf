// The time levels of the server-health rollup, shared by every store that keeps one (see
// docs/architecture.md, "health"), and how a health window is split into whole rollup buckets.

/**
 * The rollup levels: bucket sizes in ms, finest first, each a multiple of the one before (1 min,
 * 10 min, 1 h, 6 h, 1 day, 32 days), aligned to the epoch (UTC).
 *
 * @remarks
 * The 32-day level (since store schemas SQLite 12 / PostgreSQL 8) keeps a window of a year at
 * about 11 of its buckets plus at most 31 days at each edge, instead of 365 day buckets.
 *
 * @public
 */
export const ROLLUP_LEVEL_SIZES: readonly number[] = Object.freeze([60_000, 600_000, 3_600_000, 21_600_000, 86_400_000, 2_764_800_000]);

/**
 * The level whose buckets are days.
 *
 * @public
 */
export const DAY_LEVEL = 4;

/**
 * The start of the bucket of a level that holds time `at` (floor, also before the epoch).
 *
 * @public
 */
export function rollupBucketStart(level: number, at: number): number {
  const size = ROLLUP_LEVEL_SIZES[level] as number;
  return Math.floor(at / size) * size;
}

/**
 * A half-open range `[from, to)` of ms; null means unbounded on that side.
 *
 * @public
 */
export interface MsRange {
  readonly from: number | null;
  readonly to: number | null;
}

/**
 * Rollup buckets of one level whose `bucket_start` lies in the range.
 *
 * @public
 */
export interface LevelRange extends MsRange {
  readonly level: number;
}

/**
 * A health window split into whole rollup buckets and the raw step ranges at its edges.
 *
 * @public
 */
export interface RollupWindowPlan {
  /** Ranges of step `created_at` read from the steps themselves (less than one minute each). */
  readonly raw: readonly MsRange[];
  /** Ranges of bucket starts read from the rollup, by level. */
  readonly buckets: readonly LevelRange[];
}

const toBound = (value: number): number | null => (Number.isFinite(value) ? value : null);

function pushRaw(list: MsRange[], from: number, to: number): void {
  if (from < to) list.push({ from: toBound(from), to: toBound(to) });
}

function pushLevel(list: LevelRange[], level: number, from: number, to: number): void {
  if (from < to) list.push({ level, from: toBound(from), to: toBound(to) });
}

/**
 * Splits the window `[since, until)` (undefined or null: unbounded) into as few rollup buckets as
 * the levels allow: the largest whole buckets in the middle, smaller ones towards the edges, raw
 * steps for the partial minutes.
 *
 * @remarks
 * The number of parts is bounded by the level sizes (at most 2·9 minutes, 2·5 ten-minute buckets,
 * 2·5 hours, 2·3 six-hour buckets, 2·31 days, one range of 32-day buckets and two partial
 * minutes), never by the number of steps in the window.
 *
 * @public
 */
export function planRollupWindow(since: number | null | undefined, until: number | null | undefined): RollupWindowPlan {
  let a = since === undefined || since === null ? -Infinity : Math.ceil(since);
  let b = until === undefined || until === null ? Infinity : Math.ceil(until);
  const raw: MsRange[] = [];
  const buckets: LevelRange[] = [];
  if (!(a < b)) return { raw, buckets };
  const sizes = ROLLUP_LEVEL_SIZES;
  const first = sizes[0] as number;
  const a0 = Math.ceil(a / first) * first;
  const b0 = Math.floor(b / first) * first;
  if (!(a0 < b0)) {
    pushRaw(raw, a, b);
    return { raw, buckets };
  }
  pushRaw(raw, a, a0);
  pushRaw(raw, b0, b);
  a = a0;
  b = b0;
  for (let level = 0; level < sizes.length; level++) {
    const next = sizes[level + 1];
    if (next === undefined) {
      pushLevel(buckets, level, a, b);
      break;
    }
    const an = Math.ceil(a / next) * next;
    const bn = Math.floor(b / next) * next;
    if (!(an < bn)) {
      pushLevel(buckets, level, a, b);
      break;
    }
    pushLevel(buckets, level, a, an);
    pushLevel(buckets, level, bn, b);
    a = an;
    b = bn;
  }
  return { raw, buckets };
}

/**
 * The span of time the whole buckets of a plan cover (one range of whole minutes; null when the
 * plan reads no bucket): a call not yet in the rollup counts in the plan's buckets exactly when its
 * time is in this span.
 *
 * @public
 */
export function rollupBucketSpan(plan: RollupWindowPlan): MsRange | null {
  if (plan.buckets.length === 0) return null;
  let from: number | null = Infinity;
  let to: number | null = -Infinity;
  for (const range of plan.buckets) {
    from = from === null || range.from === null ? null : Math.min(from, range.from);
    to = to === null || range.to === null ? null : Math.max(to, range.to);
  }
  return { from, to };
}
