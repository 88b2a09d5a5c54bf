import type { ToolFailureCause } from '@runledger/core';
import type { FlakyThreshold } from './FlakyThreshold.js';

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
