import { RunStoreInput } from './RunStoreInput.js';
import { type ToolCallSource, toolCallOf } from './ToolCallFacts.js';

/**
 * The health of one MCP server over a time window.
 *
 * @remarks
 * `failureRate` is `failed / (ok + failed)`: cancellations are our own doing and never count
 * against a server. It is `null` when the server answered no call in the window.
 *
 * @public
 */
export interface ServerHealth {
  /** The server id (the `toolServer` of its steps). */
  readonly server: string;
  /** All tool calls to the server: ok + failed + cancelled. */
  readonly calls: number;
  readonly ok: number;
  readonly failed: number;
  readonly cancelled: number;
  /** failed / (ok + failed); null when ok + failed is 0. */
  readonly failureRate: number | null;
  /** When the last failed call was recorded (ms since the epoch), or null. */
  readonly lastFailureAt: number | null;
  /** Median duration of the server's calls in ms, or null when there are none. */
  readonly p50DurationMs: number | null;
  /** 95th percentile duration of the server's calls in ms, or null when there are none. */
  readonly p95DurationMs: number | null;
  /** True when failureRate reaches the threshold over at least the minimum of answered calls. */
  readonly flaky: boolean;
}

/**
 * When a server counts as flaky: a failure rate of at least `failureRate` over at least
 * `minAnsweredCalls` answered (ok or failed) calls. Defaults: 0.2 and 5.
 *
 * @public
 */
export interface FlakyThreshold {
  readonly failureRate?: number;
  readonly minAnsweredCalls?: number;
}

/**
 * The window and threshold of a server health query.
 *
 * @public
 */
export interface ServerHealthQuery {
  /** Only steps created at or after this time (ms since the epoch). */
  readonly since?: number;
  /** Only steps created before this time (ms since the epoch). */
  readonly until?: number;
  readonly flaky?: FlakyThreshold;
}

/**
 * The default flaky threshold: a failure rate of at least 20% over at least 5 answered calls.
 *
 * @public
 */
export const DEFAULT_FLAKY_THRESHOLD: Required<FlakyThreshold> = Object.freeze({ failureRate: 0.2, minAnsweredCalls: 5 });

/**
 * One row {@link serverHealth} reads: a stored step, or the same fields with the payload as an object.
 *
 * @public
 */
export interface ServerHealthRow extends ToolCallSource {
  readonly durationMs: number;
  readonly createdAt: number;
}

/**
 * Computes per-server health from step rows: the pure definition every store's query must match.
 *
 * @remarks
 * A row counts when {@link toolCallOf} gives it a server and an outcome and its `createdAt` is
 * in the window (`since` inclusive, `until` exclusive). Per server: `calls` = ok + failed +
 * cancelled; `failureRate` = failed / (ok + failed), null when that is 0 (cancellations never
 * count); `lastFailureAt` = the greatest `createdAt` of a failed call; `p50DurationMs` and
 * `p95DurationMs` = nearest-rank percentiles over the durations of all its calls (sorted
 * ascending, the value at index `ceil(p × n) − 1`, as PostgreSQL's `percentile_disc`);
 * `flaky` = answered calls ≥ `minAnsweredCalls` and failureRate ≥ `failureRate` of the
 * threshold (default {@link DEFAULT_FLAKY_THRESHOLD}). Servers come ordered by id in UTF-16
 * code unit order (JavaScript's `<`, SQL's `COLLATE "C"` for ASCII ids).
 *
 * @throws RunStoreError (`invalid_input`) from `serverHealth` when the query is malformed.
 * @public
 */
export function serverHealth(rows: Iterable<ServerHealthRow>, query: ServerHealthQuery = {}): ServerHealth[] {
  const window = RunStoreInput.healthQuery(query);
  const byServer = new Map<string, { ok: number; failed: number; cancelled: number; lastFailureAt: number | null; durations: number[] }>();
  for (const row of rows) {
    if (window.since !== null && !(row.createdAt >= window.since)) continue;
    if (window.until !== null && !(row.createdAt < window.until)) continue;
    const call = toolCallOf(row);
    if (call === null || call.server === null) continue;
    let acc = byServer.get(call.server);
    if (acc === undefined) {
      acc = { ok: 0, failed: 0, cancelled: 0, lastFailureAt: null, durations: [] };
      byServer.set(call.server, acc);
    }
    acc[call.outcome] += 1;
    if (call.outcome === 'failed' && (acc.lastFailureAt === null || row.createdAt > acc.lastFailureAt)) {
      acc.lastFailureAt = row.createdAt;
    }
    acc.durations.push(row.durationMs);
  }
  const servers = [...byServer.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return servers.map((server) => {
    const acc = byServer.get(server)!;
    return healthOf(server, acc, window.flaky);
  });
}

/**
 * Builds one server's health from its counts and durations (the durations are sorted in place).
 *
 * @internal
 */
export function healthOf(
  server: string,
  acc: { ok: number; failed: number; cancelled: number; lastFailureAt: number | null; durations: number[] },
  flaky: Required<FlakyThreshold>,
): ServerHealth {
  const answered = acc.ok + acc.failed;
  const failureRate = answered === 0 ? null : acc.failed / answered;
  acc.durations.sort((a, b) => a - b);
  return Object.freeze({
    server,
    calls: acc.ok + acc.failed + acc.cancelled,
    ok: acc.ok,
    failed: acc.failed,
    cancelled: acc.cancelled,
    failureRate,
    lastFailureAt: acc.lastFailureAt,
    p50DurationMs: nearestRank(acc.durations, 0.5),
    p95DurationMs: nearestRank(acc.durations, 0.95),
    flaky: failureRate !== null && answered >= flaky.minAnsweredCalls && failureRate >= flaky.failureRate,
  });
}

function nearestRank(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return sorted[index]!;
}
