import type { ToolOutcome } from '@runledger/core';
import {
  type AppendStepInput,
  type CreateRunInput,
  type FinishRunInput,
  type NormalizedAppendStep,
  type RunPage,
  type RunQuery,
  type RunStatus,
  type RunStore,
  RunStoreError,
  RunStoreInput,
  type ServerHealth,
  type ServerHealthQuery,
  type StepQuery,
  type StoredRun,
  type StoredStep,
  toolCallOf,
  healthOf,
  newServerHealthTally,
  UNKNOWN_FAILURE_CAUSE,
} from '@runledger/trace';
import pg from 'pg';
import { CancelWatcher } from './CancelWatcher.js';
import { DurationHistogram } from './DurationHistogram.js';
import { planHealthWindow, ROLLUP_LEVEL_SIZES } from './HealthWindow.js';
import { migrateSchema } from './migrateSchema.js';
import { POSTGRES_SCHEMA_VERSION } from './PostgresMigrations.js';
import type { PostgresRunStoreOptions } from './PostgresRunStoreOptions.js';
import { quoteSchemaName } from './quoteSchemaName.js';
import { readPostgresSchemaVersion } from './readSchemaVersion.js';
import { applySessionSettings } from './sessionSettings.js';
import { registerStoreInternals } from './storeInternals.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DEFAULT_SCHEMA = 'runledger';
const DEFAULT_POOL_SIZE = 10;
const DEFAULT_CANCEL_POLL_MS = 1_000;
const IMPORT_CHUNK = 2_000;
/** Percentiles are exact (read from the steps) for a server with at most this many calls in the window… */
const EXACT_PER_SERVER = 1_000;
/** …as long as the servers read exactly hold at most this many calls together. */
const EXACT_TOTAL = 10_000;
const INT8_OID = 20;

/** bigint columns hold ms times and counts, all far below 2^53: read them as numbers. */
const TYPES = {
  getTypeParser(oid: number, format?: string): unknown {
    if (oid === INT8_OID && format !== 'binary') return (value: string) => Number(value);
    return (pg.types.getTypeParser as (oid: number, format?: string) => unknown)(oid, format);
  },
} as unknown as pg.CustomTypesConfig;

const RUN_COLUMNS =
  'id, status, configuration, actor, created_at, started_at, finished_at, termination_reason, cancel_requested_at, heartbeat_at, next_sequence, ok_count, failed_count, cancelled_count, unstored_steps';
const STEP_COLUMNS = 'run_id, sequence, kind, round, duration_ms, created_at, payload, tool_server, tool_outcome';
const STEP_INSERT_COLUMNS = `${STEP_COLUMNS}, call_server, call_outcome, call_cause, call_answered, call_counted`;

interface RunRow {
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
}

interface StepRow {
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

interface HealthRow {
  server: string;
  ok: number;
  failed: number;
  cancelled: number;
  not_counted: number;
  answered: number;
  last_failure_at: number | null;
  duration_min: number | null;
  duration_max: number | null;
  histogram: number[];
}

/** The derived columns of a step: how health, outcome counts and the outcome filter read it. */
interface CallColumns {
  /** The server health counts the call under, or null (not a call, no server or no outcome). */
  readonly server: string | null;
  /** The outcome the run's counters count, or null. */
  readonly outcome: ToolOutcome | null;
  /** Why a failed call failed, or null. */
  readonly cause: string | null;
  /** The server answered (trace's isAnsweredCall), or null when not a call. */
  readonly answered: boolean | null;
  /** The call counts in the failure rate (trace's isCountedCall), or null when not a call. */
  readonly counted: boolean | null;
}

/**
 * The `call_server` / `call_outcome` of a step, as {@link toolCallOf} reads it (columns first,
 * then the payload, legacy tool names included), so that counts, filters and health agree with
 * every other store. `tool_server` / `tool_outcome` keep what the recorder gave.
 */
function callColumns(kind: string, payload: unknown, toolServer: string | null, toolOutcome: ToolOutcome | null): CallColumns {
  const call = toolCallOf({ kind, payload, toolServer, toolOutcome });
  if (call === null) return { server: null, outcome: null, cause: null, answered: null, counted: null };
  return { server: call.server, outcome: call.outcome, cause: call.cause, answered: call.answered, counted: call.counted };
}

function storageFailure(what: string, error: unknown): RunStoreError {
  if (RunStoreError.is(error)) return error;
  return RunStoreError.storageFailure(`PostgreSQL ${what} failed: ${error instanceof Error ? error.message : String(error)}`, error);
}

/** Where a connection string points, without its password, for messages. */
function describeTarget(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    return `${url.hostname || 'localhost'}:${url.port || '5432'}${url.pathname || ''}`;
  } catch {
    return 'the configured server';
  }
}

/**
 * The {@link RunStore} for many writers and many machines sharing one PostgreSQL database.
 *
 * @remarks
 * Everything lives in one schema (default `runledger`), migrated forward on connect under an
 * advisory lock. Each step is one single-statement transaction that takes the run's next
 * sequence from a counter on the run row (so concurrent writers to one run queue on that row and
 * sequences stay gap-free), inserts the step with its payload as text, and adds it to the server
 * health rollup; it is committed (with PostgreSQL's `synchronous_commit`) when `appendStep`
 * resolves. Server health reads whole rollup buckets (1 min to 1 day) plus the raw steps of the
 * partial minutes at the window's edges; p50/p95 come from a log-scale histogram and are within
 * about 9 % of the exact nearest-rank value. Cancel requests are pushed with LISTEN/NOTIFY on a
 * dedicated connection, with polling while that connection is down.
 *
 * @public
 */
export class PostgresRunStore implements RunStore {
  readonly #pool: pg.Pool;
  readonly #schema: string;
  readonly #q: string;
  readonly #channel: string;
  readonly #watcher: CancelWatcher;
  readonly #appendName: string;
  readonly #appendText: string;
  #closed = false;

  private constructor(pool: pg.Pool, schema: string, quoted: string, connect: () => Promise<pg.Client>, cancelPollMs: number) {
    this.#pool = pool;
    this.#schema = schema;
    this.#q = quoted;
    this.#channel = `rlc_${schema}`.slice(0, 63);
    this.#appendName = 'runledger_append_step';
    this.#appendText = appendStatement(quoted);
    this.#watcher = new CancelWatcher({
      channel: this.#channel,
      connect,
      pollMs: cancelPollMs,
      reconnectMs: Math.max(cancelPollMs, 1_000),
      cancelled: async (runIds) => {
        const ids = runIds.filter((id) => UUID.test(id));
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
    registerStoreInternals(this, { watcher: this.#watcher, pool });
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
    const connectionString = options.connectionString ?? process.env['RUNLEDGER_PG_URL'] ?? process.env['DATABASE_URL'];
    if (typeof connectionString !== 'string' || connectionString.length === 0) {
      throw RunStoreError.invalidInput(
        'PostgresRunStoreOptions.connectionString is missing, and neither RUNLEDGER_PG_URL nor DATABASE_URL is set: pass a postgres:// connection string',
      );
    }
    const schema = options.schema ?? DEFAULT_SCHEMA;
    const quoted = quoteSchemaName(schema);
    if (quoted === null) {
      throw RunStoreError.invalidInput(
        `PostgresRunStoreOptions.schema must be a lower-case identifier (letters, digits, _; at most 63), got ${JSON.stringify(schema)}`,
      );
    }
    return readPostgresSchemaVersion(connectionString, schema, quoted);
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
    const connectionString = options.connectionString ?? process.env['RUNLEDGER_PG_URL'] ?? process.env['DATABASE_URL'];
    if (typeof connectionString !== 'string' || connectionString.length === 0) {
      throw RunStoreError.invalidInput(
        'PostgresRunStoreOptions.connectionString is missing, and neither RUNLEDGER_PG_URL nor DATABASE_URL is set: pass a postgres:// connection string',
      );
    }
    const schema = options.schema ?? DEFAULT_SCHEMA;
    const quoted = quoteSchemaName(schema);
    if (quoted === null) {
      throw RunStoreError.invalidInput(
        `PostgresRunStoreOptions.schema must be a lower-case identifier (letters, digits, _; at most 63), got ${JSON.stringify(schema)}`,
      );
    }
    const poolSize = options.poolSize ?? DEFAULT_POOL_SIZE;
    if (!Number.isSafeInteger(poolSize) || poolSize < 1) {
      throw RunStoreError.invalidInput(`PostgresRunStoreOptions.poolSize must be a positive integer, got ${String(poolSize)}`);
    }
    const cancelPollMs = options.cancelPollMs ?? DEFAULT_CANCEL_POLL_MS;
    if (typeof cancelPollMs !== 'number' || !Number.isFinite(cancelPollMs) || cancelPollMs < 1) {
      throw RunStoreError.invalidInput(`PostgresRunStoreOptions.cancelPollMs must be a number ≥ 1, got ${String(cancelPollMs)}`);
    }
    const applicationName = options.applicationName ?? 'runledger';
    if (typeof applicationName !== 'string' || applicationName === '' || applicationName.length > 48 || !/^[\x20-\x7e]+$/.test(applicationName)) {
      throw RunStoreError.invalidInput(
        `PostgresRunStoreOptions.applicationName must be 1 to 48 printable ASCII characters, got ${JSON.stringify(applicationName)}`,
      );
    }
    const config: pg.PoolConfig = {
      connectionString,
      max: poolSize,
      types: TYPES,
      connectionTimeoutMillis: 10_000,
      application_name: applicationName,
      onConnect: applySessionSettings,
    };
    const pool = new pg.Pool(config);
    pool.on('error', () => {
      // an idle connection died (server restart, network): the pool replaces it on next use
    });
    try {
      await pool.query('SELECT 1');
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw RunStoreError.storageFailure(
        `could not connect to PostgreSQL at ${describeTarget(connectionString)}: ${error instanceof Error ? error.message || error.name : String(error)}`,
        error,
      );
    }
    try {
      await migrateSchema(pool, schema, quoted);
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw error;
    }
    const connect = async (): Promise<pg.Client> => {
      const client = new pg.Client({ connectionString, types: TYPES, application_name: `${applicationName}-cancel-listener` });
      client.on('error', () => undefined);
      await client.connect();
      return client;
    };
    return new PostgresRunStore(pool, schema, quoted, connect, cancelPollMs);
  }

  /** The schema that holds the store's tables. */
  get schema(): string {
    return this.#schema;
  }

  /** Creates a run with status `running`; refuses an id that exists with `invalid_input`. */
  async createRun(input: CreateRunInput): Promise<StoredRun> {
    this.#open();
    const run = RunStoreInput.createRun(input, Date.now());
    try {
      const result = await this.#pool.query<RunRow>(
        `INSERT INTO ${this.#q}.runs (id, status, configuration, actor, created_at, started_at)
         VALUES ($1, 'running', $2, $3, $4, $4) RETURNING ${RUN_COLUMNS}`,
        [run.id, run.configuration, run.actor, ms(run.createdAt)],
      );
      return toRun(result.rows[0]!);
    } catch (error) {
      if ((error as { code?: string }).code === '23505') {
        throw RunStoreError.invalidInput(`CreateRunInput.id must be new, but run ${JSON.stringify(run.id)} exists`);
      }
      throw storageFailure('createRun', error);
    }
  }

  /** Appends a step with the run's next sequence in one committed transaction and returns the sequence. */
  async appendStep(runId: string, step: AppendStepInput): Promise<number> {
    this.#open();
    const input = RunStoreInput.appendStep(step);
    if (typeof runId !== 'string' || !UUID.test(runId)) throw RunStoreError.runNotFound(runId);
    const values = appendValues(runId, input);
    let rows: { sequence: number }[];
    try {
      rows = (await this.#pool.query<{ sequence: number }>({ name: this.#appendName, text: this.#appendText, values })).rows;
    } catch (error) {
      throw storageFailure('appendStep', error);
    }
    const row = rows[0];
    if (row !== undefined) return row.sequence;
    if (input.sequence === null) throw RunStoreError.runNotFound(runId);
    return this.#repeatedAppend(runId, input, input.sequence);
  }

  /**
   * An append that named a sequence other than the run's next: a repeat of the stored step, or
   * refused. The comparison is made by the server (exact for float8 whatever extra_float_digits).
   */
  async #repeatedAppend(runId: string, input: NormalizedAppendStep, sequence: number): Promise<number> {
    let found: { next_sequence: number; present: boolean; same: boolean | null } | undefined;
    try {
      const result = await this.#pool.query(
        `SELECT r.next_sequence, s.run_id IS NOT NULL AS present,
                (s.kind = $3 AND s.round = $4 AND s.duration_ms = $5::float8 AND s.created_at = $6::bigint AND s.payload = $7
                 AND s.tool_server IS NOT DISTINCT FROM $8 AND s.tool_outcome IS NOT DISTINCT FROM $9) AS same
         FROM ${this.#q}.runs r LEFT JOIN ${this.#q}.steps s ON s.run_id = r.id AND s.sequence = $2
         WHERE r.id = $1`,
        [runId, sequence, input.kind, input.round, input.durationMs, ms(input.createdAt), input.payloadText, input.toolServer, input.toolOutcome],
      );
      found = result.rows[0];
    } catch (error) {
      throw storageFailure('appendStep', error);
    }
    if (found === undefined) throw RunStoreError.runNotFound(runId);
    if (sequence > found.next_sequence) throw RunStoreInput.sequencePastEnd(runId, sequence, found.next_sequence);
    if (found.present && found.same === true) return sequence;
    throw RunStoreError.sequenceConflict(runId, sequence);
  }

  /** Ends a running run; a finished run is returned as it is (terminal is terminal). */
  async finishRun(runId: string, finish: FinishRunInput): Promise<StoredRun> {
    this.#open();
    const input = RunStoreInput.finishRun(finish, Date.now());
    if (typeof runId !== 'string' || !UUID.test(runId)) throw RunStoreError.runNotFound(runId);
    try {
      // The cancel and the finish are decided here, in one statement on the locked row: a cancel
      // requested while the run was running makes it end cancelled, whatever the finish asked for.
      const result = await this.#pool.query<RunRow>(
        `UPDATE ${this.#q}.runs SET
           status = CASE WHEN cancel_requested_at IS NULL THEN $2 ELSE 'cancelled' END,
           finished_at = $3,
           termination_reason = CASE WHEN cancel_requested_at IS NULL THEN $4 ELSE $5 END,
           unstored_steps = unstored_steps + $6
         WHERE id = $1 AND status = 'running' RETURNING ${RUN_COLUMNS}`,
        [runId, input.status, ms(input.finishedAt), input.terminationReason, input.cancelledTerminationReason, input.unstoredSteps],
      );
      const row = result.rows[0];
      if (row !== undefined) return toRun(row);
    } catch (error) {
      throw storageFailure('finishRun', error);
    }
    const run = await this.getRun(runId);
    if (run === null) throw RunStoreError.runNotFound(runId);
    return run;
  }

  /** Marks a running run's cancel (the first time is kept) and notifies its watchers in every process. */
  async requestCancel(runId: string, at?: number): Promise<StoredRun> {
    this.#open();
    const when = RunStoreInput.requestCancel(at, Date.now());
    if (typeof runId !== 'string' || !UUID.test(runId)) throw RunStoreError.runNotFound(runId);
    try {
      // One statement, one transaction: the NOTIFY is delivered when the mark commits.
      await this.#pool.query(
        // on a finished run the request is kept as a late one (isLateCancel), without a notify
        `WITH marked AS (
           UPDATE ${this.#q}.runs SET cancel_requested_at = $2
           WHERE id = $1 AND cancel_requested_at IS NULL RETURNING id, status
         )
         SELECT pg_notify($3, id::text) FROM marked WHERE status = 'running'`,
        [runId, when, this.#channel],
      );
    } catch (error) {
      throw storageFailure('requestCancel', error);
    }
    const run = await this.getRun(runId);
    if (run === null) throw RunStoreError.runNotFound(runId);
    return run;
  }

  /** Records a sign of life of the process running the run. */
  async heartbeat(runId: string, at?: number): Promise<void> {
    this.#open();
    const when = RunStoreInput.heartbeat(at, Date.now());
    if (typeof runId !== 'string' || !UUID.test(runId)) return;
    try {
      await this.#pool.query(`UPDATE ${this.#q}.runs SET heartbeat_at = $2 WHERE id = $1 AND status = 'running'`, [
        runId,
        when,
      ]);
    } catch (error) {
      throw storageFailure('heartbeat', error);
    }
  }

  /** Marks `interrupted` every running run whose last sign of life is older than `staleBefore`; returns their ids. */
  async recoverInterrupted(staleBefore: number): Promise<readonly string[]> {
    this.#open();
    const stale = RunStoreInput.recoverInterrupted(staleBefore);
    try {
      const result = await this.#pool.query<{ id: string }>(
        `UPDATE ${this.#q}.runs SET
           status = CASE WHEN cancel_requested_at IS NULL THEN 'interrupted' ELSE 'cancelled' END,
           finished_at = greatest($2::bigint, coalesce(heartbeat_at, started_at, created_at)),
           termination_reason = CASE WHEN cancel_requested_at IS NULL THEN '' ELSE 'cancel requested; ' END ||
             'no sign of life since ' ||
             to_char(to_timestamp(coalesce(heartbeat_at, started_at, created_at) / 1000.0) AT TIME ZONE 'UTC',
                     'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
         WHERE status = 'running' AND coalesce(heartbeat_at, started_at, created_at) < $1::double precision
         RETURNING id`,
        [stale, Date.now()],
      );
      return result.rows.map((row) => row.id);
    } catch (error) {
      throw storageFailure('recoverInterrupted', error);
    }
  }

  /** One run, or null (also for an id that is not a UUID). */
  async getRun(runId: string): Promise<StoredRun | null> {
    this.#open();
    if (typeof runId !== 'string' || !UUID.test(runId)) return null;
    try {
      const result = await this.#pool.query<RunRow>(`SELECT ${RUN_COLUMNS} FROM ${this.#q}.runs WHERE id = $1`, [runId]);
      const row = result.rows[0];
      return row === undefined ? null : toRun(row);
    } catch (error) {
      throw storageFailure('getRun', error);
    }
  }

  /** A page of runs, newest first, with keyset paging. */
  async listRuns(query?: RunQuery): Promise<RunPage> {
    this.#open();
    const q = RunStoreInput.runQuery(query);
    const where: string[] = [];
    const values: unknown[] = [];
    const param = (value: unknown): string => {
      values.push(value);
      return `$${values.length}`;
    };
    if (q.statuses !== null) where.push(`status = ANY (${param(q.statuses)}::text[])`);
    if (q.configuration !== null) where.push(`configuration = ${param(q.configuration)}`);
    if (q.hasOutcome !== null) where.push(`${q.hasOutcome}_count > 0`);
    if (q.createdFrom !== null) where.push(`created_at >= ${param(Math.ceil(q.createdFrom))}::bigint`);
    if (q.createdTo !== null) where.push(`created_at < ${param(Math.ceil(q.createdTo))}::bigint`);
    if (q.after !== null) {
      where.push(`(created_at, id) < (${param(ms(q.after.createdAt))}::bigint, ${param(q.after.id)}::uuid)`);
    }
    const sql = `SELECT ${RUN_COLUMNS} FROM ${this.#q}.runs ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY created_at DESC, id DESC LIMIT ${q.limit + 1}`;
    let rows: RunRow[];
    try {
      rows = (await this.#pool.query<RunRow>(sql, values)).rows;
    } catch (error) {
      throw storageFailure('listRuns', error);
    }
    const page = rows.slice(0, q.limit).map(toRun);
    const last = page[page.length - 1];
    const nextCursor =
      rows.length > q.limit && last !== undefined ? RunStoreInput.encodeCursor({ createdAt: last.createdAt, id: last.id }) : null;
    return { runs: page, nextCursor };
  }

  /** A run's steps in sequence order, payloads as stored text. */
  async readSteps(runId: string, query?: StepQuery): Promise<readonly StoredStep[]> {
    this.#open();
    const q = RunStoreInput.stepQuery(query);
    if (typeof runId !== 'string' || !UUID.test(runId)) return [];
    try {
      const result = await this.#pool.query<StepRow>(
        `SELECT ${STEP_COLUMNS} FROM ${this.#q}.steps WHERE run_id = $1 AND sequence >= $2
         ORDER BY sequence ${q.limit === null ? '' : `LIMIT ${q.limit}`}`,
        [runId, q.fromSequence],
      );
      return result.rows.map(toStep);
    } catch (error) {
      throw storageFailure('readSteps', error);
    }
  }

  /** Per-server health over a time window, from the rollup; ordered by server id. */
  async serverHealth(query?: ServerHealthQuery): Promise<readonly ServerHealth[]> {
    this.#open();
    const q = RunStoreInput.healthQuery(query);
    const plan = planHealthWindow(q.since ?? undefined, q.until ?? undefined);
    const values: unknown[] = [];
    const param = (value: number): string => {
      values.push(value);
      return `$${values.length}::bigint`;
    };
    const parts: string[] = [];
    const causeParts: string[] = [];
    for (const range of plan.buckets) {
      const conditions = [`level = ${range.level}`];
      if (range.from !== null) conditions.push(`bucket_start >= ${param(range.from)}`);
      if (range.to !== null) conditions.push(`bucket_start < ${param(range.to)}`);
      parts.push(
        `SELECT server, ok, failed, cancelled, not_counted, answered, last_failure_at, duration_min, duration_max, histogram
         FROM ${this.#q}.health_rollup WHERE ${conditions.join(' AND ')}`,
      );
      causeParts.push(`SELECT server, cause, calls FROM ${this.#q}.health_causes WHERE ${conditions.join(' AND ')}`);
    }
    for (const range of plan.raw) {
      const conditions = ['call_server IS NOT NULL', 'call_outcome IS NOT NULL'];
      if (range.from !== null) conditions.push(`created_at >= ${param(range.from)}`);
      if (range.to !== null) conditions.push(`created_at < ${param(range.to)}`);
      // call_answered / call_counted were decided by trace's toolCallOf when the step was written
      parts.push(
        `SELECT call_server, (call_outcome = 'ok')::int::bigint, (call_outcome = 'failed')::int::bigint,
                (call_outcome = 'cancelled')::int::bigint, (call_outcome = 'failed' AND NOT call_counted)::int::bigint,
                call_answered::int::bigint, CASE WHEN call_outcome = 'failed' AND call_counted THEN created_at END,
                CASE WHEN call_answered THEN duration_ms END, CASE WHEN call_answered THEN duration_ms END,
                CASE WHEN call_answered THEN ${this.#q}.histogram_one(${this.#q}.duration_bucket(duration_ms))
                     ELSE array_fill(0, ARRAY[${DurationHistogram.SLOTS}]) END
         FROM ${this.#q}.steps WHERE ${conditions.join(' AND ')}`,
      );
      causeParts.push(
        `SELECT call_server, coalesce(call_cause, '${UNKNOWN_FAILURE_CAUSE}'), 1::bigint
         FROM ${this.#q}.steps WHERE ${[...conditions, "call_outcome = 'failed'"].join(' AND ')}`,
      );
    }
    if (parts.length === 0) return [];
    const slots = Array.from({ length: DurationHistogram.SLOTS }, (_, i) => `sum(histogram[${i + 1}])`).join(', ');
    const sql = `SELECT server, sum(ok)::float8 AS ok, sum(failed)::float8 AS failed, sum(cancelled)::float8 AS cancelled,
        sum(not_counted)::float8 AS not_counted, sum(answered)::float8 AS answered,
        max(last_failure_at) AS last_failure_at, min(duration_min) AS duration_min, max(duration_max) AS duration_max,
        ARRAY[${slots}]::float8[] AS histogram
      FROM (${parts.join('\nUNION ALL\n')}) AS p (server, ok, failed, cancelled, not_counted, answered, last_failure_at, duration_min, duration_max, histogram)
      GROUP BY server`;
    const causeSql = `SELECT server, cause, sum(calls)::float8 AS calls
      FROM (${causeParts.join('\nUNION ALL\n')}) AS c (server, cause, calls) GROUP BY server, cause`;
    let rows: HealthRow[];
    let causeRows: { server: string; cause: string; calls: number }[];
    try {
      [rows, causeRows] = await Promise.all([
        this.#pool.query<HealthRow>(sql, values).then((r) => r.rows),
        this.#pool.query<{ server: string; cause: string; calls: number }>(causeSql, values).then((r) => r.rows),
      ]);
    } catch (error) {
      throw storageFailure('serverHealth', error);
    }
    rows.sort((a, b) => (a.server < b.server ? -1 : a.server > b.server ? 1 : 0));
    const exact = await this.#exactPercentiles(rows, q.since, q.until);
    return rows.map((row) => {
      const tally = newServerHealthTally();
      tally.ok = row.ok;
      tally.failed = row.failed;
      tally.cancelled = row.cancelled;
      tally.notCounted = row.not_counted;
      tally.lastFailureAt = row.last_failure_at;
      for (const c of causeRows) if (c.server === row.server) tally.causes.set(c.cause, c.calls);
      const precise = exact.get(row.server);
      return healthOf(
        row.server,
        tally,
        {
          answered: row.answered,
          p50: precise?.p50 ?? DurationHistogram.percentile(row.histogram, 50, row.duration_min, row.duration_max),
          p95: precise?.p95 ?? DurationHistogram.percentile(row.histogram, 95, row.duration_min, row.duration_max),
        },
        q.flaky,
      );
    });
  }

  /**
   * Exact nearest-rank p50/p95 (`percentile_disc`) of the answered calls for the servers with few
   * of them in the window, read from the steps through the (call_server, created_at) index:
   * bounded by {@link EXACT_TOTAL} rows, whatever the window holds.
   */
  async #exactPercentiles(
    rows: readonly HealthRow[],
    since: number | null,
    until: number | null,
  ): Promise<Map<string, { p50: number; p95: number }>> {
    const small = rows
      .map((row) => ({ server: row.server, calls: row.answered }))
      .filter((entry) => entry.calls > 0 && entry.calls <= EXACT_PER_SERVER)
      .sort((a, b) => a.calls - b.calls);
    const servers: string[] = [];
    let total = 0;
    for (const entry of small) {
      if (total + entry.calls > EXACT_TOTAL) break;
      servers.push(entry.server);
      total += entry.calls;
    }
    const exact = new Map<string, { p50: number; p95: number }>();
    if (servers.length === 0) return exact;
    const values: unknown[] = [servers];
    const conditions = ['call_server = ANY ($1::text[])', 'call_outcome IS NOT NULL', 'call_answered'];
    if (since !== null) {
      values.push(Math.ceil(since));
      conditions.push(`created_at >= $${values.length}::bigint`);
    }
    if (until !== null) {
      values.push(Math.ceil(until));
      conditions.push(`created_at < $${values.length}::bigint`);
    }
    try {
      const result = await this.#pool.query<{ server: string; p50: number; p95: number }>(
        `SELECT call_server AS server,
                percentile_disc(0.5) WITHIN GROUP (ORDER BY duration_ms) AS p50,
                percentile_disc(0.95) WITHIN GROUP (ORDER BY duration_ms) AS p95
         FROM ${this.#q}.steps WHERE ${conditions.join(' AND ')} GROUP BY call_server`,
        values,
      );
      for (const row of result.rows) exact.set(row.server, { p50: row.p50, p95: row.p95 });
    } catch (error) {
      throw storageFailure('serverHealth', error);
    }
    return exact;
  }

  /** Calls `onCancel` once when a cancel is requested for the run by any process (NOTIFY, polling as fallback). */
  watchCancel(runId: string, onCancel: () => void): () => void {
    this.#open();
    return this.#watcher.watch(typeof runId === 'string' ? runId.toLowerCase() : runId, onCancel);
  }

  /** Writes a run and its steps exactly as another store holds them, in one transaction; false when the run exists. */
  async importRun(run: StoredRun, steps: readonly StoredStep[]): Promise<boolean> {
    this.#open();
    // from here on: the run and steps as checked, the way every store writes them
    ({ run, steps } = RunStoreInput.importRun(run, steps));
    const id = run.id.toLowerCase();
    const client = await this.#pool.connect().catch((error: unknown) => {
      throw storageFailure('importRun', error);
    });
    let broken = true;
    try {
      await client.query('BEGIN');
      const inserted = await client.query(
        `INSERT INTO ${this.#q}.runs (id, status, configuration, actor, created_at, started_at, finished_at,
           termination_reason, cancel_requested_at, heartbeat_at, unstored_steps)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (id) DO NOTHING RETURNING id`,
        [
          id,
          run.status,
          run.configuration,
          run.actor ?? null,
          ms(run.createdAt),
          msOrNull(run.startedAt),
          msOrNull(run.finishedAt),
          run.terminationReason ?? null,
          msOrNull(run.cancelRequestedAt),
          msOrNull(run.heartbeatAt),
          run.unstoredSteps ?? 0,
        ],
      );
      if (inserted.rowCount === 0) {
        await client.query('ROLLBACK');
        broken = false;
        return false;
      }
      const counts = { ok: 0, failed: 0, cancelled: 0 };
      for (let start = 0; start < steps.length; start += IMPORT_CHUNK) {
        const chunk = steps.slice(start, start + IMPORT_CHUNK);
        const columns = {
          sequence: [] as number[],
          kind: [] as string[],
          round: [] as number[],
          duration: [] as number[],
          createdAt: [] as number[],
          payload: [] as string[],
          server: [] as (string | null)[],
          outcome: [] as (string | null)[],
          callServer: [] as (string | null)[],
          callOutcome: [] as (string | null)[],
          callCause: [] as (string | null)[],
          callAnswered: [] as (boolean | null)[],
          callCounted: [] as (boolean | null)[],
        };
        for (const step of chunk) {
          const call = callColumns(step.kind, step.payload, step.toolServer ?? null, step.toolOutcome ?? null);
          if (call.outcome !== null) counts[call.outcome] += 1;
          columns.sequence.push(step.sequence);
          columns.kind.push(step.kind);
          columns.round.push(step.round);
          columns.duration.push(step.durationMs);
          columns.createdAt.push(ms(step.createdAt));
          columns.payload.push(step.payload);
          columns.server.push(step.toolServer ?? null);
          columns.outcome.push(step.toolOutcome ?? null);
          columns.callServer.push(call.outcome === null ? null : call.server);
          columns.callOutcome.push(call.outcome);
          columns.callCause.push(call.cause);
          columns.callAnswered.push(call.answered);
          columns.callCounted.push(call.counted);
        }
        await client.query(
          `INSERT INTO ${this.#q}.steps (${STEP_INSERT_COLUMNS})
           SELECT $1::uuid, * FROM unnest($2::integer[], $3::text[], $4::integer[], $5::float8[], $6::bigint[], $7::text[],
             $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::boolean[], $14::boolean[])`,
          [
            id,
            columns.sequence,
            columns.kind,
            columns.round,
            columns.duration,
            columns.createdAt,
            columns.payload,
            columns.server,
            columns.outcome,
            columns.callServer,
            columns.callOutcome,
            columns.callCause,
            columns.callAnswered,
            columns.callCounted,
          ],
        );
      }
      await client.query(
        `UPDATE ${this.#q}.runs SET next_sequence = $2, ok_count = $3, failed_count = $4, cancelled_count = $5 WHERE id = $1`,
        [id, steps.length, counts.ok, counts.failed, counts.cancelled],
      );
      await client.query(`SELECT ${this.#q}.rollup_add_runs(ARRAY[$1::uuid])`, [id]);
      await client.query('COMMIT');
      broken = false;
      return true;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw storageFailure('importRun', error);
    } finally {
      client.release(broken);
    }
  }

  /** Stops the cancel watcher and closes the pool. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#watcher.close();
    await this.#pool.end();
  }

  #open(): void {
    if (this.#closed) throw RunStoreError.storageFailure('the store is closed');
  }
}

/** Times are kept in whole milliseconds. */
function ms(value: number): number {
  return Math.floor(value);
}

function msOrNull(value: number | null | undefined): number | null {
  return value === null || value === undefined ? null : ms(value);
}

/**
 * The statement of one append: the run's counter hands out the sequence (the row lock queues
 * concurrent writers of one run), the step is inserted, and the health rollup of its server is
 * updated at every level, in the run's shard — all in one implicit transaction.
 */
function appendStatement(q: string): string {
  const levels = ROLLUP_LEVEL_SIZES.map((size, level) => `(${level}::smallint, ${size}::bigint)`).join(', ');
  return `WITH run AS (
  UPDATE ${q}.runs SET
    next_sequence = next_sequence + 1,
    ok_count = ok_count + ($9::text IS NOT DISTINCT FROM 'ok')::int,
    failed_count = failed_count + ($9::text IS NOT DISTINCT FROM 'failed')::int,
    cancelled_count = cancelled_count + ($9::text IS NOT DISTINCT FROM 'cancelled')::int
  WHERE id = $1::uuid AND ($11::integer IS NULL OR next_sequence = $11::integer)
  RETURNING next_sequence - 1 AS sequence
), step AS (
  INSERT INTO ${q}.steps (run_id, sequence, kind, round, duration_ms, created_at, payload, tool_server, tool_outcome,
    call_server, call_outcome, call_cause, call_answered, call_counted)
  SELECT $1::uuid, run.sequence, $2::text, $3::integer, $4::float8, $5::bigint, $6::text, $7::text, $8::text,
    $10::text, $9::text, $12::text, $13::boolean, $14::boolean FROM run
  RETURNING sequence
), rollup AS (
  -- how the call counts ($13 answered, $14 counted) was decided by trace's toolCallOf
  INSERT INTO ${q}.health_rollup AS h
    (level, bucket_start, server, shard, ok, failed, cancelled, not_counted, answered, last_failure_at,
     duration_min, duration_max, histogram)
  SELECT l.level, ${q}.bucket_start($5::bigint, l.size), $10::text, ${q}.rollup_shard($1::uuid),
    ($9::text = 'ok')::int, ($9::text = 'failed')::int, ($9::text = 'cancelled')::int,
    ($9::text = 'failed' AND NOT $14::boolean)::int, $13::boolean::int,
    CASE WHEN $9::text = 'failed' AND $14::boolean THEN $5::bigint END,
    CASE WHEN $13::boolean THEN $4::float8 END, CASE WHEN $13::boolean THEN $4::float8 END,
    CASE WHEN $13::boolean THEN ${q}.histogram_one(${q}.duration_bucket($4::float8)) ELSE array_fill(0, ARRAY[${DurationHistogram.SLOTS}]) END
  FROM step CROSS JOIN (VALUES ${levels}) AS l (level, size)
  WHERE $10::text IS NOT NULL AND $9::text IS NOT NULL
  ORDER BY l.level
  ON CONFLICT (level, bucket_start, server, shard) DO UPDATE SET
    ok = h.ok + excluded.ok,
    failed = h.failed + excluded.failed,
    cancelled = h.cancelled + excluded.cancelled,
    not_counted = h.not_counted + excluded.not_counted,
    answered = h.answered + excluded.answered,
    last_failure_at = greatest(h.last_failure_at, excluded.last_failure_at),
    duration_min = least(h.duration_min, excluded.duration_min),
    duration_max = greatest(h.duration_max, excluded.duration_max),
    histogram[${q}.duration_bucket($4::float8)] = h.histogram[${q}.duration_bucket($4::float8)] + $13::boolean::int
), causes AS (
  INSERT INTO ${q}.health_causes AS c (level, bucket_start, server, shard, cause, calls)
  SELECT l.level, ${q}.bucket_start($5::bigint, l.size), $10::text, ${q}.rollup_shard($1::uuid),
    coalesce($12::text, '${UNKNOWN_FAILURE_CAUSE}'), 1
  FROM step CROSS JOIN (VALUES ${levels}) AS l (level, size)
  WHERE $10::text IS NOT NULL AND $9::text = 'failed'
  ORDER BY l.level
  ON CONFLICT (level, bucket_start, server, shard, cause) DO UPDATE SET calls = c.calls + 1
)
SELECT sequence FROM step`;
}

function appendValues(runId: string, input: NormalizedAppendStep): unknown[] {
  const call = callColumns(input.kind, input.payload, input.toolServer, input.toolOutcome);
  return [
    runId,
    input.kind,
    input.round,
    input.durationMs,
    ms(input.createdAt),
    input.payloadText,
    input.toolServer,
    input.toolOutcome,
    call.outcome,
    call.outcome === null ? null : call.server,
    input.sequence,
    call.cause,
    call.answered,
    call.counted,
  ];
}

function toRun(row: RunRow): StoredRun {
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
  });
}

function toStep(row: StepRow): StoredStep {
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

