// The rows of the store's tables as the pg driver returns them, and the values a caller sees.
import { isTerminalRunStatus, type RunStatus, type StoredRun, type StoredStep } from '@runledger/trace';

export const RUN_COLUMNS =
  'id, status, configuration, actor, created_at, started_at, finished_at, termination_reason, cancel_requested_at, heartbeat_at, next_sequence, ok_count, failed_count, cancelled_count, unstored_steps, late_finish_status, late_finish_at';
export const STEP_COLUMNS = 'run_id, sequence, kind, round, duration_ms, created_at, payload, tool_server, tool_outcome';

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
  next_sequence: number;
  ok_count: number;
  failed_count: number;
  cancelled_count: number;
  unstored_steps: number;
  late_finish_status: string | null;
  late_finish_at: number | null;
}

export interface StepRow {
  run_id: string;
  sequence: number;
  kind: string;
  round: number;
  duration_ms: number;
  created_at: number;
  payload: string;
  tool_server: string | null;
  tool_outcome: string | null;
}

/** Times are kept in whole milliseconds. */
export function ms(value: number): number {
  return Math.floor(value);
}

export function msOrNull(value: number | null | undefined): number | null {
  return value === null || value === undefined ? null : ms(value);
}

export function toStoredRun(row: RunRow): StoredRun {
  return Object.freeze({
    id: row.id,
    status: row.status as RunStatus,
    configuration: row.configuration,
    actor: row.actor,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    terminationReason: row.termination_reason,
    cancelRequestedAt: row.cancel_requested_at,
    heartbeatAt: row.heartbeat_at,
    stepCount: row.next_sequence,
    outcomeCounts: Object.freeze({ ok: row.ok_count, failed: row.failed_count, cancelled: row.cancelled_count }),
    unstoredSteps: row.unstored_steps,
    ...(isTerminalRunStatus(row.late_finish_status) ? { lateFinishStatus: row.late_finish_status, lateFinishAt: row.late_finish_at } : {}),
  });
}

export function toStoredStep(row: StepRow): StoredStep {
  const outcome = row.tool_outcome;
  return Object.freeze({
    runId: row.run_id,
    sequence: row.sequence,
    kind: row.kind,
    round: row.round,
    durationMs: row.duration_ms,
    createdAt: row.created_at,
    payload: row.payload,
    toolServer: row.tool_server,
    toolOutcome: outcome === 'ok' || outcome === 'failed' || outcome === 'cancelled' ? outcome : null,
  });
}
