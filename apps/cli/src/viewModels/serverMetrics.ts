/**
 * What `/metrics` says about the MCP servers, from the stores' server health: at most a bounded
 * number of servers by name (the busiest), the rest folded into one `other` row, so that the
 * label values a scrape makes stay bounded however many servers a ledger has seen.
 */
import { isCountedCall, type ServerHealth } from '@runledger/trace';
import type { ToolFailureCause } from '@runledger/core';
import { healthVerdict } from './serversQuery.js';

/** The label value the servers beyond the limit are folded into. @internal */
export const OTHER_SERVERS = 'other';

/** How many servers `/metrics` names at most; the rest are {@link OTHER_SERVERS}. @internal */
export const METRICS_SERVER_LIMIT = 50;

/** One server's (or the folded servers') figures as `/metrics` writes them. @internal */
export interface ServerMetricsRow {
  /** The server id, or {@link OTHER_SERVERS}. */
  readonly server: string;
  readonly ok: number;
  readonly failed: number;
  readonly cancelled: number;
  /** Failed calls by cause, and whether the cause counts against the server (in its failure rate). */
  readonly failureCauses: readonly { readonly cause: string; readonly charged: boolean; readonly calls: number }[];
  /** Calls the server answered: the calls the percentiles are over. */
  readonly answered: number;
  /** The store's failure rate (cancels and the causes not charged left out); null for none, and for the folded row. */
  readonly failureRate: number | null;
  /** p50 and p95 of the answered calls in ms; null for none, and for the folded row. */
  readonly p50DurationMs: number | null;
  readonly p95DurationMs: number | null;
  /** 1 when the servers page calls it flaky, else 0; null for the folded row (no verdict over many servers). */
  readonly flaky: 0 | 1 | null;
  /** Its calls on the wire now. */
  readonly open: number;
}

/** The servers of a scrape: the named ones, busiest first, then the folded row when any was folded. @internal */
export interface ServerMetrics {
  readonly rows: readonly ServerMetricsRow[];
  /** How many servers were folded into {@link OTHER_SERVERS}. */
  readonly folded: number;
}

function causesOf(row: ServerHealth): ServerMetricsRow['failureCauses'] {
  return row.failureCauses.map(({ cause, calls }) => ({
    cause,
    charged: isCountedCall('failed', cause === 'unknown' ? null : (cause as ToolFailureCause)),
    calls,
  }));
}

function rowOf(row: ServerHealth, open: number): ServerMetricsRow {
  return {
    server: row.server,
    ok: row.ok,
    failed: row.failed,
    cancelled: row.cancelled,
    failureCauses: causesOf(row),
    answered: row.answered,
    failureRate: row.failureRate,
    p50DurationMs: row.p50DurationMs,
    p95DurationMs: row.p95DurationMs,
    flaky: healthVerdict(row) === 'flaky' ? 1 : 0,
    open,
  };
}

/** A server with calls on the wire and no ended call in the window. */
function openOnlyRow(server: string, open: number): ServerMetricsRow {
  return {
    server,
    ok: 0,
    failed: 0,
    cancelled: 0,
    failureCauses: [],
    answered: 0,
    failureRate: null,
    p50DurationMs: null,
    p95DurationMs: null,
    flaky: 0,
    open,
  };
}

const callsOf = (row: ServerMetricsRow) => row.ok + row.failed + row.cancelled;

/** The rows beyond the limit summed into one {@link OTHER_SERVERS} row: no rate, quantile or verdict over many servers. */
function foldedRow(rest: readonly ServerMetricsRow[]): ServerMetricsRow {
  const causes = new Map<string, { charged: boolean; calls: number }>();
  for (const cause of rest.flatMap((row) => row.failureCauses)) {
    causes.set(cause.cause, { charged: cause.charged, calls: (causes.get(cause.cause)?.calls ?? 0) + cause.calls });
  }
  const sum = (key: 'ok' | 'failed' | 'cancelled' | 'answered' | 'open') => rest.reduce((total, row) => total + row[key], 0);
  return {
    server: OTHER_SERVERS,
    ok: sum('ok'),
    failed: sum('failed'),
    cancelled: sum('cancelled'),
    failureCauses: [...causes].map(([cause, { charged, calls }]) => ({ cause, charged, calls })),
    answered: sum('answered'),
    failureRate: null,
    p50DurationMs: null,
    p95DurationMs: null,
    flaky: null,
    open: sum('open'),
  };
}

/**
 * The servers' rows of a scrape: the `limit` servers with the most calls in the window (then the
 * most calls on the wire, then by id) by name, every other one (a server whose id is `other`
 * included) summed into one {@link OTHER_SERVERS} row.
 *
 * @internal
 */
export function serverMetrics(health: readonly ServerHealth[], openCalls: ReadonlyMap<string, number>, limit: number): ServerMetrics {
  const all = health.map((row) => rowOf(row, openCalls.get(row.server) ?? 0));
  const seen = new Set(health.map((row) => row.server));
  for (const [server, open] of openCalls) if (!seen.has(server) && open > 0) all.push(openOnlyRow(server, open));
  const ranked = all.sort((a, b) => callsOf(b) - callsOf(a) || b.open - a.open || (a.server < b.server ? -1 : a.server > b.server ? 1 : 0));
  const kept = ranked.filter((row) => row.server !== OTHER_SERVERS).slice(0, Math.max(0, limit));
  const keptIds = new Set(kept.map((row) => row.server));
  const rest = ranked.filter((row) => !keptIds.has(row.server));
  return rest.length === 0 ? { rows: kept, folded: 0 } : { rows: [...kept, foldedRow(rest)], folded: rest.length };
}
