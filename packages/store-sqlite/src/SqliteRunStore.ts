import { checkHealthQuery, checkImportRun } from '@runledger/trace/store';
import type {
  CancelRequestInput,
  OpenCallsRead,
  OpenCallsRunStore,
  SearchingRunStore,
  PruningRunStore,
  AppendStepInput,
  CreateRunInput,
  FinishRunInput,
  PruneRunsQuery,
  PruneRunsResult,
  RunPage,
  RunQuery,
  RunTotals,
  RunTotalsQuery,
  ServerHealth,
  ServerHealthQuery,
  StepQuery,
  StoredRun,
  StoredStep,
  ToolCallPage,
  ToolCallQuery,
  ToolCallTotals,
  ToolCallTotalsQuery,
  ToolTotalsRunStore,
} from '@runledger/trace';
import type Database from 'better-sqlite3';
import { SqliteAccess } from './SqliteAccess.js';
import { WriteQueue } from './WriteQueue.js';
import { SqliteGroupCommit } from './SqliteGroupCommit.js';
import { SqliteLedger } from './ledger/SqliteLedger.js';
import { SqliteRunSearch } from './search/SqliteRunSearch.js';
import { openDatabase } from './openDatabase.js';
import { backupDatabase } from './backupDatabase.js';
import { SqliteHealthReader } from './health/SqliteHealthReader.js';
import { SqliteHealthWriter } from './health/SqliteHealthWriter.js';
import { SqliteHealthPending } from './health/SqliteHealthPending.js';
import { SqliteToolRollup } from './toolRollup/SqliteToolRollup.js';
import { SqlitePrune } from './prune/SqlitePrune.js';
import { prepareImportRun } from './import/importRun.js';
import { SqliteOpenCalls } from './SqliteOpenCalls.js';
import { readSchemaVersion } from './schema/readSchemaVersion.js';
import { SQLITE_SCHEMA_VERSION } from './schema/SqliteMigrations.js';
import { registerStoreInternals } from './SqliteRunStoreInternals.js';
import { type CheckedSqliteRunStoreOptions, checkSqliteRunStoreOptions, type SqliteRunStoreOptions } from './SqliteRunStoreOptions.js';

/**
 * The embedded run store: one SQLite file in WAL mode, safe for several processes at once.
 *
 * @remarks
 * Every write is a `BEGIN IMMEDIATE` transaction committed with `synchronous = FULL` (the appends of
 * one turn of the event loop share one: {@link SqliteRunStoreOptions.groupCommit}), so a step is on
 * disk — surviving a killed process and a power cut — when `appendStep` resolves, with sequences
 * assigned under the write lock (gap-free and unique with any number of writing processes). A
 * writer that finds the file locked tries again every ms (back-off after a quarter of a second) up
 * to `busyTimeoutMs`; `SQLITE_BUSY` never reaches the caller. Server health and tool totals read
 * rollups (per server, and per server and tool, at 1 min, 10 min, 1 h, 6 h, 1 day and 32 days, in
 * trace's shared layout): an append notes its call as pending, the store moves the pending calls
 * in every few thousand calls (and on close), and a read counts the pending ones in the same
 * snapshot, so every call counts once. Health windows of up to 2000 calls are exact from the
 * steps, larger ones from a histogram (percentiles within about 9.05 %). Migrations run on open.
 *
 * @public
 */
export class SqliteRunStore implements PruningRunStore, OpenCallsRunStore, SearchingRunStore, ToolTotalsRunStore {
  readonly #access: SqliteAccess;
  readonly #pending: SqliteHealthPending;
  readonly #health: SqliteHealthReader;
  readonly #tools: SqliteToolRollup;
  readonly #openCalls: SqliteOpenCalls;
  readonly #ledger: SqliteLedger;
  readonly #search: SqliteRunSearch;
  readonly #import: (run: StoredRun, steps: readonly StoredStep[]) => boolean;
  #prune: SqlitePrune | undefined;

  private constructor(db: Database.Database, { path, busyTimeoutMs, groupCommit, cancelPollMs }: CheckedSqliteRunStoreOptions) {
    const writes = new WriteQueue(busyTimeoutMs, groupCommit ? new SqliteGroupCommit(db) : undefined);
    this.#access = new SqliteAccess(db, path, writes);
    const moves = { write: (roll: () => number) => writes.write(() => db.transaction(roll).immediate()) };
    this.#pending = new SqliteHealthPending(db, new SqliteHealthWriter(db), moves, (this.#tools = new SqliteToolRollup(db)));
    this.#health = new SqliteHealthReader(db, this.#pending);
    this.#openCalls = new SqliteOpenCalls(db);
    this.#ledger = new SqliteLedger(this.#access, { pending: this.#pending, openCalls: this.#openCalls, groupCommit, cancelPollMs });
    this.#search = new SqliteRunSearch(this.#access);
    this.#import = prepareImportRun(db, this.#ledger.writeStep);
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
    const checked = checkSqliteRunStoreOptions(options);
    return openDatabase(checked, (db) => new SqliteRunStore(db, checked));
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
    return this.#access.path;
  }

  // --- the run ledger (ledger/SqliteLedger.ts) ---------------------------------------------------

  /** Creates a run with status `running`; checks the input with `checkCreateRun`. */
  createRun(input: CreateRunInput): Promise<StoredRun> {
    return this.#ledger.createRun(input);
  }

  /**
   * Appends a step with the run's next sequence (step row, run counters, health rollup) and
   * resolves once it is committed and fsynced: with group commit (the default) in the one
   * `BEGIN IMMEDIATE` transaction it shares with the appends that arrived in the same turn of the
   * event loop, in its own savepoint; with `groupCommit: false` in a transaction of its own.
   */
  appendStep(runId: string, step: AppendStepInput): Promise<number> {
    return this.#ledger.appendStep(runId, step);
  }

  /** Ends a running run; a run that ended already keeps how it ended (a late finish is kept beside it: see RunStore.finishRun). */
  finishRun(runId: string, finish: FinishRunInput): Promise<StoredRun> {
    return this.#ledger.finishRun(runId, finish);
  }

  /** Marks a running run's cancel request (the first time is kept); watchers in this process fire at once, others at their next poll. */
  requestCancel(runId: string, at?: number, request?: CancelRequestInput): Promise<StoredRun> {
    return this.#ledger.requestCancel(runId, at, request);
  }

  /** Records a sign of life of a running run (never moves back in time); unknown or finished runs are left alone. */
  heartbeat(runId: string, at?: number): Promise<void> {
    return this.#ledger.heartbeat(runId, at);
  }

  /** Marks `interrupted` every running run whose last sign of life (heartbeat, else start) is before `staleBefore`; returns their ids. */
  recoverInterrupted(staleBefore: number): Promise<readonly string[]> {
    return this.#ledger.recoverInterrupted(staleBefore);
  }

  /** One run, or null. */
  getRun(runId: string): Promise<StoredRun | null> {
    return this.#ledger.getRun(runId);
  }

  /** A run's steps in sequence order: one range of the steps table, whose rowids are (run number << 32) + sequence. */
  readSteps(runId: string, query?: StepQuery): Promise<readonly StoredStep[]> {
    return this.#ledger.readSteps(runId, query);
  }

  /** The calls on the wire of a run and the step count they were read at, in one read transaction; costs the open calls, not the run. */
  readOpenCalls(runId: string): Promise<OpenCallsRead | null> {
    return this.#ledger.readOpenCalls(runId);
  }

  /** Calls `onCancel` once when a cancel is requested for the run, here (at once) or by another process (polled every `cancelPollMs`, on an unref'd timer). */
  watchCancel(runId: string, onCancel: () => void): () => void {
    return this.#ledger.watchCancel(runId, onCancel);
  }

  // --- search (search/SqliteRunSearch.ts) ---------------------------------------------------------

  /** A page of runs, newest first, by keyset on (created_at, id) over indexes for status, configuration and titles. */
  listRuns(query?: RunQuery): Promise<RunPage> {
    return this.#search.listRuns(query);
  }

  /** How many runs a listing with these filters holds and the tokens they used. */
  runTotals(query?: RunTotalsQuery): Promise<RunTotals> {
    return this.#search.runTotals(query);
  }

  /** A page of one server's ended tool calls, newest first. */
  listToolCalls(query: ToolCallQuery): Promise<ToolCallPage> {
    return this.#search.listToolCalls(query);
  }

  /** The ids of the runs whose id starts with `prefix`, ascending: one range of the primary key. */
  findRunIdsByPrefix(prefix: string, limit?: number): Promise<readonly string[]> {
    return this.#search.findRunIdsByPrefix(prefix, limit);
  }

  // --- health (health/), import (import/), prune (prune/) ----------------------------------------

  /** Per-server health over a window, from the rollup and the calls pending for it (exact below 2000 calls, histogram percentiles above). */
  async serverHealth(query?: ServerHealthQuery): Promise<readonly ServerHealth[]> {
    const normalized = checkHealthQuery(query);
    const { health, pending } = await this.#access.read(() =>
      this.#access.db.transaction(() => this.#health.read(query ?? {}, normalized)).deferred(),
    );
    this.#pending.found(pending);
    return health;
  }

  /** The ended calls of a window summed per server and tool: the tool rollup, the calls pending for it and the window's sub-minute edges, one snapshot (toolRollup/). */
  toolCallTotals(query?: ToolCallTotalsQuery): Promise<readonly ToolCallTotals[]> {
    return this.#tools.totals(this.#access, query);
  }

  /** Writes a run and its steps exactly as given, in one transaction; false when the id exists already. */
  async importRun(run: StoredRun, steps: readonly StoredStep[]): Promise<boolean> {
    // from here on: the run and steps as checked, the way every store writes them
    ({ run, steps } = checkImportRun(run, steps));
    const imported = await this.#access.write(() => this.#import(run, steps));
    this.#pending.due();
    return imported;
  }

  /** Deletes whole runs that ended before `olderThan` in short batches, between appends (see SqlitePrune). */
  async pruneRuns(query: PruneRunsQuery): Promise<PruneRunsResult> {
    this.#access.assertOpen();
    this.#prune ??= new SqlitePrune(this.#access.db, this.#access, this.#pending, this.#openCalls);
    return this.#prune.prune(query);
  }

  /**
   * Writes a consistent copy of the database to a new file (`VACUUM INTO`: one snapshot, compacted, no `-wal`) while others go on
   * writing; it blocks this process's event loop while it copies (about a second per 100 MB). Open the copy with {@link SqliteRunStore.open}.
   * @throws RunStoreError (`invalid_input`) when `destination` is empty or exists; (`storage_failure`) when the copy cannot be written.
   */
  async backup(destination: string): Promise<void> {
    return backupDatabase(this.#access, destination);
  }

  /** Stops the cancel polling, waits for queued writes, moves this store's pending calls into the health rollup and closes the database. */
  async close(): Promise<void> {
    if (!this.#access.close()) return;
    this.#ledger.close();
    await this.#access.writes.drained();
    await this.#pending.settle();
    this.#access.db.close();
  }
}
