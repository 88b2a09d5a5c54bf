// What a runs listing adds up to: the statement of SearchingRunStore.runTotals.
import type { NormalizedRunQuery } from '@runledger/trace/store';
import { runFilterConditions } from './runFilterConditions.js';

/**
 * The SELECT of how many runs a listing's filters keep and the sum of their tokens (one row:
 * `runs`, `tokens`, `fewest`: the fewest tokens of one counted run), with the listing's own
 * conditions (runFilterConditions); its cursor and limit play no part. With `upTo` it reads at most
 * `upTo + 1` matching runs, in whatever order is cheapest, and stops (trace's runTotalsOf makes
 * the totals of that count). `titleIndexed` as runFilterConditions takes it. Null when no run can match (an
 * empty status list).
 *
 * @internal
 */
export function runTotalsStatement(
  q: NormalizedRunQuery,
  upTo: number | null,
  titleIndexed = false,
): { readonly sql: string; readonly params: readonly unknown[] } | null {
  const filters = runFilterConditions(q, titleIndexed);
  if (filters === null) return null;
  const where = filters.where.length > 0 ? `WHERE ${filters.where.join(' AND ')}` : '';
  const from = upTo === null ? `runs ${where}` : `(SELECT tokens FROM runs ${where} LIMIT ?)`;
  // total(), not sum(): a float sum never fails with "integer overflow" (the tokens are JS numbers anyway)
  return {
    sql: `SELECT count(*) AS runs, total(tokens) AS tokens, min(tokens) AS fewest FROM ${from}`,
    params: upTo === null ? filters.params : [...filters.params, upTo + 1],
  };
}
