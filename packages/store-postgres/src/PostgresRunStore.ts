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
  checkRunQuery,
  checkStaleBefore,
  checkStepQuery,
  type CreateRunInput,
  duplicateRunIdError,
  type FinishRunInput,
  type OpenCallsRead,
  type OpenCallsRunStore,
  type PruneRunsQuery,
  type PruneRunsResult,
  type PruningRunStore,
  type RunPage,
  runPageOf,
  RunTerminationReason,
  type RunQuery,
  RunStoreError,
  type RunTotals,
  type RunTotalsQuery,
  type SearchingRunStore,
  type ServerHealth,
  type ServerHealthQuery,
  type StepQuery,
  type StoredRun,
  storedRunOfRow,
  type StoredRunRow,
  type StoredStep,
  type ToolCallPage,
  type ToolCallQuery,
} from '@runledger/trace/store';
import type pg from 'pg';
import { PostgresCancelWatch } from './PostgresCancelWatch.js';
import { migrateSchema } from './schema/migrateSchema.js';
import { POSTGRES_SCHEMA_VERSION } from './schema/PostgresMigrations.js';
import { checkPostgresRunStoreOptions, checkPostgresTarget, type PostgresRunStoreOptions } from './PostgresRunStoreOptions.js';
import { appendStatement, appendValues } from './ledger/appendStatement.js';
import { listRunsStatement } from './search/listRunsStatement.js';
import { PostgresRunSearch } from './search/PostgresRunSearch.js';
import { repeatedAppend } from './ledger/repeatedAppend.js';
import { ms, RUN_COLUMNS } from './postgresRows.js';
import { PostgresHealthReader } from './health/PostgresHealthReader.js';
import { PostgresHealthPending } from './health/PostgresHealthPending.js';
import { PostgresGroupCommit } from './PostgresGroupCommit.js';
import { readOpenCallsOf, readOpenCallsStatement } from './PostgresOpenCalls.js';
import { PostgresPrune } from './prune/PostgresPrune.js';
import { readStepsOf, type StepsReadContext } from './ledger/PostgresStepsRead.js';
import { listenerConnector, openPool, timedQuery } from './postgresConnections.js';
import { storageFailure } from './storageFailure.js';
import { readSchemaVersion } from './schema/readSchemaVersion.js';
import { prepareImportRun } from './import/importRun.js';
import { registerStoreInternals } from './PostgresRunStoreInternals.js';

/**
 * The {@link PruningRunStore | RunStore} for many writers and many machines sharing one PostgreSQL database.
 *
 * @remarks
 * Everything lives in one schema (default `runledger`), migrated forward on connect under an
 * advisory lock. Each step is one single-statement transaction that takes the run's next
 * sequence from a counter on the run row (so concurrent writers to one run queue on that row and
 * sequences stay gap-free), inserts the step with its payload as text, and notes its tool call as
 * pending for the server-health rollup; it is committed (with PostgreSQL's `synchronous_commit`)
 * when `appendStep` resolves. The store moves pending calls into the rollup every few thousand
 * calls (and on close). Server health reads whole rollup buckets (1 min to 32 days), the calls
 * still pending in them, and the raw steps of the partial minutes at the window's edges, in one
 * snapshot; p50/p95 come from a log-scale histogram and are within
 * about 9 % of the exact nearest-rank value. Cancel requests are pushed with LISTEN/NOTIFY on a
 * dedicated connection, with polling while that connection is down. `pruneRuns` deletes old runs
 * whole in short transactions under row locks, while appends go on. It searches its runs (see
 * {@link SearchingRunStore}): each append adds its tokens to the run's in the same statement, and
 * a server's calls and the runs list's server and tool filters read indexes made for them.
 *
 * @public
 */
export class PostgresRunStore implements PruningRunStore, OpenCallsRunStore, SearchingRunStore {
  readonly #pool: pg.Pool;
  readonly #schema: string;
  readonly #q: string;
  readonly #channel: string;
  readonly #watcher: PostgresCancelWatch;
  readonly #health: PostgresHealthReader;
  readonly #appendName: string;
  readonly #appendText: string;
  readonly #prune: PostgresPrune;
  readonly #search: PostgresRunSearch;
  readonly #pending: PostgresHealthPending;
  readonly #batcher: PostgresGroupCommit | null;
  readonly #readOpenCallsText: string;
  readonly #queryTimeoutMs: number;
  readonly #stepsRead: StepsReadContext;
  readonly #import: (run: StoredRun, steps: readonly StoredStep[]) => Promise<boolean>;
  #closed = false;

  private constructor(
    pool: pg.Pool,
    schema: string,
    quoted: string,
    connect: () => Promise<pg.Client>,
    cancelPollMs: number,
    groupCommit: boolean,
    queryTimeoutMs: number,
  ) {
    this.#pool = pool;
    this.#queryTimeoutMs = queryTimeoutMs;
    this.#stepsRead = { pool, q: quoted, timeoutMs: queryTimeoutMs };
    this.#batcher = groupCommit ? new PostgresGroupCommit(pool, quoted, { queryTimeoutMs }) : null;
    this.#readOpenCallsText = readOpenCallsStatement(quoted);
    this.#schema = schema;
    this.#q = quoted;
    this.#channel = `rlc_${schema}`.slice(0, 63);
    this.#appendName = 'runledger_append_step';
    this.#appendText = appendStatement(quoted);
    this.#health = new PostgresHealthReader(pool, quoted, queryTimeoutMs);
    this.#pending = new PostgresHealthPending(pool, quoted);
    this.#prune = new PostgresPrune(pool, quoted);
    this.#search = new PostgresRunSearch(
      quoted,
      (text, values) => this.#timed(text, values),
      (what, error) => this.#failure(what, error),
    );
    this.#import = prepareImportRun(pool, quoted);
    this.#watcher = new PostgresCancelWatch({
      channel: this.#channel,
      connect,
      pollMs: cancelPollMs,
      reconnectMs: Math.max(cancelPollMs, 1_000),
      cancelled: async (runIds) => {
        const ids = runIds.filter((id) => checkRunId(id) !== null);
        if (ids.length === 0) return new Set();
        const result = await this.#pool.query<{ id: string }>(
          // a late cancel (requested after the run finished) is no cancel to act on
          `SELECT id FROM ${this.#q}.runs WHERE id = ANY ($1::uuid[]) AND cancel_requested_at IS NOT NULL
             AND status IN ('running', 'cancelled')`,
          [ids],
        );
        return new Set(result.rows.map((row) => row.id));
      },
    });
    registerStoreInternals(this, { watcher: this.#watcher, pool, pending: this.#pending });
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

  /** Creates a run with status `running`; refuses an id that exists with `invalid_input`. */
  async createRun(input: CreateRunInput): Promise<StoredRun> {
    this.#open();
    const run = checkCreateRun(input, Date.now());
    try {
      const result = await this.#timed<StoredRunRow>(
        `INSERT INTO ${this.#q}.runs (id, status, configuration, actor, title, created_at, started_at)
         VALUES ($1, 'running', $2, $3, $4, $5, $5) RETURNING ${RUN_COLUMNS}`,
        [run.id, run.configuration, run.actor, run.title, ms(run.createdAt)],
      );
      return storedRunOfRow(result.rows[0]!);
    } catch (error) {
      if ((error as { code?: string }).code === '23505') {
        throw duplicateRunIdError(run.id);
      }
      throw this.#failure('createRun', error);
    }
  }

  /** Appends a step with the run's next sequence in one committed transaction and returns the sequence. */
  async appendStep(runId: string, step: AppendStepInput): Promise<number> {
    this.#open();
    const input = checkAppendStep(step);
    if (checkRunId(runId) === null) throw RunStoreError.runNotFound(runId);
    const values = appendValues(runId, input);
    if (this.#batcher !== null) {
      const sequence = await this.#batcher.append(values);
      if (sequence !== null) {
        this.#appended(values);
        return sequence;
      }
    }
    let rows: { sequence: number }[];
    try {
      rows = (await this.#timed<{ sequence: number }>(this.#appendText, values, this.#appendName)).rows;
    } catch (error) {
      throw this.#failure('appendStep', error);
    }
    const row = rows[0];
    if (row !== undefined) {
      this.#appended(values);
      return row.sequence;
    }
    if (input.sequence === null) throw RunStoreError.runNotFound(runId);
    return repeatedAppend(
      this.#q,
      (text, values) => this.#timed(text, values),
      (what, error) => this.#failure(what, error),
      runId,
      input,
      input.sequence,
    );
  }

  /** Ends a running run; a run that ended already keeps how it ended (a late finish is kept beside it: see RunStore.finishRun). */
  async finishRun(runId: string, finish: FinishRunInput): Promise<StoredRun> {
    this.#open();
    const input = checkFinishRun(finish, Date.now());
    if (checkRunId(runId) === null) throw RunStoreError.runNotFound(runId);
    try {
      // The cancel and the finish are decided here, in one statement on the locked row: a cancel
      // requested while the run was running makes it end cancelled, whatever the finish asked for.
      const result = await this.#timed<StoredRunRow>(
        `UPDATE ${this.#q}.runs SET
           status = CASE WHEN cancel_requested_at IS NULL THEN $2 ELSE 'cancelled' END,
           finished_at = $3,
           termination_reason = CASE WHEN cancel_requested_at IS NULL THEN $4 ELSE $5 END,
           unstored_steps = unstored_steps + $6
         WHERE id = $1 AND status = 'running' RETURNING ${RUN_COLUMNS}`,
        [runId, input.status, ms(input.finishedAt), input.terminationReason, input.cancelledTerminationReason, input.unstoredSteps],
      );
      const row = result.rows[0];
      if (row !== undefined) return storedRunOfRow(row);
      // Ended already: how it ended stays. The finish that ended it, again, changes nothing; any
      // other is late — its unstored steps count, and the first late one is kept (one statement on
      // the locked row; a run never goes back to running, so nothing can slip in between).
      const late = await this.#timed<StoredRunRow>(
        `UPDATE ${this.#q}.runs SET
           unstored_steps = unstored_steps + $4,
           late_finish_status = coalesce(late_finish_status, $2),
           late_finish_at = CASE WHEN late_finish_status IS NULL THEN $3 ELSE late_finish_at END
         WHERE id = $1 AND status <> 'running' AND pruned_at IS NULL
           AND NOT (finished_at IS NOT DISTINCT FROM $3
             AND (status = $2 OR (status = 'cancelled' AND termination_reason IS NOT DISTINCT FROM $5)))
           AND NOT (late_finish_status IS NOT DISTINCT FROM $2 AND late_finish_at IS NOT DISTINCT FROM $3)
         RETURNING ${RUN_COLUMNS}`,
        [runId, input.status, ms(input.finishedAt), input.unstoredSteps, input.cancelledTerminationReason],
      );
      const lateRow = late.rows[0];
      if (lateRow !== undefined) return storedRunOfRow(lateRow);
    } catch (error) {
      throw this.#failure('finishRun', error);
    }
    const run = await this.getRun(runId);
    if (run === null) throw RunStoreError.runNotFound(runId);
    return run;
  }

  /** Marks a running run's cancel (the first time is kept) and notifies its watchers in every process. */
  async requestCancel(runId: string, at?: number): Promise<StoredRun> {
    this.#open();
    const when = checkRequestCancelAt(at, Date.now());
    if (checkRunId(runId) === null) throw RunStoreError.runNotFound(runId);
    try {
      // One statement, one transaction: the NOTIFY is delivered when the mark commits.
      await this.#timed(
        // on a finished run the request is kept as a late one (isLateCancel), without a notify
        `WITH marked AS (
           UPDATE ${this.#q}.runs SET cancel_requested_at = $2
           WHERE id = $1 AND cancel_requested_at IS NULL AND pruned_at IS NULL RETURNING id, status
         )
         SELECT pg_notify($3, id::text) FROM marked WHERE status = 'running'`,
        [runId, when, this.#channel],
      );
    } catch (error) {
      throw this.#failure('requestCancel', error);
    }
    const run = await this.getRun(runId);
    if (run === null) throw RunStoreError.runNotFound(runId);
    return run;
  }

  /** Records a sign of life of the process running the run (never moves back in time). */
  async heartbeat(runId: string, at?: number): Promise<void> {
    this.#open();
    const when = checkHeartbeatAt(at, Date.now());
    if (checkRunId(runId) === null) return;
    try {
      // never moves back: a late or out-of-order heartbeat leaves the later sign of life
      await this.#timed(
        `UPDATE ${this.#q}.runs SET heartbeat_at = greatest(heartbeat_at, $2::bigint) WHERE id = $1 AND status = 'running'`,
        [runId, when],
      );
    } catch (error) {
      throw this.#failure('heartbeat', error);
    }
  }

  /** Marks `interrupted` every running run whose last sign of life is older than `staleBefore`; returns their ids. */
  async recoverInterrupted(staleBefore: number): Promise<readonly string[]> {
    this.#open();
    const stale = checkStaleBefore(staleBefore);
    try {
      const result = await this.#timed<{ id: string }>(
        `UPDATE ${this.#q}.runs SET
           status = CASE WHEN cancel_requested_at IS NULL THEN 'interrupted' ELSE 'cancelled' END,
           finished_at = greatest($2::bigint, coalesce(heartbeat_at, started_at, created_at)),
           termination_reason = CASE WHEN cancel_requested_at IS NULL THEN '' ELSE $3::text END || $4::text ||
             to_char(to_timestamp(coalesce(heartbeat_at, started_at, created_at) / 1000.0) AT TIME ZONE 'UTC',
                     'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
         WHERE status = 'running' AND coalesce(heartbeat_at, started_at, created_at) < $1::double precision
         RETURNING id`,
        [stale, Date.now(), RunTerminationReason.CANCEL_REQUESTED_PREFIX, RunTerminationReason.NO_SIGN_OF_LIFE_PREFIX],
      );
      return result.rows.map((row) => row.id);
    } catch (error) {
      throw this.#failure('recoverInterrupted', error);
    }
  }

  /** One run, or null (also for an id that is not a UUID). */
  async getRun(runId: string): Promise<StoredRun | null> {
    this.#open();
    if (checkRunId(runId) === null) return null;
    try {
      const result = await this.#timed<StoredRunRow>(`SELECT ${RUN_COLUMNS} FROM ${this.#q}.runs WHERE id = $1 AND pruned_at IS NULL`, [
        runId,
      ]);
      const row = result.rows[0];
      return row === undefined ? null : storedRunOfRow(row);
    } catch (error) {
      throw this.#failure('getRun', error);
    }
  }

  /** A page of runs, newest first, with keyset paging. */
  async listRuns(query?: RunQuery): Promise<RunPage> {
    this.#open();
    const q = checkRunQuery(query);
    const statement = listRunsStatement(q, this.#q);
    let rows: StoredRunRow[];
    try {
      rows = (await this.#timed<StoredRunRow>(statement.sql, statement.values)).rows;
    } catch (error) {
      throw this.#failure('listRuns', error);
    }
    return runPageOf(rows, q.limit);
  }

  /** How many runs a listing with these filters holds and the sum of their tokens, in one statement. */
  async runTotals(query?: RunTotalsQuery): Promise<RunTotals> {
    this.#open();
    return this.#search.runTotals(query);
  }

  /** One server's ended tool calls, newest first, keyset-paged over the server's part of `steps_call_server`. */
  async listToolCalls(query: ToolCallQuery): Promise<ToolCallPage> {
    this.#open();
    return this.#search.listToolCalls(query);
  }

  /** The ids of the runs whose id starts with `prefix` (any case), ascending: a range of the primary key. */
  async findRunIdsByPrefix(prefix: string, limit?: number): Promise<readonly string[]> {
    this.#open();
    return this.#search.findRunIdsByPrefix(prefix, limit);
  }

  /** A run's steps in sequence order, payloads as stored text. */
  async readSteps(runId: string, query?: StepQuery): Promise<readonly StoredStep[]> {
    this.#open();
    const q = checkStepQuery(query);
    if (checkRunId(runId) === null) return [];
    return readStepsOf(this.#stepsRead, runId, q.fromSequence, q.limit);
  }

  /** The calls on the wire of a run and the step count they were read at, in one statement; costs the open calls, not the run. */
  async readOpenCalls(runId: string): Promise<OpenCallsRead | null> {
    this.#open();
    if (checkRunId(runId) === null) return null;
    return readOpenCallsOf(this.#pool, this.#readOpenCallsText, runId, this.#queryTimeoutMs);
  }

  /** Per-server health over a time window, from the rollup and the calls pending for it; ordered by server id. */
  async serverHealth(query?: ServerHealthQuery): Promise<readonly ServerHealth[]> {
    this.#open();
    const { health, pending } = await this.#health.read(checkHealthQuery(query));
    this.#pending.found(pending);
    return health;
  }

  /** Calls `onCancel` once when a cancel is requested for the run by any process (NOTIFY, polling as fallback). */
  watchCancel(runId: string, onCancel: () => void): () => void {
    this.#open();
    return this.#watcher.watch(checkRunId(runId) ?? runId, onCancel);
  }

  /** Writes a run and its steps exactly as another store holds them, in one transaction; false when the run exists. */
  async importRun(run: StoredRun, steps: readonly StoredStep[]): Promise<boolean> {
    this.#open();
    // from here on: the run and steps as checked, the way every store writes them
    ({ run, steps } = checkImportRun(run, steps));
    return this.#import(run, steps);
  }

  /**
   * Deletes whole runs that ended before `olderThan` in short batches (row locks only: appends and
   * reads go on), each with its part of the health rollup (see PostgresPrune).
   *
   * @throws RunStoreError `invalid_input` from `checkPruneRunsQuery`; `storage_failure` when a batch
   * fails (what was committed before stays deleted, and the next prune finishes a run it hid).
   */
  async pruneRuns(query: PruneRunsQuery): Promise<PruneRunsResult> {
    this.#open();
    return this.#prune.prune(query);
  }

  /** Stops the cancel watcher, moves this store's pending calls into the health rollup and closes the pool. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#watcher.close();
    await this.#batcher?.idle();
    await this.#pending.settle();
    await this.#pool.end();
  }

  /** Counts a stored append's call as pending (values[8] / values[9]: its outcome and server, when health counts it). */
  #appended(values: readonly unknown[]): void {
    if (values[8] !== null && values[9] !== null) this.#pending.noted();
  }

  /** A statement of a run's write (or getRun) on a pooled connection, dropped when PostgreSQL does not answer within queryTimeoutMs. */
  #timed<R extends pg.QueryResultRow>(text: string, values: readonly unknown[], name?: string): Promise<pg.QueryResult<R>> {
    return this.#pool.query<R>(timedQuery(text, [...values], this.#queryTimeoutMs, name));
  }

  /** The store's storage_failure for `what`, naming the timeout when it was one. */
  #failure(what: string, error: unknown): RunStoreError {
    return storageFailure(what, error, this.#queryTimeoutMs);
  }

  #open(): void {
    if (this.#closed) throw RunStoreError.storageFailure('the store is closed');
  }
}
