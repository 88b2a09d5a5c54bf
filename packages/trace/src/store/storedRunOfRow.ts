// A run read back from a SQL store's row: every SQL store names its runs' columns alike and maps
// them through this one function, so a damaged row reads the same way from every store.
import type { StoredRun } from '@runledger/trace';
import { isRunStatus, isTerminalRunStatus, RunStatus } from '../step/RunStatus.js';
import { terminationOfColumns, terminationTextOfColumns } from './storedTermination.js';
import { type CancelRequestColumns, cancelRequestField } from './CancelRequestColumns.js';

/**
 * A run's row as a SQL store reads it: the columns every store's `runs` table names alike.
 *
 * @public
 */
export interface StoredRunRow extends CancelRequestColumns {
  readonly id: string;
  readonly status: string;
  readonly configuration: string;
  readonly actor: string | null;
  /** Absent from a store whose schema has no title column: read as null. */
  readonly title?: string | null;
  readonly created_at: number;
  readonly started_at: number | null;
  readonly finished_at: number | null;
  /** The prose an older version stored, where the kind's sentence is not the same words (see `TerminationColumns`). */
  readonly termination_reason: string | null;
  /** The termination's kind; absent from a store whose schema keeps only the prose. */
  readonly termination_kind?: string | null;
  /** The termination's facts as JSON text; absent with the kind. */
  readonly termination_facts?: string | null;
  readonly cancel_requested_at: number | null;
  readonly heartbeat_at: number | null;
  readonly step_count: number;
  readonly ok_count: number;
  readonly failed_count: number;
  readonly cancelled_count: number;
  /** Absent from a store whose schema does not count tokens: read as 0. */
  readonly tokens?: number;
  readonly unstored_steps: number;
  readonly late_finish_status: string | null;
  readonly late_finish_at: number | null;
}

/**
 * A run's row as the frozen {@link StoredRun} a caller sees.
 *
 * @remarks
 * The row is read, never cast: a status no runledger writes (a damaged row) reads as `interrupted`
 * (the run ended, nobody can tell how), and a late final status that is not a terminal status
 * reads as none.
 *
 * @public
 */
export function storedRunOfRow(row: StoredRunRow): StoredRun {
  return Object.freeze({
    id: row.id,
    status: isRunStatus(row.status) ? row.status : RunStatus.INTERRUPTED,
    configuration: row.configuration,
    actor: row.actor,
    title: row.title ?? null,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    terminationReason: terminationTextOfColumns(row),
    termination: terminationOfColumns(row),
    cancelRequestedAt: row.cancel_requested_at,
    ...cancelRequestField(row),
    heartbeatAt: row.heartbeat_at,
    stepCount: row.step_count,
    outcomeCounts: Object.freeze({ ok: row.ok_count, failed: row.failed_count, cancelled: row.cancelled_count }),
    tokens: row.tokens ?? 0,
    unstoredSteps: row.unstored_steps,
    ...(isTerminalRunStatus(row.late_finish_status) ? { lateFinishStatus: row.late_finish_status, lateFinishAt: row.late_finish_at } : {}),
  });
}
