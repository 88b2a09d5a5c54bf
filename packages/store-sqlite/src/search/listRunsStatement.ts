// The runs list: the statement of one page of RunStore.listRuns (trace's runPageOf makes the page of its rows).
import type { NormalizedRunQuery } from '@runledger/trace/store';
import { runFilterConditions } from './runFilterConditions.js';
import { RUN_COLUMNS } from '../sqliteRows.js';

/**
 * The SELECT of one page of runs, newest first, by keyset on (created_at, id) over the indexes for
 * status, configuration and the has-failed / has-cancelled filters; one row past the page tells
 * whether there is a next one; `titleIndexed` as runFilterConditions takes it. Null when no run can match
 * (an empty status list).
 *
 * @internal
 */
export function listRunsStatement(
  q: NormalizedRunQuery,
  titleIndexed = false,
): { readonly sql: string; readonly params: readonly unknown[] } | null {
  const filters = runFilterConditions(q, titleIndexed);
  if (filters === null) return null;
  const where = [...filters.where];
  const params = [...filters.params];
  if (q.after !== null) {
    where.push('(created_at, id) < (?, ?)');
    params.push(q.after.createdAt, q.after.id.toLowerCase());
  }
  const sql = `SELECT ${RUN_COLUMNS} FROM runs ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY created_at DESC, id DESC LIMIT ?`;
  params.push(q.limit + 1);
  return { sql, params };
}
