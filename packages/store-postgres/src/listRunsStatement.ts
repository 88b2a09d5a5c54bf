// The runs list: the statement of one page of RunStore.listRuns (trace's runPageOf makes the page of its rows).
import type { NormalizedRunQuery } from '@runledger/trace/store';
import { ms, RUN_COLUMNS } from './postgresRows.js';

/**
 * The SELECT of one page of runs in schema `q` (quoted), newest first, by keyset on (created_at, id)
 * over the indexes for status, configuration and the has-failed / has-cancelled filters; one row
 * past the page tells whether there is a next one. A run a prune hid is gone for readers.
 *
 * @internal
 */
export function listRunsStatement(query: NormalizedRunQuery, q: string): { readonly sql: string; readonly values: readonly unknown[] } {
  const where: string[] = ['pruned_at IS NULL'];
  const values: unknown[] = [];
  const param = (value: unknown): string => {
    values.push(value);
    return `$${values.length}`;
  };
  // one status as an equality, so that runs_status_created hands the rows out already in page order
  if (query.statuses !== null) {
    where.push(
      query.statuses.length === 1 ? `status = ${param(query.statuses[0])}::text` : `status = ANY (${param(query.statuses)}::text[])`,
    );
  }
  if (query.configuration !== null) where.push(`configuration = ${param(query.configuration)}`);
  if (query.hasOutcome !== null) where.push(`${query.hasOutcome}_count > 0`);
  if (query.createdFrom !== null) where.push(`created_at >= ${param(Math.ceil(query.createdFrom))}::bigint`);
  if (query.createdTo !== null) where.push(`created_at < ${param(Math.ceil(query.createdTo))}::bigint`);
  if (query.after !== null) {
    where.push(`(created_at, id) < (${param(ms(query.after.createdAt))}::bigint, ${param(query.after.id)}::uuid)`);
  }
  const sql = `SELECT ${RUN_COLUMNS} FROM ${q}.runs WHERE ${where.join(' AND ')}
      ORDER BY created_at DESC, id DESC LIMIT ${query.limit + 1}`;
  return { sql, values };
}
