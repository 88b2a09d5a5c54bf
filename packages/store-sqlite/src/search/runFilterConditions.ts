// The filters of a runs listing as SQL: the one WHERE builder of listRunsStatement (a page) and
// runTotalsStatement (what every page adds up to).
import type { NormalizedRunQuery } from '@runledger/trace/store';
import { titlePhrase } from '../schema/titleSearch.js';
import { CALL_TOOL_NAME } from '../sqliteRows.js';

/** The conditions on `runs` and their parameters, in order. */
export interface RunFilterConditions {
  readonly where: readonly string[];
  readonly params: readonly unknown[];
}

/**
 * The conditions of a run query's filters (not its cursor or limit), or null when no run can
 * match (an empty status list).
 *
 * @remarks
 * `server` and `tool`: the run has an ended tool call (a step with `call_outcome`) of that server
 * (`call_server`, as health counts calls) and of that tool (its payload's `toolName`), the same call
 * when both are given: an EXISTS over the run's own steps (one rowid range) through
 * steps_call_servers or steps_call_tools, a seek per run. `titleContains`: `instr` on `lower`
 * (ASCII A-Z only, as SQLite's lower() without ICU), so `%` and `_` are literal and a run without
 * a title never matches. With `titleIndexed` (SqliteRunSearch.titleIndexed: a rare text of three
 * characters or more) the runs are first looked up in the trigram index runs_title (schema
 * version 19), so that only the runs it finds are read.
 *
 * @internal
 */
export function runFilterConditions(q: NormalizedRunQuery, titleIndexed = false): RunFilterConditions | null {
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
  if (q.server !== null || q.tool !== null) {
    const call = ['steps.id >= (runs.run_no << 32)', 'steps.id < ((runs.run_no + 1) << 32)', 'steps.call_outcome IS NOT NULL'];
    if (q.tool !== null) {
      call.push(`${CALL_TOOL_NAME} = ?`);
      params.push(q.tool);
    }
    if (q.server !== null) {
      call.push('steps.call_server = ?');
      params.push(q.server);
    }
    where.push(`EXISTS (SELECT 1 FROM steps WHERE ${call.join(' AND ')})`);
  }
  if (q.titleContains !== null) {
    // the index finds a superset (it folds the case of every letter): instr keeps the exact rule
    if (titleIndexed) {
      where.push('run_no IN (SELECT rowid FROM runs_title WHERE runs_title MATCH ?)');
      params.push(titlePhrase(q.titleContains));
    }
    where.push('instr(lower(title), lower(?)) > 0');
    params.push(q.titleContains);
  }
  return { where, params };
}
