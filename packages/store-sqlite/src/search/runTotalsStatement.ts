// What a runs listing adds up to: the statement of SearchingRunStore.runTotals.
import type { NormalizedRunQuery } from '@runledger/trace/store';
import { runFilters } from '../runFilters.js';

/**
 * The SELECT of how many runs a listing's filters keep and the sum of their tokens (one row:
 * `runs`, `tokens`, `oldest` null), with the listing's own conditions (runFilters); its cursor and
 * limit play no part. With `upTo` it reads at most `upTo + 1` runs, newest first (the listing's own
 * order and indexes): `runs` is then how many of those there are, and `oldest` the tokens of the
 * last one, which the caller leaves out when `runs` is past `upTo`. Null when no run can match (an
 * empty status list).
 *
 * @internal
 */
export function runTotalsStatement(
  q: NormalizedRunQuery,
  upTo: number | null,
): { readonly sql: string; readonly params: readonly unknown[] } | null {
  const filters = runFilters(q);
  if (filters === null) return null;
  const where = filters.where.length > 0 ? `WHERE ${filters.where.join(' AND ')}` : '';
  // total(), not sum(): a float sum never fails with "integer overflow" (the tokens are JS numbers anyway)
  if (upTo === null)
    return { sql: `SELECT count(*) AS runs, total(tokens) AS tokens, NULL AS oldest FROM runs ${where}`, params: filters.params };
  return {
    sql: `WITH newest AS (SELECT created_at, id, tokens FROM runs ${where} ORDER BY created_at DESC, id DESC LIMIT ?)
      SELECT count(*) AS runs, total(tokens) AS tokens, (SELECT tokens FROM newest ORDER BY created_at, id LIMIT 1) AS oldest FROM newest`,
    params: [...filters.params, upTo + 1],
  };
}
