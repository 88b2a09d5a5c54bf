// Finding runs in a large store: the optional RunStore reads behind the app's search (totals of a
// listing, one server's calls, runs by the start of their id) and the input rule of an id prefix.
import type { NormalizedRunQuery } from './NormalizedStoreInput.js';
import type { RunQuery, RunStore } from './RunStore.js';
import { checkRunQuery } from './storeInputChecks.js';
import type { ToolCallPage, ToolCallQuery } from './ToolCallListing.js';
import { invalid, show, UUID } from './storeValueRules.js';

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
 * A runs total query as stores read it: the listing's filters (its cursor and limit play no part)
 * and how many runs to count at most (null: all).
 *
 * @public
 */
export interface NormalizedRunTotalsQuery {
  /** The listing's filters, checked as `checkRunQuery` checks them. */
  readonly filters: NormalizedRunQuery;
  /** How many runs to count at most; null: every run the filters keep. */
  readonly upTo: number | null;
}

/**
 * Checks a runs total query.
 *
 * @throws RunStoreError (`invalid_input`) from `checkRunQuery`, or when `upTo` is not a positive integer.
 *
 * @public
 */
export function checkRunTotalsQuery(query: RunTotalsQuery = {}): NormalizedRunTotalsQuery {
  const filters = checkRunQuery(query);
  const upTo = query.upTo ?? null;
  if (upTo !== null && (typeof upTo !== 'number' || !Number.isSafeInteger(upTo) || upTo < 1)) {
    throw invalid(`RunTotalsQuery.upTo must be a positive integer, got ${show(upTo)}`);
  }
  return { filters, upTo };
}

/**
 * The totals of a count that read at most `upTo + 1` matching runs (`runs` of them, `tokens` their
 * sum, `fewest` the fewest tokens of one): past `upTo`, `upTo` runs and the tokens of all but the
 * one with the fewest, marked incomplete. How an SQL store turns its one-row count into
 * {@link RunTotals}.
 *
 * @public
 */
export function runTotalsOf(
  counted: { readonly runs: number; readonly tokens: number; readonly fewest: number | null },
  upTo: number | null,
): RunTotals {
  if (upTo !== null && counted.runs > upTo) return { runs: upTo, tokens: counted.tokens - (counted.fewest ?? 0), complete: false };
  return { runs: counted.runs, tokens: counted.tokens, complete: true };
}

/** The most ids {@link SearchingRunStore.findRunIdsByPrefix} returns. */
const MAX_PREFIX_MATCHES = 200;
/** The nil UUID: a text can start a run id when the rest of this one completes it to a UUID. */
const ANY_UUID = '00000000-0000-0000-0000-000000000000';

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

/**
 * A run id prefix as stores look it up: in lower case, or null when no run id (a UUID) can start
 * with it; and the number of ids to return.
 *
 * @throws RunStoreError (`invalid_input`) when `prefix` is not a non-empty string or `limit` not a positive integer.
 *
 * @public
 */
export function checkRunIdPrefix(prefix: unknown, limit: unknown = 10): { readonly prefix: string | null; readonly limit: number } {
  if (typeof prefix !== 'string' || prefix.length === 0) {
    throw invalid(`findRunIdsByPrefix's prefix must be a non-empty string, got ${show(prefix)}`);
  }
  if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 1) {
    throw invalid(`findRunIdsByPrefix's limit must be a positive integer, got ${show(limit)}`);
  }
  const lower = prefix.toLowerCase();
  // hex digits, and hyphens exactly where a UUID has them
  const possible = lower.length <= ANY_UUID.length && UUID.test(lower + ANY_UUID.slice(lower.length));
  return { prefix: possible ? lower : null, limit: Math.min(limit, MAX_PREFIX_MATCHES) };
}
