// The run ledger of a SqliteRunStore (the sibling of store-postgres's PostgresLedger): a run's
// life from createRun to its end — appends, cancel, heartbeats, recovery — and the reads of one run.
import {
  checkAppendStep,
  checkCreateRun,
  checkFinishRun,
  checkHeartbeatAt,
  checkRequestCancelAt,
  checkRunId,
  checkStaleBefore,
  checkStepQuery,
  duplicateRunIdError,
  type NormalizedAppendStep,
  storedRunOfRow,
  type StoredRunRow,
  storedStepReader,
  type StoredStepRow,
} from '@runledger/trace/store';
import {
  type OpenCallsRead,
  RunTerminationKind,
  type AppendStepInput,
  type CancelRequestInput,
  checkCancelRequest,
  type CreateRunInput,
  type FinishRunInput,
  RunStatus,
  RunStoreError,
  type StepQuery,
  type StoredRun,
  type StoredStep,
} from '@runledger/trace';
import type Database from 'better-sqlite3';
import type { WriteStep } from '../import/importRun.js';
import type { SqliteAccess } from '../SqliteAccess.js';
import { SqliteCancelWatch } from '../SqliteCancelWatch.js';
import type { SqliteHealthPending } from '../health/SqliteHealthPending.js';
import type { SqliteOpenCalls } from '../SqliteOpenCalls.js';
import { NEXT_RUN_NO, READ_STEP_COLUMNS, RUN_COLUMNS, STEP_ROWID } from '../sqliteRows.js';
import type { WriteQueue } from '../WriteQueue.js';
import { prepareAppendStatement } from './appendStatement.js';

/** What the ledger writes through besides the database (the health rollup's pending calls, the open calls), and how. */
export interface SqliteLedgerParts {
  readonly pending: SqliteHealthPending;
  readonly openCalls: SqliteOpenCalls;
  /** Group commit: appends share the write queue's batch transaction, each in its savepoint. */
  readonly groupCommit: boolean;
  /** How often a watch looks for a cancel requested by another process, in ms. */
  readonly cancelPollMs: number;
}

/**
 * The run-ledger methods of a SqliteRunStore: each write one `BEGIN IMMEDIATE` transaction of the
 * write queue (appends grouped into one commit), each read in the queue's order.
 *
 * @internal
 */
export class SqliteLedger {
  readonly #access: SqliteAccess;
  readonly #db: Database.Database;
  readonly #writes: WriteQueue;
  readonly #append: (runId: string, step: NormalizedAppendStep) => number;
  readonly #pending: SqliteHealthPending;
  readonly #openCalls: SqliteOpenCalls;
  readonly #cancels: SqliteCancelWatch;
  /** The step writer appends use, for importRun's transaction. */
  readonly writeStep: WriteStep;

  constructor(access: SqliteAccess, parts: SqliteLedgerParts) {
    this.#access = access;
    this.#db = access.db;
    this.#writes = access.writes;
    this.#pending = parts.pending;
    this.#openCalls = parts.openCalls;
    const { append, writeStep } = prepareAppendStatement(access.db, parts.pending, parts.openCalls);
    // grouped, the batch's transaction (SqliteGroupCommit) gives each append its savepoint
    this.#append = parts.groupCommit ? append : access.db.transaction(append).immediate;
    this.writeStep = writeStep;
    // a late cancel (requested after the run finished) is no cancel to act on
    const cancelRequested = access.db
      .prepare("SELECT cancel_requested_at FROM runs WHERE id = ? AND status IN ('running', 'cancelled')")
      .pluck();
    this.#cancels = new SqliteCancelWatch({
      pollMs: parts.cancelPollMs,
      requested: (runId) => (cancelRequested.get(runId) ?? null) !== null,
    });
  }

  /** Creates a run with status `running`; checks the input with `checkCreateRun`. */
  async createRun(input: CreateRunInput): Promise<StoredRun> {
    const run = checkCreateRun(input, Date.now());
    return this.#write(() => {
      try {
        this.#stmt(
          `INSERT INTO runs (id, status, configuration, actor, title, created_at, started_at, run_no) VALUES (?, 'running', ?, ?, ?, ?, ?, ${NEXT_RUN_NO})`,
        ).run(run.id, run.configuration, run.actor, run.title, run.createdAt, run.createdAt);
      } catch (error) {
        if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
          throw duplicateRunIdError(run.id);
        }
        throw error;
      }
      return this.#requireRun(run.id);
    });
  }

  /**
   * Appends a step with the run's next sequence (step row, run counters, health rollup) and
   * resolves once it is committed and fsynced: with group commit (the default) in the one
   * `BEGIN IMMEDIATE` transaction it shares with the appends that arrived in the same turn of the
   * event loop, in its own savepoint; with `groupCommit: false` in a transaction of its own.
   */
  async appendStep(runId: string, step: AppendStepInput): Promise<number> {
    const input = checkAppendStep(step);
    const key = runKey(runId);
    this.#assertOpen();
    const appended = this.#writes.group(() => this.#append(key, input), input.payloadText.length, key);
    this.#pending.due();
    return appended;
  }

  /** Ends a running run; a run that ended already keeps how it ended (a late finish is kept beside it: see RunStore.finishRun). */
  async finishRun(runId: string, finish: FinishRunInput): Promise<StoredRun> {
    const input = checkFinishRun(finish, Date.now());
    const { termination: given, cancelledTermination: cancelled } = input;
    const key = runKey(runId);
    return this.#write(() =>
      this.#db
        .transaction(() => {
          // The cancel and the finish are decided here, in one transaction: a cancel requested while
          // the run was running makes it end cancelled, whatever the finish asked for.
          const ended = this.#stmt(
            `UPDATE runs SET
             status = CASE WHEN cancel_requested_at IS NULL THEN ? ELSE 'cancelled' END,
             finished_at = ?,
             termination_kind = CASE WHEN cancel_requested_at IS NULL THEN ? ELSE ? END,
             termination_facts = CASE WHEN cancel_requested_at IS NULL THEN ? ELSE ? END,
             termination_reason = CASE WHEN cancel_requested_at IS NULL THEN ? ELSE ? END,
             unstored_steps = unstored_steps + ?
           WHERE id = ? AND status = 'running'`,
          ).run(
            input.status,
            input.finishedAt,
            given.termination_kind,
            cancelled.termination_kind,
            given.termination_facts,
            cancelled.termination_facts,
            given.termination_reason,
            cancelled.termination_reason,
            input.unstoredSteps,
            key,
          );
          if (ended.changes === 0) {
            // Ended already: how it ended stays. The finish that ended it, again, changes nothing;
            // any other is late — its unstored steps count, and the first late one is kept.
            this.#stmt(
              `UPDATE runs SET
               unstored_steps = unstored_steps + ?,
               late_finish_status = coalesce(late_finish_status, ?),
               late_finish_at = CASE WHEN late_finish_status IS NULL THEN ? ELSE late_finish_at END
             WHERE id = ? AND status <> 'running'
               AND NOT (finished_at IS ? AND (status = ? OR (status = 'cancelled' AND termination_kind IS ? AND termination_facts IS ? AND termination_reason IS ?)))
               AND NOT (late_finish_status IS ? AND late_finish_at IS ?)`,
            ).run(
              input.unstoredSteps,
              input.status,
              input.finishedAt,
              key,
              input.finishedAt,
              input.status,
              cancelled.termination_kind,
              cancelled.termination_facts,
              cancelled.termination_reason,
              input.status,
              input.finishedAt,
            );
          }
          return this.#requireRun(key);
        })
        .immediate(),
    );
  }

  /** Marks a running run's cancel request (the first time is kept); watchers in this process fire at once, others at their next poll. */
  async requestCancel(runId: string, at?: number, request?: CancelRequestInput): Promise<StoredRun> {
    const when = checkRequestCancelAt(at, Date.now());
    const asked = checkCancelRequest(request);
    const key = runKey(runId);
    const run = await this.#write(() =>
      this.#db
        .transaction(() => {
          // on a finished run the request is kept as a late one (isLateCancel); the first one wins, with who asked
          this.#stmt(
            `UPDATE runs SET cancel_requested_at = ?, cancel_from = ?, cancel_by = ?, cancel_reason = ?
             WHERE id = ? AND cancel_requested_at IS NULL`,
          ).run(when, asked?.from ?? null, asked?.by ?? null, asked?.reason ?? null, key);
          return this.#requireRun(key);
        })
        .immediate(),
    );
    if (run.cancelRequestedAt !== null && run.status === RunStatus.RUNNING) this.#cancels.fire(key);
    return run;
  }

  /** Records a sign of life of a running run (never moves back in time); unknown or finished runs are left alone. */
  async heartbeat(runId: string, at?: number): Promise<void> {
    const when = checkHeartbeatAt(at, Date.now());
    const key = runKey(runId);
    await this.#write(() =>
      this.#stmt(`UPDATE runs SET heartbeat_at = max(coalesce(heartbeat_at, 0), ?) WHERE id = ? AND status = 'running'`).run(when, key),
    );
  }

  /** Marks `interrupted` every running run whose last sign of life (heartbeat, else start) is before `staleBefore`; returns their ids. */
  async recoverInterrupted(staleBefore: number): Promise<readonly string[]> {
    const stale = checkStaleBefore(staleBefore);
    const now = Date.now();
    return this.#write(
      () =>
        this.#stmt(
          `UPDATE runs SET status = CASE WHEN cancel_requested_at IS NULL THEN 'interrupted' ELSE 'cancelled' END,
           finished_at = max(?, coalesce(heartbeat_at, started_at, created_at)),
           termination_kind = ?,
           termination_facts = json_object('since', coalesce(heartbeat_at, started_at, created_at),
             'cancelRequested', json(CASE WHEN cancel_requested_at IS NULL THEN 'false' ELSE 'true' END)),
           termination_reason = NULL
         WHERE status = 'running' AND coalesce(heartbeat_at, started_at, created_at) < ? RETURNING id`,
        )
          .pluck()
          .all(now, RunTerminationKind.NO_SIGN_OF_LIFE, stale) as string[],
    );
  }

  /** One run, or null. */
  async getRun(runId: string): Promise<StoredRun | null> {
    return this.#read(() => this.#getRun(runKey(runId)));
  }

  /** A run's steps in sequence order: one range of the steps table, whose rowids are (run number << 32) + sequence. */
  async readSteps(runId: string, query?: StepQuery): Promise<readonly StoredStep[]> {
    const q = checkStepQuery(query);
    const from = q.fromSequence;
    const limit = q.limit ?? -1;
    const key = runKey(runId);
    return this.#read(() => {
      const runNo = this.#stmt('SELECT run_no FROM runs WHERE id = ?').pluck().get(key) as number | undefined;
      if (runNo === undefined) return [];
      const rows = this.#stmt(
        `SELECT ${READ_STEP_COLUMNS} FROM steps WHERE id >= ${STEP_ROWID} AND id < ((? + 1) << 32) ORDER BY id LIMIT ?`,
      ).all(runNo, from, runNo, limit) as StoredStepRow[];
      return rows.map(storedStepReader(key));
    });
  }

  /** The calls on the wire of a run and the step count they were read at, in one read transaction; costs the open calls, not the run. */
  async readOpenCalls(runId: string): Promise<OpenCallsRead | null> {
    const key = runKey(runId);
    return this.#read(() =>
      this.#db
        .transaction((): OpenCallsRead | null => {
          const run = this.#stmt('SELECT run_no, step_count FROM runs WHERE id = ?', true).get(key) as [number, number] | undefined;
          if (run === undefined) return null;
          return { ...this.#openCalls.read(run[0], key), readTo: run[1] };
        })
        .deferred(),
    );
  }

  /** Calls `onCancel` once when a cancel is requested for the run, here (at once) or by another process (polled every `cancelPollMs`, on an unref'd timer). */
  watchCancel(runId: string, onCancel: () => void): () => void {
    return this.#cancels.watch(runKey(runId), onCancel);
  }

  /** Stops the cancel polling. */
  close(): void {
    this.#cancels.close();
  }

  // --- internals -------------------------------------------------------------------------------

  #stmt(sql: string, raw = false): Database.Statement {
    return this.#access.stmt(sql, raw);
  }

  #getRun(id: string): StoredRun | null {
    const row = this.#stmt(`SELECT ${RUN_COLUMNS} FROM runs WHERE id = ?`).get(id) as StoredRunRow | undefined;
    return row === undefined ? null : storedRunOfRow(row);
  }

  #requireRun(id: string): StoredRun {
    const run = this.#getRun(id);
    if (run === null) throw RunStoreError.runNotFound(id);
    return run;
  }

  #assertOpen(): void {
    this.#access.assertOpen();
  }

  #write<T>(fn: () => T): Promise<T> {
    return this.#access.write(fn);
  }

  #read<T>(fn: () => T): Promise<T> {
    return this.#access.read(fn);
  }
}

// --- helpers -----------------------------------------------------------------------------------

/** The key of a run id: the id checked (lower case), or, for a string that is not a UUID, the string itself. */
export function runKey(runId: string): string {
  // a string that is not a UUID is no run's key: looked up as it is, it finds nothing
  return checkRunId(runId) ?? runId;
}
