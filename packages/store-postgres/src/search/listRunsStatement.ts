// The runs list: the statement of one page of RunStore.listRuns (trace's runPageOf makes the page of
// its rows) and of runTotals (what every page of it adds up to), over the same filters.
import type { NormalizedRunQuery } from '@runledger/trace/store';
import { ms, RUN_COLUMNS } from '../postgresRows.js';
import { runFilterConditions } from './runFilterConditions.js';

/** A statement and its values. @internal */
export interface Statement {
  readonly sql: string;
  readonly values: readonly unknown[];
}

/** The values of a statement being built, and `param`, which adds one and returns its placeholder. */
function parameters(): { values: unknown[]; param: (value: unknown) => string } {
  const values: unknown[] = [];
  return {
    values,
    param: (value) => {
      values.push(value);
      return `$${values.length}`;
    },
  };
}

/**
 * The SELECT of one page of runs in schema `q` (quoted), newest first, by keyset on (created_at, id)
 * over the indexes for status, configuration and the has-failed / has-cancelled filters; one row
 * past the page tells whether there is a next one. A run a prune hid is gone for readers.
 *
 * @internal
 */
export function listRunsStatement(query: NormalizedRunQuery, q: string): Statement {
  const { values, param } = parameters();
  const where = runFilterConditions(query, q, param);
  if (query.after !== null) {
    where.push(`(created_at, id) < (${param(ms(query.after.createdAt))}::bigint, ${param(query.after.id)}::uuid)`);
  }
  const sql = `SELECT ${RUN_COLUMNS} FROM ${q}.runs WHERE ${where.join(' AND ')}
      ORDER BY created_at DESC, id DESC LIMIT ${query.limit + 1}`;
  return { sql, values };
}

/**
 * The SELECT of `runTotals`: how many runs the listing's filters keep and the sum of their tokens,
 * in one row (`runs`, `tokens`: the exact sum as the nearest number, never an overflow; `fewest`:
 * the fewest tokens of one counted run); its cursor and limit are not applied. With `upTo` it reads
 * at most `upTo + 1` matching runs, in whatever order is cheapest, and stops: when it found that
 * many, the caller counts `upTo` and leaves out one run's tokens (`fewest`).
 *
 * @internal
 */
export function runTotalsStatement(query: NormalizedRunQuery, q: string, upTo: number | null): Statement {
  const { values, param } = parameters();
  const where = runFilterConditions(query, q, param);
  const from =
    upTo === null
      ? `${q}.runs WHERE ${where.join(' AND ')}`
      : `(SELECT tokens FROM ${q}.runs WHERE ${where.join(' AND ')} LIMIT ${param(upTo + 1)}::bigint) AS counted`;
  const sql = `SELECT count(*)::float8 AS runs, coalesce(sum(tokens), 0)::float8 AS tokens, min(tokens)::float8 AS fewest FROM ${from}`;
  return { sql, values };
}
