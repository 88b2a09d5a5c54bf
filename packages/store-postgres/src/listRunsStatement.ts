// The runs list: the statement of one page of RunStore.listRuns (trace's runPageOf makes the page of
// its rows) and of runTotals (what every page of it adds up to), over the same filters.
import type { NormalizedRunQuery } from '@runledger/trace/store';
import { ms, RUN_COLUMNS } from './postgresRows.js';
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
 * in one row (`runs`, `tokens`: the exact sum as the nearest number, never an overflow; `oldest`
 * null); its cursor and limit are not applied. With `upTo` it reads at most `upTo + 1` runs, newest
 * first (the listing's own order and indexes): `runs` is then how many of those there are, and
 * `oldest` the tokens of the last one, which the caller leaves out when `runs` is past `upTo`.
 *
 * @internal
 */
export function runTotalsStatement(query: NormalizedRunQuery, q: string, upTo: number | null): Statement {
  const { values, param } = parameters();
  const where = runFilterConditions(query, q, param);
  if (upTo === null) {
    const sql = `SELECT count(*)::float8 AS runs, coalesce(sum(tokens), 0)::float8 AS tokens, NULL::float8 AS oldest
      FROM ${q}.runs WHERE ${where.join(' AND ')}`;
    return { sql, values };
  }
  const sql = `WITH newest AS (
      SELECT created_at, id, tokens FROM ${q}.runs WHERE ${where.join(' AND ')}
      ORDER BY created_at DESC, id DESC LIMIT ${param(upTo + 1)}::bigint)
    SELECT count(*)::float8 AS runs, coalesce(sum(tokens), 0)::float8 AS tokens,
      (SELECT tokens FROM newest ORDER BY created_at, id LIMIT 1)::float8 AS oldest
    FROM newest`;
  return { sql, values };
}
