import type pg from 'pg';
import type { PruneRunsQuery, PruneRunsResult, RunStatus } from '@runledger/trace';
import {
  checkPruneRunsQuery,
  isPrunableRun,
  MAX_PRUNE_BATCH_RUNS,
  type NormalizedPruneRunsQuery,
  planPruneBatches,
  PruneRunsTally,
} from '@runledger/trace/store';
import { type DeletedCall, PostgresPruneRollup } from './PostgresPruneRollup.js';
import { withTransaction } from '../withTransaction.js';
import { ROLLUP_LOCK_KEY } from '../health/PostgresHealthPending.js';
import { storageFailure } from '../storageFailure.js';

/** A run the prune found old, as listed before its batch (checked again inside it). */
interface Candidate {
  readonly id: string;
  readonly stepCount: number;
  readonly finishedAt: number;
}

/** A run as its batch reads it, locked. */
interface RunState {
  readonly id: string;
  readonly status: RunStatus;
  readonly finishedAt: number | null;
  readonly stepCount: number;
}

/** What one delete of steps returned: steps per run, and the tool calls among them. */
interface Deleted {
  readonly counts: [string, number][];
  readonly calls: DeletedCall[];
}

/**
 * Steps per transaction when the caller gives no `batchSize`: a PostgreSQL transaction's commit
 * flushes the WAL its deletes wrote (full-page images after a checkpoint), and every append that
 * commits meanwhile waits for that flush; at 2000 steps the recorders' p99 beside a prune of
 * 1 000 000 steps was 2.0–2.4× their p99 without it, at 500 it was 1.25–1.5× (docs/benchmarks.md).
 */
export const POSTGRES_PRUNE_BATCH_STEPS = 500;
/** Runs listed per read of the candidates: memory stays bounded on any table. */
const CANDIDATE_PAGE = 4 * MAX_PRUNE_BATCH_RUNS;
/** A batch that lost a deadlock is tried again this many times in all. */
const ATTEMPTS = 20;
/** deadlock_detected, serialization_failure: the transaction was rolled back whole and may be run again. */
const RETRYABLE = new Set(['40P01', '40001']);
const NO_UUID = '00000000-0000-0000-0000-000000000000';

/**
 * `PostgresRunStore.pruneRuns`: deletes whole runs that ended before the cutoff, in bounded
 * transactions, while appends, reads and other prunes go on.
 *
 * @remarks
 * Candidates are listed by end time (`runs_ended`) outside any transaction, a page at a time, then
 * deleted in batches of whole runs of at most `batchSize` steps ({@link POSTGRES_PRUNE_BATCH_STEPS}
 * when the caller gives none), each one transaction that locks
 * its runs (`FOR UPDATE`, row locks only), checks every run again (still ended before the cutoff,
 * not hidden), deletes their steps and rows and takes their calls out of the health rollup
 * ({@link PostgresPruneRollup}) — a call still pending for the rollup (PostgresHealthPending) is
 * deleted from `health_pending` with its step instead, and each batch holds the rollup's advisory
 * lock, so no move of pending calls runs beside it. An append to a run being deleted waits for the row and
 * then finds no run. A run with more steps than a batch is hidden first: one transaction sets its
 * `pruned_at` (readers find no run and no steps, appends no run), then its steps go in chunks of
 * `batchSize`, the last chunk with its row. A prune stopped in between (killed, its connection
 * lost, its signal aborted) leaves a hidden run, which the next prune finishes first. Locks are
 * taken in an append's order (runs, steps), then `health_causes` rows and `health_rollup` rows,
 * each in key order; a batch that still loses a deadlock (to an import) is rolled back and run again.
 *
 * @internal
 */
export class PostgresPrune {
  readonly #pool: pg.Pool;
  readonly #q: string;
  readonly #rollup: PostgresPruneRollup;

  constructor(pool: pg.Pool, q: string) {
    this.#pool = pool;
    this.#q = q;
    this.#rollup = new PostgresPruneRollup(q);
  }

  async prune(query: PruneRunsQuery): Promise<PruneRunsResult> {
    const checked = checkPruneRunsQuery(query);
    const q = query.batchSize === undefined ? { ...checked, batchSize: Math.min(checked.batchSize, POSTGRES_PRUNE_BATCH_STEPS) } : checked;
    const tally = new PruneRunsTally();
    if (!q.dryRun && !(await this.#finishHidden(q, tally))) return tally.result(q.dryRun, false);
    for (let after: Candidate | null = null; ;) {
      const page = await this.#candidates(q.olderThan, after);
      for (const batch of planPruneBatches(page, q.batchSize)) {
        if (q.signal?.aborted === true) return tally.result(q.dryRun, false);
        if (q.dryRun) {
          for (const run of batch) tally.addRun(run.stepCount, run.finishedAt);
          continue;
        }
        const [first] = batch;
        const done =
          batch.length === 1 && first !== undefined && first.stepCount > q.batchSize
            ? await this.#pruneBig(first.id, q, tally)
            : await this.#pruneBatch(batch, q, tally);
        if (!done) return tally.result(q.dryRun, false);
      }
      const last = page[page.length - 1];
      if (last === undefined || page.length < CANDIDATE_PAGE) break;
      after = last;
    }
    return tally.result(q.dryRun, true);
  }

  /** One page of runs that ended before the cutoff and are not hidden, by end time, after `after`. */
  async #candidates(olderThan: number, after: Candidate | null): Promise<Candidate[]> {
    try {
      const result = await this.#pool.query<Candidate>(
        `SELECT id, next_sequence AS "stepCount", finished_at AS "finishedAt" FROM ${this.#q}.runs
         WHERE status <> 'running' AND finished_at < $1::bigint AND pruned_at IS NULL AND (finished_at, id) > ($2::bigint, $3::uuid)
         ORDER BY finished_at, id LIMIT ${CANDIDATE_PAGE}`,
        [olderThan, after?.finishedAt ?? -1, after?.id ?? NO_UUID],
      );
      return result.rows;
    } catch (error) {
      throw storageFailure('pruneRuns', error);
    }
  }

  /** Locks the runs that are not hidden and returns the ones still to prune. */
  async #lockPrunable(client: pg.PoolClient, ids: readonly string[], olderThan: number): Promise<RunState[]> {
    const result = await client.query<RunState>(
      `SELECT id, status, finished_at AS "finishedAt", next_sequence AS "stepCount" FROM ${this.#q}.runs
       WHERE id = ANY ($1::uuid[]) AND pruned_at IS NULL ORDER BY id FOR UPDATE`,
      [ids],
    );
    return result.rows.filter((run) => isPrunableRun(run, olderThan));
  }

  /** One batch of whole runs in one transaction; false when stopped. */
  async #pruneBatch(batch: readonly Candidate[], q: NormalizedPruneRunsQuery, tally: PruneRunsTally): Promise<boolean> {
    const deleted = await this.#transaction(async (client) => {
      const runs = await this.#lockPrunable(
        client,
        batch.map((run) => run.id),
        q.olderThan,
      );
      if (runs.length === 0) return [];
      const ids = runs.map((run) => run.id);
      const gone = await this.#deleteSteps(client, 'run_id = ANY ($1::uuid[])', [ids]);
      await client.query(`DELETE FROM ${this.#q}.runs WHERE id = ANY ($1::uuid[])`, [ids]);
      await client.query(`DELETE FROM ${this.#q}.open_calls WHERE run_id = ANY ($1::uuid[])`, [ids]);
      await this.#rollup.subtract(client, gone.calls);
      const steps = new Map(gone.counts);
      return runs.map((run): [number, number | null] => [steps.get(run.id) ?? 0, run.finishedAt]);
    });
    // counted once committed (a batch that lost a deadlock ran again)
    for (const [steps, finishedAt] of deleted) tally.addRun(steps, finishedAt);
    if (deleted.length > 0) tally.addBatch();
    return true;
  }

  /** A run bigger than a batch: hidden in one transaction, its steps deleted in chunks after; false when stopped. */
  async #pruneBig(id: string, q: NormalizedPruneRunsQuery, tally: PruneRunsTally): Promise<boolean> {
    const hidden = await this.#transaction(async (client) => {
      const [run] = await this.#lockPrunable(client, [id], q.olderThan);
      if (run === undefined) return null;
      await client.query(`UPDATE ${this.#q}.runs SET pruned_at = $2 WHERE id = $1`, [id, Date.now()]);
      return run;
    });
    if (hidden === null) return true;
    tally.addRun(0, hidden.finishedAt);
    tally.addBatch();
    return this.#deleteHidden(id, hidden.stepCount, q, tally);
  }

  /**
   * Deletes the steps of a hidden run, `batchSize` sequences per transaction, and with the last of
   * them its row; false when the signal stopped it first (the next prune goes on from there).
   */
  async #deleteHidden(id: string, stepCount: number, q: NormalizedPruneRunsQuery, tally: PruneRunsTally): Promise<boolean> {
    for (let from = 0; ; from += q.batchSize) {
      if (q.signal?.aborted === true) return false;
      const to = from + q.batchSize;
      const last = to >= stepCount;
      const steps = await this.#transaction(async (client) => {
        // one prune at a time per hidden run; gone when another prune finished it
        const found = await client.query(`SELECT 1 FROM ${this.#q}.runs WHERE id = $1 AND pruned_at IS NOT NULL FOR UPDATE`, [id]);
        if (found.rowCount === 0) return null;
        const gone = last
          ? await this.#deleteSteps(client, 'run_id = $1 AND sequence >= $2', [id, from])
          : await this.#deleteSteps(client, 'run_id = $1 AND sequence >= $2 AND sequence < $3', [id, from, to]);
        if (last) {
          await client.query(`DELETE FROM ${this.#q}.runs WHERE id = $1`, [id]);
          await client.query(`DELETE FROM ${this.#q}.open_calls WHERE run_id = $1`, [id]);
        }
        await this.#rollup.subtract(client, gone.calls);
        return gone.counts.reduce((sum, [, n]) => sum + n, 0);
      });
      if (steps === null) return true;
      tally.addSteps(steps);
      if (steps > 0 || last) tally.addBatch();
      if (last) return true;
    }
  }

  /** Finishes the prunes that stopped after hiding a run; false when the signal stopped it first. */
  async #finishHidden(q: NormalizedPruneRunsQuery, tally: PruneRunsTally): Promise<boolean> {
    let hidden: { id: string; stepCount: number }[];
    try {
      hidden = (
        await this.#pool.query<{ id: string; stepCount: number }>(
          `SELECT id, next_sequence AS "stepCount" FROM ${this.#q}.runs WHERE pruned_at IS NOT NULL ORDER BY id`,
        )
      ).rows;
    } catch (error) {
      throw storageFailure('pruneRuns', error);
    }
    for (const run of hidden) {
      if (!(await this.#deleteHidden(run.id, run.stepCount, q, tally))) return false;
    }
    return true;
  }

  /** Deletes the steps matching `where` and returns what the rollup and the tally need. */
  async #deleteSteps(client: pg.PoolClient, where: string, values: unknown[]): Promise<Deleted> {
    const result = await client.query<Deleted>(
      `WITH gone AS (
         DELETE FROM ${this.#q}.steps WHERE ${where}
       RETURNING run_id, sequence, created_at, call_server, call_outcome, call_cause, call_answered, call_counted, duration_ms, call_tool
       ), unmoved AS (
         -- calls still pending for the rollup: they go with their steps, and are in no rollup row to take out of
         DELETE FROM ${this.#q}.health_pending p USING gone g WHERE p.run_id = g.run_id AND p.sequence = g.sequence
       RETURNING p.run_id, p.sequence
       )
       SELECT
         (SELECT coalesce(json_agg(json_build_array(run_id, n)), '[]') FROM (SELECT run_id, count(*) AS n FROM gone GROUP BY run_id) c) AS counts,
         (SELECT coalesce(json_agg(json_build_array(call_server, created_at, ${this.#q}.rollup_shard(run_id), call_outcome, call_cause,
                   call_answered, call_counted, CASE WHEN call_answered THEN ${this.#q}.duration_bucket(duration_ms) END, duration_ms,
                   call_tool)), '[]')
          FROM gone g WHERE call_server IS NOT NULL AND call_outcome IS NOT NULL
            AND NOT EXISTS (SELECT 1 FROM unmoved u WHERE u.run_id = g.run_id AND u.sequence = g.sequence)) AS calls`,
      values,
    );
    return result.rows[0]!;
  }

  /** Runs `fn` in one transaction on one connection; a deadlock or serialization failure runs it again. */
  async #transaction<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await withTransaction(this.#pool, async (client) => {
          // no move of pending calls into the rollup while this transaction changes rollup rows
          await client.query(`SELECT pg_advisory_xact_lock(${ROLLUP_LOCK_KEY})`, [this.#q]);
          return fn(client);
        });
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        if (!(typeof code === 'string' && RETRYABLE.has(code) && attempt < ATTEMPTS)) throw storageFailure('pruneRuns', error);
      }
      // what held the rows finishes meanwhile
      await new Promise((resolve) => setTimeout(resolve, attempt * (1 + Math.random() * 4)));
    }
  }
}
