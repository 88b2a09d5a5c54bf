import type { ServerHealth, ServerHealthQuery } from '@runledger/trace';
import { addToTally, healthOf, newServerHealthTally, type ServerHealthTally } from '../health/ServerHealthTally.js';
import { type ToolCallSource, toolCallOf } from '../health/ToolCallFacts.js';
import { checkHealthQuery } from './storeInputChecks.js';

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
 * cancelled; `notCharged` = failed calls that do not count ({@link isCountedCall}: a cause of
 * {@link NOT_COUNTED_FAILURE_CAUSES}); `invalidArguments` = failed calls with the cause
 * `invalid_arguments` (some of `notCharged`); counted = ok + failed − notCharged; `failureRate` =
 * (failed − notCharged) / counted, null when counted is 0 (cancellations and calls not charged to
 * the server never count);
 * `failureCauses` = the failed calls by cause (`unknown` when none was recorded);
 * `lastFailureAt` = the greatest `createdAt` of a counted failed call; `answered` = the calls
 * the server answered ({@link isAnsweredCall}); `p50DurationMs` and `p95DurationMs` =
 * nearest-rank percentiles over the durations of the answered calls only (sorted ascending, the
 * value at index `ceil(p × n) − 1`, as PostgreSQL's `percentile_disc`), null when none;
 * `tooFewCalls` = counted < `minAnsweredCalls`; `flaky` = not tooFewCalls and failureRate ≥
 * `failureRate` of the threshold (default {@link DEFAULT_FLAKY_THRESHOLD}). Servers come ordered by id in UTF-16
 * code unit order (JavaScript's `<`, SQL's `COLLATE "C"` for ASCII ids).
 *
 * @throws RunStoreError (`invalid_input`) from `serverHealth` when the query is malformed.
 * @public
 */
export function serverHealth(rows: Iterable<ServerHealthRow>, query: ServerHealthQuery = {}): ServerHealth[] {
  const window = checkHealthQuery(query);
  const byServer = new Map<string, { tally: ServerHealthTally; durations: number[] }>();
  for (const row of rows) {
    if (window.since !== null && !(row.createdAt >= window.since)) continue;
    if (window.until !== null && !(row.createdAt < window.until)) continue;
    const call = toolCallOf(row);
    if (call === null || call.server === null) continue;
    let acc = byServer.get(call.server);
    if (acc === undefined) {
      acc = { tally: newServerHealthTally(), durations: [] };
      byServer.set(call.server, acc);
    }
    addToTally(acc.tally, call, row.createdAt);
    if (call.answered) acc.durations.push(row.durationMs);
  }
  const servers = [...byServer.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return servers.map((server) => {
    const acc = byServer.get(server)!;
    acc.durations.sort((a, b) => a - b);
    const n = acc.durations.length;
    return healthOf(
      server,
      acc.tally,
      { answered: n, p50: nearestRank(acc.durations, 0.5), p95: nearestRank(acc.durations, 0.95) },
      window.flaky,
    );
  });
}

function nearestRank(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return sorted[index]!;
}
