// The rows of the store's tables as better-sqlite3 returns them, and the values a caller sees.
import type { ToolOutcome } from '@runledger/core';
import { isRunStatus, isTerminalRunStatus, RunStatus, type StoredRun, type StoredStep } from '@runledger/trace';

export const RUN_COLUMNS =
  'id, status, configuration, actor, created_at, started_at, finished_at, termination_reason, cancel_requested_at, heartbeat_at, step_count, ok_count, failed_count, cancelled_count, unstored_steps, late_finish_status, late_finish_at';
export const STEP_COLUMNS = 'run_id, sequence, kind, round, duration_ms, created_at, payload, tool_server, tool_outcome';
/**
 * The run number a new run gets (its steps' rowids are (run number << 32) + sequence): one past the
 * last one handed out (`run_counter`, schema 15, moved on by a trigger on every insert into runs),
 * never one a pruned run had; from `first` on (tests start high).
 */
export function nextRunNo(first = 1): string {
  return `(SELECT max(coalesce(max(last_run_no), 0), ${first - 1}) + 1 FROM run_counter)`;
}
/**
 * A step's rowid from a bound run number and sequence, (run number << 32) + sequence, in INTEGER
 * arithmetic: better-sqlite3 binds a JS number as a REAL, and REAL + INTEGER is a REAL, which past
 * run number 2^21 leaves a double's 53 bits and rounds onto another step's rowid.
 */
export const STEP_ROWID = '((? << 32) + CAST(? AS INTEGER))';
/** A step's rowid read back as its run number and sequence (past run number 2^21 the rowid itself is no exact JS number). */
export const ROWID_PARTS = 'id >> 32, id & 4294967295';
export const READ_STEP_COLUMNS = 'sequence, kind, round, duration_ms, created_at, payload, tool_server, tool_outcome';
export type StepRow = [number, unknown, unknown, unknown, unknown, unknown, unknown, unknown];

export interface RunRow {
  id: string;
  status: string;
  configuration: string;
  actor: string | null;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
  termination_reason: string | null;
  cancel_requested_at: number | null;
  heartbeat_at: number | null;
  step_count: number;
  ok_count: number;
  failed_count: number;
  cancelled_count: number;
  unstored_steps: number;
  late_finish_status: string | null;
  late_finish_at: number | null;
}

export interface StepColumns {
  readonly kind: string;
  readonly round: number;
  readonly durationMs: number;
  readonly createdAt: number;
  readonly toolServer: string | null;
  readonly toolOutcome: ToolOutcome | null;
}

export function toStoredRun(row: RunRow): StoredRun {
  return {
    id: row.id,
    status: isRunStatus(row.status) ? row.status : RunStatus.INTERRUPTED,
    configuration: row.configuration,
    actor: row.actor,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    terminationReason: row.termination_reason,
    cancelRequestedAt: row.cancel_requested_at,
    heartbeatAt: row.heartbeat_at,
    stepCount: row.step_count,
    outcomeCounts: { ok: row.ok_count, failed: row.failed_count, cancelled: row.cancelled_count },
    unstoredSteps: row.unstored_steps,
    ...(isTerminalRunStatus(row.late_finish_status) ? { lateFinishStatus: row.late_finish_status, lateFinishAt: row.late_finish_at } : {}),
  };
}

/**
 * A row as {@link StoredStep}; damaged values read safely (a BLOB payload as its UTF-8 text, an
 * unknown outcome as null).
 *
 * The few distinct kinds, servers and outcomes of a run are shared between its steps (`shared`
 * holds one copy of each): the driver makes a fresh string per row, and a timeline of 10 000 steps
 * would otherwise keep 30 000 of them alive — work for every young-generation collection while
 * the steps are in use.
 */
export function toStoredStep(runId: string, row: StepRow, shared: Map<string, string>): StoredStep {
  const [sequence, kind, round, durationMs, createdAt, payload, toolServer, toolOutcome] = row;
  return {
    runId,
    sequence,
    kind: typeof kind === 'string' ? share(kind, shared) : String(kind),
    round: typeof round === 'number' ? round : Number(round),
    durationMs: typeof durationMs === 'number' ? durationMs : Number(durationMs),
    createdAt: typeof createdAt === 'number' ? createdAt : Number(createdAt),
    payload: typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : String(payload),
    toolServer: typeof toolServer === 'string' ? share(toolServer, shared) : null,
    toolOutcome: toolOutcome === 'ok' ? 'ok' : toolOutcome === 'failed' ? 'failed' : toolOutcome === 'cancelled' ? 'cancelled' : null,
  };
}

export const MAX_SHARED = 1024;

export function share(text: string, shared: Map<string, string>): string {
  if (text.length > 64) return text;
  const known = shared.get(text);
  if (known !== undefined) return known;
  if (shared.size < MAX_SHARED) shared.set(text, text);
  return text;
}
