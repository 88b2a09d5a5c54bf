// The run ledger of a PostgresRunStore (the sibling of store-sqlite's SqliteLedger): a run's life
// from createRun to its end — appends, cancel, heartbeats, recovery — and the reads of one run.
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
  storedRunOfRow,
  type StoredRunRow,
} from '@runledger/trace/store';
import {
  type OpenCallsRead,
  RunTerminationKind,
  type AppendStepInput,
  type CancelRequestInput,
  checkCancelRequest,
  type CreateRunInput,
  type FinishRunInput,
  RunStoreError,
  type StepQuery,
  type StoredRun,
  type StoredStep,
} from '@runledger/trace';
import type pg from 'pg';
import type { PostgresAccess } from '../PostgresAccess.js';
import { PostgresCancelWatch } from '../PostgresCancelWatch.js';
import { PostgresGroupCommit } from '../PostgresGroupCommit.js';
import type { PostgresHealthPending } from '../health/PostgresHealthPending.js';
import { readOpenCallsOf, readOpenCallsStatement } from '../PostgresOpenCalls.js';
import { ms, RUN_COLUMNS } from '../postgresRows.js';
import { appendStatement, appendValues } from './appendStatement.js';
import { readStepsOf, type StepsReadContext } from './PostgresStepsRead.js';
import { repeatedAppend } from './repeatedAppend.js';

/** What the ledger needs besides the database: the health rollup's pending calls, the cancel channel's schema and connections, and how it commits. */
export interface PostgresLedgerParts {
  readonly pending: PostgresHealthPending;
  /** The store's schema (unquoted): its cancel channel is named after it. */
  readonly schema: string;
  /** A new connection for LISTEN (the cancel watch's own, off the pool). */
  readonly connect: () => Promise<pg.Client>;
  /** How often a watch polls while its LISTEN connection is down, in ms. */
  readonly cancelPollMs: number;
  /** Group commit: concurrent appends of different runs share one statement (PostgresGroupCommit). */
  readonly groupCommit: boolean;
}

/**
 * The run-ledger methods of a PostgresRunStore: each write one statement (one transaction) on the
 * run's locked row, appends grouped into one statement when group commit is on, each read timed.
 *
 * @internal
 */
export class PostgresLedger {
  readonly #access: PostgresAccess;
  readonly #pool: pg.Pool;
  readonly #q: string;
  readonly #queryTimeoutMs: number;
  readonly #channel: string;
  readonly #appendName: string;
  readonly #appendText: string;
  readonly #pending: PostgresHealthPending;
  readonly #batcher: PostgresGroupCommit | null;
  readonly #readOpenCallsText: string;
  readonly #stepsRead: StepsReadContext;
  /** The cancel watch (the package's tests reach it through PostgresRunStoreInternals). */
  readonly watcher: PostgresCancelWatch;

  constructor(access: PostgresAccess, { pending, schema, connect, cancelPollMs, groupCommit }: PostgresLedgerParts) {
    const { pool, q: quoted, queryTimeoutMs } = access;
    this.#access = access;
    this.#pool = pool;
    this.#q = quoted;
    this.#queryTimeoutMs = queryTimeoutMs;
    this.#pending = pending;
    this.#stepsRead = { pool, q: quoted, timeoutMs: queryTimeoutMs };
    this.#batcher = groupCommit ? new PostgresGroupCommit(pool, quoted, { queryTimeoutMs }) : null;
    this.#readOpenCallsText = readOpenCallsStatement(quoted);
    this.#channel = `rlc_${schema}`.slice(0, 63);
    this.#appendName = 'runledger_append_step';
    this.#appendText = appendStatement(quoted);
    this.watcher = new PostgresCancelWatch({
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
    const { termination: given, cancelledTermination: cancelled } = input;
    if (checkRunId(runId) === null) throw RunStoreError.runNotFound(runId);
    try {
      // The cancel and the finish are decided here, in one statement on the locked row: a cancel
      // requested while the run was running makes it end cancelled, whatever the finish asked for.
      const result = await this.#timed<StoredRunRow>(
        `UPDATE ${this.#q}.runs SET
           status = CASE WHEN cancel_requested_at IS NULL THEN $2 ELSE 'cancelled' END,
           finished_at = $3,
           termination_kind = CASE WHEN cancel_requested_at IS NULL THEN $4 ELSE $5 END,
           termination_facts = CASE WHEN cancel_requested_at IS NULL THEN $6 ELSE $7 END,
           termination_reason = CASE WHEN cancel_requested_at IS NULL THEN $8 ELSE $9 END,
           unstored_steps = unstored_steps + $10
         WHERE id = $1 AND status = 'running' RETURNING ${RUN_COLUMNS}`,
        [
          runId,
          input.status,
          ms(input.finishedAt),
          given.termination_kind,
          cancelled.termination_kind,
          given.termination_facts,
          cancelled.termination_facts,
          given.termination_reason,
          cancelled.termination_reason,
          input.unstoredSteps,
        ],
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
             AND (status = $2 OR (status = 'cancelled' AND termination_kind IS NOT DISTINCT FROM $5
               AND termination_facts IS NOT DISTINCT FROM $6 AND termination_reason IS NOT DISTINCT FROM $7)))
           AND NOT (late_finish_status IS NOT DISTINCT FROM $2 AND late_finish_at IS NOT DISTINCT FROM $3)
         RETURNING ${RUN_COLUMNS}`,
        [
          runId,
          input.status,
          ms(input.finishedAt),
          input.unstoredSteps,
          cancelled.termination_kind,
          cancelled.termination_facts,
          cancelled.termination_reason,
        ],
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
  async requestCancel(runId: string, at?: number, request?: CancelRequestInput): Promise<StoredRun> {
    this.#open();
    const when = checkRequestCancelAt(at, Date.now());
    const asked = checkCancelRequest(request);
    if (checkRunId(runId) === null) throw RunStoreError.runNotFound(runId);
    try {
      // One statement, one transaction: the NOTIFY is delivered when the mark commits.
      await this.#timed(
        // on a finished run the request is kept as a late one (isLateCancel), without a notify
        `WITH marked AS (
           UPDATE ${this.#q}.runs SET cancel_requested_at = $2, cancel_from = $4, cancel_by = $5, cancel_reason = $6
           WHERE id = $1 AND cancel_requested_at IS NULL AND pruned_at IS NULL RETURNING id, status
         )
         SELECT pg_notify($3, id::text) FROM marked WHERE status = 'running'`,
        [runId, when, this.#channel, asked?.from ?? null, asked?.by ?? null, asked?.reason ?? null],
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
           termination_kind = $3::text,
           termination_facts = format('{"since":%s,"cancelRequested":%s}', coalesce(heartbeat_at, started_at, created_at),
             CASE WHEN cancel_requested_at IS NULL THEN 'false' ELSE 'true' END),
           termination_reason = NULL
         WHERE status = 'running' AND coalesce(heartbeat_at, started_at, created_at) < $1::double precision
         RETURNING id`,
        [stale, Date.now(), RunTerminationKind.NO_SIGN_OF_LIFE],
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

  /** Calls `onCancel` once when a cancel is requested for the run by any process (NOTIFY, polling as fallback). */
  watchCancel(runId: string, onCancel: () => void): () => void {
    this.#open();
    return this.watcher.watch(checkRunId(runId) ?? runId, onCancel);
  }

  /** Stops the cancel watch and waits for the appends in flight. */
  async close(): Promise<void> {
    await this.watcher.close();
    await this.#batcher?.idle();
  }

  /** Counts a stored append's call as pending (values[8] / values[9]: its outcome and server, when health counts it). */
  #appended(values: readonly unknown[]): void {
    if (values[8] !== null && values[9] !== null) this.#pending.noted();
  }

  #timed<R extends pg.QueryResultRow>(text: string, values: readonly unknown[], name?: string): Promise<pg.QueryResult<R>> {
    return this.#access.timed<R>(text, values, name);
  }

  #failure(what: string, error: unknown): RunStoreError {
    return this.#access.failure(what, error);
  }

  #open(): void {
    this.#access.open();
  }
}
