// Finding runs in a large store, as a store's users see it: the optional RunStore reads behind the
// app's search (totals of a listing, one server's calls, runs by the start of their id), with their
// can… test. The input rules a store applies to them are in RunSearch.ts.
import type { RunQuery, RunStore } from './RunStore.js';
import type { ToolCallPage, ToolCallQuery } from './StoredToolCall.js';

/**
 * The filters of a run listing without its paging: what {@link SearchingRunStore.runTotals} adds
 * up, and how far it counts.
 *
 * @public
 */
export type RunTotalsQuery = Omit<RunQuery, 'cursor' | 'limit'> & {
  /**
   * Counts at most this many runs (a positive integer): a read that stops there, so it costs the
   * same however many runs match beyond it. Without it every run the filters keep is counted.
   */
  readonly upTo?: number;
};

/**
 * What the runs a listing's filters keep add up to.
 *
 * @public
 */
export interface RunTotals {
  /** How many runs the filters keep (every page of the listing); at most `upTo` when it was given. */
  readonly runs: number;
  /** The model tokens the counted runs used (their `tokens`, see {@link stepTokens}). */
  readonly tokens: number;
  /**
   * False when more runs match than the query's `upTo`: `runs` is then `upTo` and `tokens` what
   * `upTo` of them used (whichever the store read first), so both are lower bounds ("10,000+").
   */
  readonly complete: boolean;
}

/**
 * A {@link RunStore} that finds runs in a large store without reading them all: every store of
 * runledger is one.
 *
 * @remarks
 * The three methods are optional on {@link RunStore} so that a store written before them still
 * compiles; {@link canSearchRuns} tells whether a store has them. Such a store also honours
 * {@link RunQuery}'s `server`, `tool` and `titleContains` filters; a store without them ignores
 * those filters, so an app offers them only where {@link canSearchRuns} holds.
 *
 * @public
 */
export interface SearchingRunStore extends RunStore {
  /**
   * How many runs a listing with these filters holds, and the tokens they used; with `upTo`, of
   * `upTo` runs at most (`complete` tells whether more match).
   *
   * @throws RunStoreError (`invalid_input`) from `checkRunTotalsQuery`.
   */
  runTotals(query?: RunTotalsQuery): Promise<RunTotals>;
  /**
   * One MCP server's ended tool calls, newest first (by `createdAt`, then run id, then sequence),
   * keyset-paged.
   *
   * @throws RunStoreError (`invalid_input`) from `checkToolCallQuery`.
   */
  listToolCalls(query: ToolCallQuery): Promise<ToolCallPage>;
  /**
   * The ids of the runs whose id starts with `prefix` (any case), in ascending order, at most
   * `limit` (default 10, at most 200). A prefix no run id can start with finds none.
   *
   * @throws RunStoreError (`invalid_input`) from `checkRunIdPrefix`.
   */
  findRunIdsByPrefix(prefix: string, limit?: number): Promise<readonly string[]>;
}

/**
 * Tells whether a store can search its runs (has `runTotals`, `listToolCalls` and `findRunIdsByPrefix`).
 *
 * @public
 */
export function canSearchRuns(store: RunStore): store is SearchingRunStore {
  const s = store as Partial<SearchingRunStore>;
  return typeof s.runTotals === 'function' && typeof s.listToolCalls === 'function' && typeof s.findRunIdsByPrefix === 'function';
}
