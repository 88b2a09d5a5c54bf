import { ToolFailureCause } from '@runledger/core';
import type { FlakyThreshold } from './FlakyThreshold.js';
import type { ToolCallFacts } from './ToolCallFacts.js';

/**
 * The health of one MCP server over a time window.
 *
 * @remarks
 * `failureRate` is `(failed − notCharged) / (ok + failed − notCharged)`: cancellations and the
 * failed calls that are not the server's doing ({@link NOT_COUNTED_FAILURE_CAUSES}: invalid
 * arguments, a tool the server does not have, calls that were never sent) never count against a
 * server. It is `null` when no call counts. The duration percentiles are over answered calls only
 * (`answered`, see {@link isAnsweredCall}).
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
  /** Failed calls the server refused for invalid arguments (cause `invalid_arguments`; in `failed` and `notCharged`). */
  readonly invalidArguments: number;
  /**
   * Failed calls not charged to the server (their cause is one of {@link NOT_COUNTED_FAILURE_CAUSES}:
   * invalid arguments, a tool the server does not have, calls that were never sent); in `failed`,
   * not in `failureRate`.
   */
  readonly notCharged: number;
  /** The failed calls by cause, most first (then by cause); they add up to `failed`. */
  readonly failureCauses: readonly ServerFailureCauseCount[];
  /** Calls the server answered (ok, or an error answer): the calls the percentiles are over. */
  readonly answered: number;
  /** (failed − notCharged) / (ok + failed − notCharged); null when that is 0. */
  readonly failureRate: number | null;
  /** When the last failed call that counts in `failureRate` was recorded (ms since the epoch), or null. */
  readonly lastFailureAt: number | null;
  /** Median duration of the server's answered calls in ms, or null when there are none. */
  readonly p50DurationMs: number | null;
  /** 95th percentile duration of the server's answered calls in ms, or null when there are none. */
  readonly p95DurationMs: number | null;
  /** True when failureRate reaches the threshold over at least `minAnsweredCalls` counted calls. */
  readonly flaky: boolean;
  /** True when fewer calls count in `failureRate` than `minAnsweredCalls`: too few to call the server healthy. */
  readonly tooFewCalls: boolean;
}

/**
 * The cause of failed calls whose cause was not recorded (rows written before causes were).
 *
 * @public
 */
export const UNKNOWN_FAILURE_CAUSE = 'unknown';

/**
 * How many failed calls of a server had one cause.
 *
 * @public
 */
export interface ServerFailureCauseCount {
  /** A {@link (ToolFailureCause:type)}, or {@link UNKNOWN_FAILURE_CAUSE}. */
  readonly cause: ToolFailureCause | typeof UNKNOWN_FAILURE_CAUSE;
  /** How many failed calls had this cause. */
  readonly calls: number;
}

/**
 * The running totals of one server that {@link healthOf} turns into its health.
 *
 * @internal
 */
export interface ServerHealthTally {
  /** Calls that ended ok. */
  ok: number;
  /** Calls that ended failed, whatever the cause. */
  failed: number;
  /** Calls that ended cancelled. */
  cancelled: number;
  /** Failed calls that do not count in the failure rate (not charged to the server). */
  notCounted: number;
  /** The greatest `createdAt` of a failed call that counts, or null. */
  lastFailureAt: number | null;
  /** Failed calls by cause (`unknown` for none recorded). */
  causes: Map<string, number>;
}

/**
 * A fresh tally.
 *
 * @internal
 */
export function newServerHealthTally(): ServerHealthTally {
  return { ok: 0, failed: 0, cancelled: 0, notCounted: 0, lastFailureAt: null, causes: new Map() };
}

/**
 * Adds one call to a tally: the one place the counts of server health are kept (the exact path
 * and every store's rollup read add calls through it).
 *
 * @internal
 */
export function addToTally(tally: ServerHealthTally, call: ToolCallFacts, createdAt: number, times = 1): void {
  tally[call.outcome] += times;
  if (call.outcome !== 'failed') return;
  if (!call.counted) tally.notCounted += times;
  else if (tally.lastFailureAt === null || createdAt > tally.lastFailureAt) tally.lastFailureAt = createdAt;
  const cause = call.cause ?? UNKNOWN_FAILURE_CAUSE;
  tally.causes.set(cause, (tally.causes.get(cause) ?? 0) + times);
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
 * The latency figures of one server: how many answered calls, and their percentiles.
 *
 * @internal
 */
export interface ServerLatency {
  /** How many answered calls the percentiles are over. */
  readonly answered: number;
  /** Their median duration in ms, or null. */
  readonly p50: number | null;
  /** Their 95th percentile duration in ms, or null. */
  readonly p95: number | null;
}

/**
 * Builds one server's health from its tally and the latency of its answered calls: the one
 * place failure rate, flaky and too-few-calls are decided.
 *
 * @internal
 */
export function healthOf(server: string, tally: ServerHealthTally, latency: ServerLatency, flaky: Required<FlakyThreshold>): ServerHealth {
  const countedFailed = tally.failed - tally.notCounted;
  const counted = tally.ok + countedFailed;
  const failureRate = counted === 0 ? null : countedFailed / counted;
  const tooFewCalls = counted < flaky.minAnsweredCalls;
  const failureCauses = [...tally.causes.entries()]
    .filter(([, calls]) => calls > 0)
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0))
    .map(([cause, calls]) => Object.freeze({ cause: cause as ServerFailureCauseCount['cause'], calls }));
  return Object.freeze({
    server,
    calls: tally.ok + tally.failed + tally.cancelled,
    ok: tally.ok,
    failed: tally.failed,
    cancelled: tally.cancelled,
    invalidArguments: tally.causes.get(ToolFailureCause.INVALID_ARGUMENTS) ?? 0,
    notCharged: tally.notCounted,
    failureCauses: Object.freeze(failureCauses),
    answered: latency.answered,
    failureRate,
    lastFailureAt: tally.lastFailureAt,
    p50DurationMs: latency.answered === 0 ? null : latency.p50,
    p95DurationMs: latency.answered === 0 ? null : latency.p95,
    flaky: failureRate !== null && !tooFewCalls && failureRate >= flaky.failureRate,
    tooFewCalls,
  });
}
