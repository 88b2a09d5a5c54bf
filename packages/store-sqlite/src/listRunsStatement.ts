// The runs list: the statement of one page of RunStore.listRuns (trace's runPageOf makes the page of its rows).
import type { NormalizedRunQuery } from '@runledger/trace/store';
import { RUN_COLUMNS } from './sqliteRows.js';

/**
 * The SELECT of one page of runs, newest first, by keyset on (created_at, id) over the indexes for
 * status, configuration and the has-failed / has-cancelled filters; one row past the page tells
 * whether there is a next one. Null when no run can match (an empty status list).
 *
 * @internal
 */
export function listRunsStatement(q: NormalizedRunQuery): { readonly sql: string; readonly params: readonly unknown[] } | null {
  const where: string[] = [];
  const params: unknown[] = [];
  if (q.statuses !== null) {
    if (q.statuses.length === 0) return null;
    where.push(`status IN (${q.statuses.map(() => '?').join(', ')})`);
    params.push(...q.statuses);
  }
  if (q.configuration !== null) {
    where.push('configuration = ?');
    params.push(q.configuration);
  }
  if (q.hasOutcome !== null) where.push(`${q.hasOutcome}_count > 0`);
  if (q.createdFrom !== null) {
    where.push('created_at >= ?');
    params.push(q.createdFrom);
  }
  if (q.createdTo !== null) {
    where.push('created_at < ?');
    params.push(q.createdTo);
  }
  if (q.after !== null) {
    where.push('(created_at, id) < (?, ?)');
    params.push(q.after.createdAt, q.after.id.toLowerCase());
  }
  const sql = `SELECT ${RUN_COLUMNS} FROM runs ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY created_at DESC, id DESC LIMIT ?`;
  params.push(q.limit + 1);
  return { sql, params };
}
