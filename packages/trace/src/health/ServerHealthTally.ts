// How a store folds its tool calls into a server's health: the tally, the latency figures and the
// ServerHealth they make (the shapes a store's users read are in ServerHealth.ts).
import type { FlakyThreshold, ServerFailureCauseCount, ServerHealth } from '@runledger/trace';
import { ToolFailureCause } from '@runledger/core';
import type { ToolCallFacts } from './ToolCallFacts.js';
import { UNKNOWN_FAILURE_CAUSE } from './ServerHealth.js';

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
