import { checkHealthQuery, checkImportRun } from '@runledger/trace/store';
import type {
  CancelRequestInput,
  OpenCallsRead,
  OpenCallsRunStore,
  PruningRunStore,
  SearchingRunStore,
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
import type pg from 'pg';
import { PostgresAccess } from './PostgresAccess.js';
import { migrateSchema } from './schema/migrateSchema.js';
import { POSTGRES_SCHEMA_VERSION } from './schema/PostgresMigrations.js';
import { checkPostgresRunStoreOptions, checkPostgresTarget, type PostgresRunStoreOptions } from './PostgresRunStoreOptions.js';
import { PostgresLedger } from './ledger/PostgresLedger.js';
import { PostgresRunSearch } from './search/PostgresRunSearch.js';
import { PostgresHealthReader } from './health/PostgresHealthReader.js';
import { PostgresHealthPending } from './health/PostgresHealthPending.js';
import { PostgresToolRollup } from './toolRollup/PostgresToolRollup.js';
import { PostgresPrune } from './prune/PostgresPrune.js';
import { listenerConnector, openPool } from './postgresConnections.js';
import { readSchemaVersion } from './schema/readSchemaVersion.js';
import { prepareImportRun } from './import/importRun.js';
import { registerStoreInternals } from './PostgresRunStoreInternals.js';

/**
 * The {@link PruningRunStore | RunStore} for many writers and many machines sharing one PostgreSQL database.
 *
 * @remarks
 * Everything lives in one schema (default `runledger`), migrated forward on connect under an
 * advisory lock. Each step is one single-statement transaction that takes the run's next sequence
 * from a counter on the run row (concurrent writers to one run queue on it: sequences stay
 * gap-free), inserts the step with its payload as text, and notes its tool call as pending for the
 * rollups (server health, tools), committed (`synchronous_commit`) when `appendStep` resolves; the
 * store moves them in every few thousand calls (and on close). Server health and tool totals read
 * whole rollup buckets (1 min to 32 days), the calls still pending in them and the raw steps of the
 * window's partial minutes; p50/p95 come from a log-scale histogram, within about 9 % of the exact
 * nearest-rank value. Cancel requests are pushed with LISTEN/NOTIFY, polled while that connection
 * is down. `pruneRuns` deletes old runs whole in short transactions under row locks, while appends
 * go on. It searches its runs (see {@link SearchingRunStore}) over indexes made for that.
 *
 * @public
 */
export class PostgresRunStore implements PruningRunStore, OpenCallsRunStore, SearchingRunStore, ToolTotalsRunStore {
  readonly #access: PostgresAccess;
  readonly #schema: string;
  readonly #ledger: PostgresLedger;
  readonly #search: PostgresRunSearch;
  readonly #health: PostgresHealthReader;
  readonly #tools: PostgresToolRollup;
  readonly #pending: PostgresHealthPending;
  readonly #prune: PostgresPrune;
  readonly #import: (run: StoredRun, steps: readonly StoredStep[]) => Promise<boolean>;

  private constructor(
    pool: pg.Pool,
    schema: string,
    quoted: string,
    connect: () => Promise<pg.Client>,
    cancelPollMs: number,
    groupCommit: boolean,
    queryTimeoutMs: number,
  ) {
    this.#access = new PostgresAccess(pool, quoted, queryTimeoutMs);
    this.#schema = schema;
    this.#health = new PostgresHealthReader(pool, quoted, queryTimeoutMs);
    this.#tools = new PostgresToolRollup(this.#access);
    this.#pending = new PostgresHealthPending(pool, quoted);
    this.#ledger = new PostgresLedger(this.#access, { pending: this.#pending, schema, connect, cancelPollMs, groupCommit });
    this.#search = new PostgresRunSearch(this.#access);
    this.#prune = new PostgresPrune(pool, quoted);
    this.#import = prepareImportRun(pool, quoted);
    registerStoreInternals(this, { watcher: this.#ledger.watcher, pool, pending: this.#pending });
  }

  /** The schema version this store creates and upgrades schemas to. */
  static readonly SCHEMA_VERSION: number = POSTGRES_SCHEMA_VERSION;

  /**
   * Reads the schema version of the store's schema without creating or changing anything: null
   * when the schema holds no runledger store. Takes the connection string and schema of
   * {@link PostgresRunStore.connect}.
   *
   * @throws RunStoreError from `PostgresRunStore.schemaVersionOf`: `invalid_input` for a missing
   * connection string or a bad schema name, `storage_failure` when the server cannot be reached.
   */
  static async schemaVersionOf(options: Pick<PostgresRunStoreOptions, 'connectionString' | 'schema'> = {}): Promise<number | null> {
    const { connectionString, schema, quoted } = checkPostgresTarget(options);
    return readSchemaVersion(connectionString, schema, quoted);
  }

  /**
   * Connects to PostgreSQL, creates or migrates the store's schema and returns the store.
   *
   * @throws RunStoreError `invalid_input` from `PostgresRunStore.connect` when no connection string is
   * given or found in the environment, or an option breaks its rule; `storage_failure` when the
   * server cannot be reached or the migration fails; `schema_too_new` when the schema was written
   * by a newer runledger.
   */
  static async connect(options: PostgresRunStoreOptions = {}): Promise<PostgresRunStore> {
    const { connectionString, schema, quoted, poolSize, cancelPollMs, applicationName, groupCommit, queryTimeoutMs } =
      checkPostgresRunStoreOptions(options);
    const pool = await openPool(connectionString, poolSize, applicationName);
    try {
      await migrateSchema(pool, schema, quoted);
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw error;
    }
    const connect = listenerConnector(connectionString, applicationName);
    return new PostgresRunStore(pool, schema, quoted, connect, cancelPollMs, groupCommit, queryTimeoutMs);
  }

  /** The schema that holds the store's tables. */
  get schema(): string {
    return this.#schema;
  }

  // --- the run ledger (ledger/PostgresLedger.ts) -------------------------------------------------

  /** Creates a run with status `running`; refuses an id that exists with `invalid_input`. */
  createRun(input: CreateRunInput): Promise<StoredRun> {
    return this.#ledger.createRun(input);
  }

  /** Appends a step with the run's next sequence in one committed transaction and returns the sequence. */
  appendStep(runId: string, step: AppendStepInput): Promise<number> {
    return this.#ledger.appendStep(runId, step);
  }

  /** Ends a running run; a run that ended already keeps how it ended (a late finish is kept beside it: see RunStore.finishRun). */
  finishRun(runId: string, finish: FinishRunInput): Promise<StoredRun> {
    return this.#ledger.finishRun(runId, finish);
  }

  /** Marks a running run's cancel (the first time is kept) and notifies its watchers in every process. */
  requestCancel(runId: string, at?: number, request?: CancelRequestInput): Promise<StoredRun> {
    return this.#ledger.requestCancel(runId, at, request);
  }

  /** Records a sign of life of the process running the run (never moves back in time). */
  heartbeat(runId: string, at?: number): Promise<void> {
    return this.#ledger.heartbeat(runId, at);
  }

  /** Marks `interrupted` every running run whose last sign of life is older than `staleBefore`; returns their ids. */
  recoverInterrupted(staleBefore: number): Promise<readonly string[]> {
    return this.#ledger.recoverInterrupted(staleBefore);
  }

  /** One run, or null (also for an id that is not a UUID). */
  getRun(runId: string): Promise<StoredRun | null> {
    return this.#ledger.getRun(runId);
  }

  /** A run's steps in sequence order, payloads as stored text. */
  readSteps(runId: string, query?: StepQuery): Promise<readonly StoredStep[]> {
    return this.#ledger.readSteps(runId, query);
  }

  /** The calls on the wire of a run and the step count they were read at, in one statement; costs the open calls, not the run. */
  readOpenCalls(runId: string): Promise<OpenCallsRead | null> {
    return this.#ledger.readOpenCalls(runId);
  }

  /** Calls `onCancel` once when a cancel is requested for the run by any process (NOTIFY, polling as fallback). */
  watchCancel(runId: string, onCancel: () => void): () => void {
    return this.#ledger.watchCancel(runId, onCancel);
  }

  // --- search (search/PostgresRunSearch.ts) -------------------------------------------------------

  /** A page of runs, newest first, with keyset paging. */
  listRuns(query?: RunQuery): Promise<RunPage> {
    return this.#search.listRuns(query);
  }

  /** How many runs a listing with these filters holds and the sum of their tokens, in one statement. */
  runTotals(query?: RunTotalsQuery): Promise<RunTotals> {
    return this.#search.runTotals(query);
  }

  /** One server's ended tool calls, newest first, keyset-paged over the server's part of `steps_call_server`. */
  listToolCalls(query: ToolCallQuery): Promise<ToolCallPage> {
    return this.#search.listToolCalls(query);
  }

  /** The ids of the runs whose id starts with `prefix` (any case), ascending: a range of the primary key. */
  findRunIdsByPrefix(prefix: string, limit?: number): Promise<readonly string[]> {
    return this.#search.findRunIdsByPrefix(prefix, limit);
  }

  // --- health (health/), import (import/), prune (prune/) ----------------------------------------

  /** Per-server health over a time window, from the rollup and the calls pending for it; ordered by server id. */
  async serverHealth(query?: ServerHealthQuery): Promise<readonly ServerHealth[]> {
    this.#access.open();
    const { health, pending } = await this.#health.read(checkHealthQuery(query));
    this.#pending.found(pending);
    return health;
  }

  /** The ended calls of a window summed per server and tool: the tool rollup, the calls pending for it and the window's edges, in one statement (toolRollup/). */
  toolCallTotals(query?: ToolCallTotalsQuery): Promise<readonly ToolCallTotals[]> {
    return this.#tools.totals(query);
  }

  /** Writes a run and its steps exactly as another store holds them, in one transaction; false when the run exists. */
  async importRun(run: StoredRun, steps: readonly StoredStep[]): Promise<boolean> {
    this.#access.open();
    // from here on: the run and steps as checked, the way every store writes them
    ({ run, steps } = checkImportRun(run, steps));
    return this.#import(run, steps);
  }

  /**
   * Deletes whole runs that ended before `olderThan` in short batches under row locks (appends go on), with their part of the rollups.
   * @throws RunStoreError `invalid_input` from `checkPruneRunsQuery`; `storage_failure` when a batch fails (the next prune goes on).
   */
  async pruneRuns(query: PruneRunsQuery): Promise<PruneRunsResult> {
    this.#access.open();
    return this.#prune.prune(query);
  }

  /** Stops the cancel watcher, moves this store's pending calls into the health rollup and closes the pool. */
  async close(): Promise<void> {
    if (!this.#access.close()) return;
    await this.#ledger.close();
    await this.#pending.settle();
    await this.#access.pool.end();
  }
}
