// The columns of the store's tables; their rows read back through trace's storedRunOfRow and
// storedStepReader (@runledger/trace/store), as every SQL store's do.
import type { ToolOutcome } from '@runledger/core';

export const RUN_COLUMNS =
  'id, status, configuration, actor, title, created_at, started_at, finished_at, termination_reason, termination_kind, termination_facts, cancel_requested_at, heartbeat_at, step_count, ok_count, failed_count, cancelled_count, unstored_steps, late_finish_status, late_finish_at, tokens, cancel_from, cancel_by, cancel_reason';
export const STEP_COLUMNS = 'run_id, sequence, kind, round, duration_ms, created_at, payload, tool_server, tool_outcome';
/**
 * The run number a new run gets (its steps' rowids are (run number << 32) + sequence): one past the
 * last one handed out (`run_counter`, schema 15, moved on by a trigger on every insert into runs),
 * never one a pruned run had (tests start high by moving the counter).
 */
export const NEXT_RUN_NO = '(SELECT coalesce(max(last_run_no), 0) + 1 FROM run_counter)';
/**
 * A step's rowid from a bound run number and sequence, (run number << 32) + sequence, in INTEGER
 * arithmetic: better-sqlite3 binds a JS number as a REAL, and REAL + INTEGER is a REAL, which past
 * run number 2^21 leaves a double's 53 bits and rounds onto another step's rowid.
 */
export const STEP_ROWID = '((? << 32) + CAST(? AS INTEGER))';
/** A step's rowid read back as its run number and sequence (past run number 2^21 the rowid itself is no exact JS number). */
export const ROWID_PARTS = 'id >> 32, id & 4294967295';
/**
 * A step's tool name, its payload's `toolName` when that is a string, else null: the expression of
 * the index steps_call_tools (schema 18), which a query uses only when it says the same.
 */
export const CALL_TOOL_NAME =
  "(CASE WHEN json_valid(payload) THEN CASE json_type(payload, '$.toolName') WHEN 'text' THEN json_extract(payload, '$.toolName') END END)";
export const READ_STEP_COLUMNS = 'sequence, kind, round, duration_ms, created_at, payload, tool_server, tool_outcome';

export interface StepColumns {
  readonly kind: string;
  readonly round: number;
  readonly durationMs: number;
  readonly createdAt: number;
  readonly toolServer: string | null;
  readonly toolOutcome: ToolOutcome | null;
}
