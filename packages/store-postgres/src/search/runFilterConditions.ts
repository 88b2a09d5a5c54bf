// The filters of a run listing as SQL conditions on `runs`: the one WHERE builder of listRuns (a
// page) and runTotals (the count and tokens of every page), so that both keep the same runs.
import type { NormalizedRunQuery } from '@runledger/trace/store';

import { ASCII_LOWER, SEARCHED_TITLE } from '../schema/titleSearchIndex.js';

/**
 * The conditions of a listing's filters (not its cursor or limit) on the table `runs` of schema `q`
 * (quoted), ANDed by the caller; `param` adds a value and returns its placeholder. A run a prune
 * hid is kept by none.
 *
 * @remarks
 * `server` and `tool` ask for one ended tool call (a step with a call outcome and server) matching
 * both, looked up among the run's own calls by `steps_run_calls`. `titleContains` finds the text
 * ignoring the case of A to Z only, with LIKE on the lowered title and text, its `%`, `_` and `\`
 * escaped (so they are literal), which the pg_trgm index runs_title_trgm (schema version 14) reads.
 *
 * @internal
 */
export function runFilterConditions(query: NormalizedRunQuery, q: string, param: (value: unknown) => string): string[] {
  const where: string[] = ['pruned_at IS NULL'];
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
  if (query.server !== null || query.tool !== null) {
    const call = ['s.run_id = runs.id', 's.call_server IS NOT NULL', 's.call_outcome IS NOT NULL'];
    if (query.server !== null) call.push(`s.call_server = ${param(query.server)}::text`);
    if (query.tool !== null) call.push(`s.call_tool = ${param(query.tool)}::text`);
    where.push(`EXISTS (SELECT 1 FROM ${q}.steps s WHERE ${call.join(' AND ')})`);
  }
  if (query.titleContains !== null) {
    // the text lowered the same way, its LIKE wildcards and escape character escaped: a constant
    // pattern once bound, which runs_title_trgm answers (three characters or more)
    const text = `translate(${param(query.titleContains)}::text, ${ASCII_LOWER})`;
    const escaped = `replace(replace(replace(${text}, '\\', '\\\\'), '%', '\\%'), '_', '\\_')`;
    where.push(`${SEARCHED_TITLE} LIKE '%' || ${escaped} || '%'`);
  }
  return where;
}
