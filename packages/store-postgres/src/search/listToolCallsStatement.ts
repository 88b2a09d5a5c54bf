// One MCP server's ended tool calls, newest first: the statement of one page of
// SearchingRunStore.listToolCalls and how its rows read (trace's toolCallPageOf makes the page).
import type { ToolOutcome } from '@runledger/core';
import type { StoredToolCall } from '@runledger/trace';
import type { NormalizedToolCallQuery } from '@runledger/trace/store';
import type { Statement } from './listRunsStatement.js';
import { ms } from '../postgresRows.js';

/** A row of {@link listToolCallsStatement}. @internal */
export interface ToolCallRow {
  readonly run_id: string;
  readonly sequence: number;
  readonly server: string;
  readonly tool: string | null;
  /** steps.call_outcome: its CHECK constraint holds it to the three outcomes. */
  readonly outcome: ToolOutcome;
  readonly cause: string | null;
  /** The failed step's `toolFailureFacts` (json), or null. */
  readonly failure_facts: unknown;
  readonly duration_ms: number;
  readonly created_at: number;
}

/**
 * The SELECT of one page of a server's ended calls in schema `q` (quoted): the `tool` steps with a
 * call outcome counted under that server, newest first (created_at, run id, sequence, descending),
 * by keyset, one row past the page. It reads `steps_call_server` backwards from the cursor, one
 * server's entries only, already in page order; the outcome and time range filter those entries.
 * The steps of a run a prune hid are gone for readers.
 *
 * @internal
 */
export function listToolCallsStatement(query: NormalizedToolCallQuery, q: string): Statement {
  const values: unknown[] = [query.server];
  const param = (value: unknown): string => {
    values.push(value);
    return `$${values.length}`;
  };
  const where = ['s.call_server = $1::text', 's.call_outcome IS NOT NULL'];
  if (query.outcome !== null) where.push(`s.call_outcome = ${param(query.outcome)}::text`);
  // times are whole milliseconds: t >= x and t < x hold for the same rows as against ceil(x)
  if (query.since !== null) where.push(`s.created_at >= ${param(Math.ceil(query.since))}::bigint`);
  if (query.until !== null) where.push(`s.created_at < ${param(Math.ceil(query.until))}::bigint`);
  if (query.after !== null) {
    where.push(
      `(s.created_at, s.run_id, s.sequence) < (${param(ms(query.after.createdAt))}::bigint, ${param(query.after.runId)}::uuid, ${param(query.after.sequence)}::integer)`,
    );
  }
  where.push(`NOT EXISTS (SELECT 1 FROM ${q}.runs r WHERE r.id = s.run_id AND r.pruned_at IS NOT NULL)`);
  const sql = `SELECT s.run_id, s.sequence, s.call_server AS server, s.call_tool AS tool, s.call_outcome AS outcome,
      s.call_cause AS cause,
      CASE WHEN s.call_outcome = 'failed' THEN s.payload::json -> 'toolFailureFacts' END AS failure_facts,
      s.duration_ms, s.created_at
    FROM ${q}.steps s WHERE ${where.join(' AND ')}
    ORDER BY s.created_at DESC, s.run_id DESC, s.sequence DESC LIMIT ${query.limit + 1}`;
  return { sql, values };
}

/** A row as the call it lists. */
export function storedToolCallOfRow(row: ToolCallRow): StoredToolCall {
  return {
    runId: row.run_id,
    sequence: row.sequence,
    server: row.server,
    tool: row.tool,
    outcome: row.outcome,
    cause: row.cause,
    failureFacts: row.failure_facts as StoredToolCall['failureFacts'],
    durationMs: row.duration_ms,
    createdAt: row.created_at,
  };
}
