/**
 * The servers over time: per server, failure rate and p95 per hour or per day, read from the
 * store's server health one bucket at a time (the charts of the servers page and a server's page).
 */
import type { RunStore, ServerHealth } from '@runledger/trace';
import type { HealthBucketCache } from '../app/HealthBucketCache.js';
import { ServerWindow } from './serversQuery.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** The size of the buckets of a trend: an hour or a day. @internal */
export type TrendUnit = 'hour' | 'day';

/** One bucket of a trend: `[start, end)`, whole UTC hours or days, the last one ending at now. @internal */
export interface TrendBucket {
  readonly start: number;
  readonly end: number;
}

/**
 * One server's figures in one bucket, as {@link ServerHealth} defines them: `failureRate` null
 * when no call counts in it, `p95` (answered calls only) null when none was answered — a gap,
 * never a zero.
 *
 * @internal
 */
export interface TrendPoint {
  readonly bucketStart: number;
  readonly calls: number;
  readonly failureRate: number | null;
  readonly p95: number | null;
}

/** The trends of every server over one window's buckets. @internal */
export interface ServerTrends {
  readonly unit: TrendUnit;
  readonly buckets: readonly TrendBucket[];
  /** Per server with a call in any bucket, one point per bucket, oldest first. */
  readonly byServer: ReadonlyMap<string, readonly TrendPoint[]>;
}

/** How each window is cut: 24 hours, 7 days, and for all time the last 30 days. */
const WINDOW_BUCKETS: Readonly<Record<ServerWindow, { readonly unit: TrendUnit; readonly count: number }>> = Object.freeze({
  [ServerWindow.DAY]: { unit: 'hour', count: 24 },
  [ServerWindow.WEEK]: { unit: 'day', count: 7 },
  [ServerWindow.ALL]: { unit: 'day', count: 30 },
});

/**
 * The buckets of a window's trend: whole UTC hours (24 h) or days (7 d; all time: the last 30),
 * oldest first; the last one is the hour or day that holds `now` and ends at `now` (a `now` on
 * a boundary closes the bucket before it, so no bucket is empty of time).
 *
 * @internal
 */
export function trendBuckets(window: ServerWindow, now: number): { readonly unit: TrendUnit; readonly buckets: readonly TrendBucket[] } {
  const { unit, count } = WINDOW_BUCKETS[window];
  const size = unit === 'hour' ? HOUR_MS : DAY_MS;
  const last = Math.floor((now - 1) / size) * size;
  const buckets: TrendBucket[] = [];
  for (let i = count - 1; i >= 0; i--) {
    const start = last - i * size;
    buckets.push(Object.freeze({ start, end: Math.min(start + size, now) }));
  }
  return { unit, buckets: Object.freeze(buckets) };
}

/** A server's point in a bucket where it had no call. */
function emptyPoint(bucketStart: number): TrendPoint {
  return Object.freeze({ bucketStart, calls: 0, failureRate: null, p95: null });
}

function pointOf(bucketStart: number, row: ServerHealth): TrendPoint {
  return Object.freeze({ bucketStart, calls: row.calls, failureRate: row.failureRate, p95: row.p95DurationMs });
}

/**
 * Reads every server's trend over a window: one `serverHealth({ since, until })` per bucket, all
 * at once. Each bucket is whole rollup buckets (the last one up to now, read without an end so
 * that a call stamped a moment ahead by another machine's clock still counts). With a `cache`,
 * closed buckets read less than a minute ago are reused (see {@link HealthBucketCache}).
 *
 * @internal
 */
export async function readServerTrends(
  store: RunStore,
  window: ServerWindow,
  now: number,
  cache?: HealthBucketCache,
): Promise<ServerTrends> {
  const { unit, buckets } = trendBuckets(window, now);
  const last = buckets.length - 1;
  const reads = await Promise.all(
    buckets.map((bucket, i) =>
      i === last
        ? store.serverHealth({ since: bucket.start })
        : cache === undefined
          ? store.serverHealth({ since: bucket.start, until: bucket.end })
          : cache.read(store, bucket.start, bucket.end, now),
    ),
  );
  const byServer = new Map<string, TrendPoint[]>();
  reads.forEach((rows, i) => {
    const bucketStart = buckets[i]!.start;
    for (const row of rows) {
      if (row.calls === 0) continue;
      let points = byServer.get(row.server);
      if (points === undefined) {
        points = buckets.map((bucket) => emptyPoint(bucket.start));
        byServer.set(row.server, points);
      }
      points[i] = pointOf(bucketStart, row);
    }
  });
  return { unit, buckets, byServer };
}

/**
 * A server's points over a trend's buckets: its own, or every bucket empty when it had no call
 * in any.
 *
 * @internal
 */
export function trendOf(trends: ServerTrends, server: string): readonly TrendPoint[] {
  return trends.byServer.get(server) ?? trends.buckets.map((bucket) => emptyPoint(bucket.start));
}
