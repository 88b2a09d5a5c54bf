// Finding runs in a large store, as a store applies it: the input rules of a listing's totals and of
// an id prefix, and the totals of a count. The reads themselves are SearchingRunStore's.
import type { NormalizedRunQuery } from './NormalizedStoreInput.js';
import type { RunTotals, RunTotalsQuery } from '@runledger/trace';
import { checkRunQuery } from './storeInputChecks.js';
import { invalid, show, UUID } from './storeValueRules.js';

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
