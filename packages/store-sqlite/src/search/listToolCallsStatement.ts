// One server's ended tool calls: the statement of one page of SearchingRunStore.listToolCalls
// (trace's toolCallPageOf makes the page of its rows).
import { TOOL_OUTCOMES } from '@runledger/core';
import type { NormalizedToolCallQuery } from '@runledger/trace/store';
import { CALL_TOOL_NAME } from '../sqliteRows.js';

const CALL_COLUMNS = `run_id AS runId, sequence, call_server AS server, ${CALL_TOOL_NAME} AS tool, call_outcome AS outcome,
  call_cause AS cause,
  CASE WHEN call_outcome = 'failed' AND json_valid(payload) THEN json_extract(payload, '$.toolFailureFacts') END AS failureFacts,
  duration_ms AS durationMs, created_at AS createdAt`;

/**
 * The SELECT of one page of a server's ended calls (its `tool` steps with an outcome), newest first
 * by (created_at, run_id, sequence), keyset-paged; one row past the page tells whether there is a
 * next one. Rows are StoredToolCall. Calls of runs a prune has hidden (SqlitePrune: the run's row
 * is deleted first, its steps in chunks after) are not listed, as no reader sees those runs.
 *
 * @remarks
 * Each outcome's calls of a server are one range of steps_server_calls (schema 18) in page order:
 * a page of one outcome reads that range, a page of every outcome merges the three ranges (UNION
 * ALL with the ORDER BY of the index: SQLite merges them as it reads, and stops at the limit).
 *
 * @internal
 */
export function listToolCallsStatement(q: NormalizedToolCallQuery): { readonly sql: string; readonly params: readonly unknown[] } {
  const params: unknown[] = [];
  const arm = (outcome: string): string => {
    // a run a prune hid (its row gone, its steps going in chunks) shows none of its calls
    const where = ['call_server = ?', 'call_outcome = ?', 'EXISTS (SELECT 1 FROM runs WHERE runs.run_no = steps.id >> 32)'];
    params.push(q.server, outcome);
    if (q.since !== null) {
      where.push('created_at >= ?');
      params.push(q.since);
    }
    // past the first page the cursor bounds the range from above (it is below `until`): said
    // twice, SQLite would take `until` as the bound and read the pages before again
    if (q.until !== null && (q.after === null || q.after.createdAt >= q.until)) {
      where.push('created_at < ?');
      params.push(q.until);
    }
    if (q.after !== null) {
      where.push('(created_at, run_id, sequence) < (?, ?, ?)');
      params.push(q.after.createdAt, q.after.runId, q.after.sequence);
    }
    return `SELECT ${CALL_COLUMNS} FROM steps WHERE ${where.join(' AND ')}`;
  };
  const arms = (q.outcome === null ? TOOL_OUTCOMES : [q.outcome]).map(arm);
  params.push(q.limit + 1);
  return { sql: `${arms.join('\nUNION ALL\n')}\nORDER BY createdAt DESC, runId DESC, sequence DESC LIMIT ?`, params };
}
