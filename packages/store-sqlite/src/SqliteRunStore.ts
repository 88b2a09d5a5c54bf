import {
  type AppendStepInput,
  checkAppendStep,
  checkCreateRun,
  checkFinishRun,
  checkHealthQuery,
  checkHeartbeatAt,
  checkImportRun,
  checkRequestCancelAt,
  checkRunId,
  checkRunIdPrefix,
  checkRunQuery,
  checkRunTotalsQuery,
  checkStaleBefore,
  checkStepQuery,
  checkToolCallQuery,
  type CreateRunInput,
  duplicateRunIdError,
  type FinishRunInput,
  type NormalizedAppendStep,
  type OpenCallsRead,
  type OpenCallsRunStore,
  type PruneRunsQuery,
  type PruneRunsResult,
  type PruningRunStore,
  type RunPage,
  RunTerminationReason,
  type RunQuery,
  RunStatus,
  type RunTotals,
  type RunTotalsQuery,
  type SearchingRunStore,
  RunStoreError,
  type ServerHealth,
  type ServerHealthQuery,
  type StepQuery,
  type StoredRun,
  storedRunOfRow,
  type StoredRunRow,
  type StoredStep,
  storedStepReader,
  type StoredStepRow,
  type ToolCallPage,
  type ToolCallQuery,
} from '@runledger/trace/store';
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { retryBusy } from './busyRetry.js';
import { SqliteCancelWatch } from './SqliteCancelWatch.js';
import { WriteQueue } from './WriteQueue.js';
import { SqliteGroupCommit } from './SqliteGroupCommit.js';
import { SqliteRunSearch } from './search/SqliteRunSearch.js';
import { migrateSchema } from './schema/migrateSchema.js';
import { messageOf, storageFailure } from './storageFailure.js';
import { NEXT_RUN_NO, READ_STEP_COLUMNS, RUN_COLUMNS, STEP_ROWID } from './sqliteRows.js';
import { SqliteHealthReader } from './health/SqliteHealthReader.js';
import { SqliteHealthWriter } from './health/SqliteHealthWriter.js';
import { SqliteHealthPending } from './health/SqliteHealthPending.js';
import { SqlitePrune } from './prune/SqlitePrune.js';
import { prepareImportRun } from './import/importRun.js';
import { prepareAppendStatement } from './ledger/appendStatement.js';
import { SqliteOpenCalls } from './SqliteOpenCalls.js';
import { readSchemaVersion } from './schema/readSchemaVersion.js';
import { SQLITE_SCHEMA_VERSION } from './schema/SqliteMigrations.js';
import { registerStoreInternals } from './SqliteRunStoreInternals.js';
import type { SqliteRunStoreOptions } from './SqliteRunStoreOptions.js';

const DEFAULT_BUSY_TIMEOUT_MS = 5000;
const DEFAULT_CANCEL_POLL_MS = 250;
/**
 * The driver's own busy wait: none. SQLite's busy handler sleeps 1, 2, 5, 10 … 100 ms between tries
 * (blocking the event loop), so a waiter misses the short gaps between another process's
 * transactions; the store polls in JS instead (busyRetry.ts, every ms), on a timer.
 */
const DRIVER_BUSY_TIMEOUT_MS = 0;

/**
 * The embedded run store: one SQLite file in WAL mode, safe for several processes at once.
 *
 * @remarks
 * Every write is a `BEGIN IMMEDIATE` transaction committed with `synchronous = FULL` — the appends
 * of one turn of the event loop share one (group commit, see {@link SqliteRunStoreOptions.groupCommit}) —
 * so a step is on disk — surviving a killed process and a power cut — when `appendStep` resolves, and
 * sequence numbers are assigned under the write lock (gap-free and unique with any number of
 * writing processes). A writer that finds the file locked tries again every ms (with back-off
 * after a quarter of a second) up to `busyTimeoutMs`, so it takes the lock within about a ms of its release; `SQLITE_BUSY` never reaches the caller. Server health reads a rollup (counts,
 * last failure and a log-scale duration histogram per server and 1 min, 10 min, 1 h, 6 h, 1 day and 32 days, in trace's shared layout):
 * an append notes its call as pending in its own transaction, and the store moves the pending
 * calls into the rollup every few thousand calls (and on close); a health read counts the
 * pending ones too, in the same snapshot, so every call counts once. Windows of up to 2000 calls
 * are computed exactly from the steps, larger ones from the histogram (percentiles within about 9.05 %).
 * Migrations are numbered and forward-only and run on open.
 *
 * @public
 */
export class SqliteRunStore implements PruningRunStore, OpenCallsRunStore, SearchingRunStore {
  readonly #db: Database.Database;
  readonly #path: string;
  readonly #pending: SqliteHealthPending;
  readonly #health: SqliteHealthReader;
  readonly #openCalls: SqliteOpenCalls;
  readonly #statements = new Map<string, Database.Statement>();
  readonly #search = new SqliteRunSearch((sql) => this.#stmt(sql));
  readonly #cancels: SqliteCancelWatch;
  readonly #writes: WriteQueue;
  #closed = false;
  #prune: SqlitePrune | undefined;

  readonly #append: (runId: string, step: NormalizedAppendStep) => number;
  readonly #import: (run: StoredRun, steps: readonly StoredStep[]) => boolean;

  private constructor(db: Database.Database, options: SqliteRunStoreOptions) {
    this.#db = db;
    this.#path = options.path;
    const grouped = options.groupCommit ?? true;
    this.#writes = new WriteQueue(options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS, grouped ? new SqliteGroupCommit(db) : undefined);
    // a late cancel (requested after the run finished) is no cancel to act on
    const cancelRequested = db.prepare("SELECT cancel_requested_at FROM runs WHERE id = ? AND status IN ('running', 'cancelled')").pluck();
    this.#cancels = new SqliteCancelWatch({
      pollMs: options.cancelPollMs ?? DEFAULT_CANCEL_POLL_MS,
      requested: (runId) => (cancelRequested.get(runId) ?? null) !== null,
    });
    this.#pending = new SqliteHealthPending(db, new SqliteHealthWriter(db), {
      write: (roll) => this.#writes.write(() => db.transaction(roll).immediate()),
    });
    this.#health = new SqliteHealthReader(db, this.#pending);

    this.#openCalls = new SqliteOpenCalls(db);
    const { append, writeStep } = prepareAppendStatement(db, this.#pending, this.#openCalls);
    // grouped, the batch's transaction (SqliteGroupCommit) gives each append its savepoint
    this.#append = grouped ? append : db.transaction(append).immediate;

    this.#import = prepareImportRun(db, writeStep);
    registerStoreInternals(this, { pending: this.#pending, health: this.#health });
  }

  /**
   * Opens (or creates) a store file, switches it to WAL and applies pending migrations.
   *
   * @throws RunStoreError `schema_too_new` when the file was written by a newer runledger;
   *   `storage_failure` when it cannot be opened (not a database, no permission, locked too long);
   *   `invalid_input` for bad options.
   */
  static async open(options: SqliteRunStoreOptions): Promise<SqliteRunStore> {
    if (typeof options?.path !== 'string' || options.path === '') {
      throw RunStoreError.invalidInput('SqliteRunStoreOptions.path must be a non-empty file path');
    }
    if (options.groupCommit !== undefined && typeof options.groupCommit !== 'boolean') {
      throw RunStoreError.invalidInput(`SqliteRunStoreOptions.groupCommit must be true or false, got ${String(options.groupCommit)}`);
    }
    for (const key of ['busyTimeoutMs', 'cancelPollMs'] as const) {
      const value = options[key];
      if (value !== undefined && !(Number.isFinite(value) && value > 0)) {
        throw RunStoreError.invalidInput(`SqliteRunStoreOptions.${key} must be a positive number of ms, got ${String(value)}`);
      }
    }
    const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
    let db: Database.Database;
    try {
      db = new Database(options.path, { timeout: DRIVER_BUSY_TIMEOUT_MS });
    } catch (error) {
      throw RunStoreError.storageFailure(`cannot open the SQLite file ${options.path}: ${messageOf(error)}`, error);
    }
    try {
      await retryBusy(() => db.pragma('journal_mode = WAL'), busyTimeoutMs);
      // FULL: in WAL mode the WAL is fsynced at every commit, so a resolved append survives a
      // power cut, not only a killed process (NORMAL would only promise the latter).
      db.pragma('synchronous = FULL');
      // 4 MiB of page cache per store: appends touch only the right edge of each b-tree and health
      // reads a few thousand rollup rows, so more buys little and costs every process memory.
      db.pragma('cache_size = -4096');
      await migrateSchema(db, busyTimeoutMs);
      return new SqliteRunStore(db, options);
    } catch (error) {
      db.close();
      throw RunStoreError.is(error) ? error : storageFailure(`cannot open the SQLite file ${options.path}`, error, busyTimeoutMs);
    }
  }

  /** The schema version this store creates and upgrades files to. */
  static readonly SCHEMA_VERSION: number = SQLITE_SCHEMA_VERSION;

  /**
   * Reads the schema version of a SQLite file without creating or changing it: null when there
   * is no file, 0 for a file without runledger's tables.
   *
   * @throws RunStoreError (`storage_failure`) from `SqliteRunStore.schemaVersionOf` when the file
   * cannot be opened or read.
   */
  static async schemaVersionOf(path: string): Promise<number | null> {
    return readSchemaVersion(path);
  }

  /** The file this store writes. */
  get path(): string {
    return this.#path;
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
             termination_reason = CASE WHEN cancel_requested_at IS NULL THEN ? ELSE ? END,
             unstored_steps = unstored_steps + ?
           WHERE id = ? AND status = 'running'`,
          ).run(input.status, input.finishedAt, input.terminationReason, input.cancelledTerminationReason, input.unstoredSteps, key);
          if (ended.changes === 0) {
            // Ended already: how it ended stays. The finish that ended it, again, changes nothing;
            // any other is late — its unstored steps count, and the first late one is kept.
            this.#stmt(
              `UPDATE runs SET
               unstored_steps = unstored_steps + ?,
               late_finish_status = coalesce(late_finish_status, ?),
               late_finish_at = CASE WHEN late_finish_status IS NULL THEN ? ELSE late_finish_at END
             WHERE id = ? AND status <> 'running'
               AND NOT (finished_at IS ? AND (status = ? OR (status = 'cancelled' AND termination_reason IS ?)))
               AND NOT (late_finish_status IS ? AND late_finish_at IS ?)`,
            ).run(
              input.unstoredSteps,
              input.status,
              input.finishedAt,
              key,
              input.finishedAt,
              input.status,
              input.cancelledTerminationReason,
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
  async requestCancel(runId: string, at?: number): Promise<StoredRun> {
    const when = checkRequestCancelAt(at, Date.now());
    const key = runKey(runId);
    const run = await this.#write(() =>
      this.#db
        .transaction(() => {
          // on a finished run the request is kept as a late one (isLateCancel)
          this.#stmt(`UPDATE runs SET cancel_requested_at = coalesce(cancel_requested_at, ?) WHERE id = ?`).run(when, key);
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
           termination_reason = CASE WHEN cancel_requested_at IS NULL THEN '' ELSE ? END || ? ||
             strftime('%Y-%m-%dT%H:%M:%fZ', coalesce(heartbeat_at, started_at, created_at) / 1000.0, 'unixepoch')
         WHERE status = 'running' AND coalesce(heartbeat_at, started_at, created_at) < ? RETURNING id`,
        )
          .pluck()
          .all(now, RunTerminationReason.CANCEL_REQUESTED_PREFIX, RunTerminationReason.NO_SIGN_OF_LIFE_PREFIX, stale) as string[],
    );
  }

  /** One run, or null. */
  async getRun(runId: string): Promise<StoredRun | null> {
    return this.#read(() => this.#getRun(runKey(runId)));
  }

  /** A page of runs, newest first, by keyset on (created_at, id) over indexes for status, configuration and titles (see SqliteRunSearch). */
  async listRuns(query?: RunQuery): Promise<RunPage> {
    const q = checkRunQuery(query);
    return this.#read(() => this.#search.listRuns(q));
  }

  /** How many runs a listing with these filters holds and the tokens they used (see SqliteRunSearch). */
  async runTotals(query?: RunTotalsQuery): Promise<RunTotals> {
    const q = checkRunTotalsQuery(query);
    return this.#read(() => this.#search.runTotals(q));
  }

  /** A page of one server's ended tool calls, newest first (see SqliteRunSearch). */
  async listToolCalls(query: ToolCallQuery): Promise<ToolCallPage> {
    const q = checkToolCallQuery(query);
    return this.#read(() => this.#search.listToolCalls(q));
  }

  /** The ids of the runs whose id starts with `prefix`, ascending: one range of the primary key. */
  async findRunIdsByPrefix(prefix: string, limit?: number): Promise<readonly string[]> {
    const q = checkRunIdPrefix(prefix, limit);
    const from = q.prefix;
    return from === null ? [] : this.#read(() => this.#search.findRunIdsByPrefix(from, q.limit));
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

  /** Per-server health over a window, from the rollup and the calls pending for it (exact below 2000 calls, histogram percentiles above). */
  async serverHealth(query?: ServerHealthQuery): Promise<readonly ServerHealth[]> {
    const normalized = checkHealthQuery(query);
    const { health, pending } = await this.#read(() => this.#db.transaction(() => this.#health.read(query ?? {}, normalized)).deferred());
    this.#pending.found(pending);
    return health;
  }

  /** Calls `onCancel` once when a cancel is requested for the run, here (at once) or by another process (polled every `cancelPollMs`, on an unref'd timer). */
  watchCancel(runId: string, onCancel: () => void): () => void {
    return this.#cancels.watch(runKey(runId), onCancel);
  }

  /** Writes a run and its steps exactly as given, in one transaction; false when the id exists already. */
  async importRun(run: StoredRun, steps: readonly StoredStep[]): Promise<boolean> {
    // from here on: the run and steps as checked, the way every store writes them
    ({ run, steps } = checkImportRun(run, steps));
    const imported = await this.#write(() => this.#import(run, steps));
    this.#pending.due();
    return imported;
  }

  /**
   * Writes a consistent copy of the whole database to a new file, while other connections and
   * processes go on writing.
   *
   * @remarks
   * Uses `VACUUM INTO`: the copy is one read snapshot (every committed step up to that moment,
   * nothing half-written), compacted, and a single file without a `-wal` beside it. It blocks
   * this process's event loop while it copies (about a second per 100 MB). Open the copy with
   * {@link SqliteRunStore.open} to use it.
   *
   * @throws RunStoreError (`invalid_input`) when `destination` is empty or already exists;
   *   (`storage_failure`) when the copy cannot be written.
   */
  async backup(destination: string): Promise<void> {
    if (typeof destination !== 'string' || destination === '') {
      throw RunStoreError.invalidInput('backup destination must be a non-empty file path');
    }
    if (existsSync(destination)) {
      throw RunStoreError.invalidInput(`backup destination ${destination} already exists; choose a new file`);
    }
    await this.#read(() => this.#db.prepare('VACUUM INTO ?').run(destination));
  }

  /** Deletes whole runs that ended before `olderThan` in short batches, between appends (see SqlitePrune). */
  async pruneRuns(query: PruneRunsQuery): Promise<PruneRunsResult> {
    this.#assertOpen();
    this.#prune ??= new SqlitePrune(
      this.#db,
      { write: (fn) => this.#write(fn), read: (fn) => this.#read(fn), commits: () => this.#writes.commits },
      this.#pending,
      this.#openCalls,
    );
    return this.#prune.prune(query);
  }

  /** Stops the cancel polling, waits for queued writes, moves this store's pending calls into the health rollup and closes the database. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#cancels.close();
    await this.#writes.drained();
    await this.#pending.settle();
    this.#db.close();
  }

  // --- internals -------------------------------------------------------------------------------

  #stmt(sql: string, raw = false): Database.Statement {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = this.#db.prepare(sql);
      if (raw) statement.raw();
      this.#statements.set(sql, statement);
    }
    return statement;
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
    if (this.#closed) throw RunStoreError.storageFailure(`the SQLite store of ${this.#path} is closed`);
  }

  #write<T>(fn: () => T): Promise<T> {
    this.#assertOpen();
    return this.#writes.write(fn);
  }

  #read<T>(fn: () => T): Promise<T> {
    this.#assertOpen();
    return this.#writes.read(fn);
  }
}

// --- helpers -----------------------------------------------------------------------------------

function runKey(runId: string): string {
  // a string that is not a UUID is no run's key: looked up as it is, it finds nothing
  return checkRunId(runId) ?? runId;
}
