// Per-server-and-tool figures of the ended tool calls of a window, as a store's users see them:
// the optional RunStore read behind `/metrics` at fleet size, with its can… test. The input rule
// and the fold a store sums its rows with are in toolCallTotalsFold.ts.
import type { RunStore } from './RunStore.js';
import type { ServerFailureCauseCount } from '../health/ServerHealth.js';

/**
 * The window {@link ToolTotalsRunStore.toolCallTotals} sums the calls of.
 *
 * @public
 */
export interface ToolCallTotalsQuery {
  /** Only calls recorded at or after this time (ms since the epoch). */
  readonly since?: number;
  /** Only calls recorded before this time (ms since the epoch). */
  readonly until?: number;
}

/**
 * The ended tool calls of one server and tool in a window.
 *
 * @public
 */
export interface ToolCallTotals {
  /** The MCP server id (the calls' `toolServer`). */
  readonly server: string;
  /** The tool's name as the steps recorded it (`toolName`), or null for the calls that recorded none. */
  readonly tool: string | null;
  /** Calls that ended ok. */
  readonly ok: number;
  /** Calls that ended failed, whatever the cause. */
  readonly failed: number;
  /** Calls that ended cancelled. */
  readonly cancelled: number;
  /** The failed calls by cause (`unknown` when none was recorded), by cause name. */
  readonly failureCauses: readonly ServerFailureCauseCount[];
  /**
   * The answered calls ({@link isAnsweredCall}) per bucket of {@link TOOL_DURATION_BUCKETS_SECONDS}
   * (not cumulative), then the ones above the last bound: {@link TOOL_DURATION_BUCKET_COUNT} numbers.
   */
  readonly answeredBuckets: readonly number[];
  /** The sum of the answered calls' durations in ms. */
  readonly answeredMs: number;
}

/**
 * A {@link RunStore} that sums its ended tool calls per server and tool over any window without
 * reading them one by one: every store of runledger is one.
 *
 * @remarks
 * `toolCallTotals` is optional on {@link RunStore} so that a store written before it still
 * compiles; {@link canReadToolCallTotals} tells whether a store has it. Readers without it fold
 * the calls of {@link SearchingRunStore.listToolCalls}, which gives the same numbers.
 *
 * @public
 */
export interface ToolTotalsRunStore extends RunStore {
  /**
   * The ended tool calls that name a server (those `listToolCalls` lists), recorded in the window,
   * summed per server and tool: ordered by server, then tool (the calls without a tool name first).
   * A server and tool without a call in the window has no entry. Costs the servers and tools and
   * the calls of the window's sub-minute edges, not the calls of the window.
   *
   * @throws RunStoreError (`invalid_input`) from `checkToolCallTotalsQuery`.
   */
  toolCallTotals(query?: ToolCallTotalsQuery): Promise<readonly ToolCallTotals[]>;
}

/**
 * Tells whether a store can sum its tool calls per server and tool (has `toolCallTotals`).
 *
 * @public
 */
export function canReadToolCallTotals(store: RunStore): store is ToolTotalsRunStore {
  return typeof (store as Partial<ToolTotalsRunStore>).toolCallTotals === 'function';
}
