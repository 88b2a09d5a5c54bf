import { performance } from 'node:perf_hooks';
import type Database from 'better-sqlite3';
import type { PruneRunsQuery, PruneRunsResult, RunStatus } from '@runledger/trace';
import {
  checkPruneRunsQuery,
  isPrunableRun,
  MAX_PRUNE_BATCH_RUNS,
  type NormalizedPruneRunsQuery,
  planPruneBatches,
  PruneRunsTally,
} from '@runledger/trace/store';
import { SqlitePrunePace } from './SqlitePrunePace.js';
import type { SqliteHealthPending } from '../health/SqliteHealthPending.js';
import { SqlitePruneRollup } from './SqlitePruneRollup.js';
import { isBusyError } from '../isBusyError.js';
import { syncWal } from '../syncWal.js';
import type { SqliteOpenCalls } from '../SqliteOpenCalls.js';
import { STEP_ROWID } from '../sqliteRows.js';

/** How the store runs a prune's statements: writes through its write queue, reads retried on a lock. */
export interface SqlitePruneAccess {
  write<T>(fn: () => T): Promise<T>;
  read<T>(fn: () => T): Promise<T>;
  /** How many writes the store has committed (the prune's among them): tells the prune of this process's other writers. */
  commits?(): number;
}

/** A run the prune found old, as listed before its batch (checked again inside it). */
interface Candidate {
  readonly rowid: number;
  readonly id: string;
  readonly stepCount: number;
  readonly finishedAt: number | null;
}

/** A run as its batch reads it under the write lock. */
interface RunState {
  readonly runNo: number;
  readonly status: RunStatus;
  readonly finishedAt: number | null;
  readonly stepCount: number;
}

/** Runs listed per read of the candidates: memory stays bounded on any table. */
const CANDIDATE_PAGE = 4 * MAX_PRUNE_BATCH_RUNS;

/**
 * `SqliteRunStore.pruneRuns`: deletes whole runs that ended before the cutoff, in bounded
 * transactions, while other writers go on.
 *
 * @remarks
 * Candidates are listed by rowid outside any transaction (a read in WAL mode blocks no writer),
 * then deleted in batches of whole runs of at most `batchSize` steps, each one `BEGIN IMMEDIATE`
 * transaction that checks every run again (still ended before the cutoff), moves the calls
 * pending for the health rollup in (SqliteHealthPending), deletes the run's steps (one rowid
 * range) and its row, and takes its calls out of the rollup ({@link SqlitePruneRollup}). Each
 * commits without an fsync (`synchronous = NORMAL`, for that transaction only), so the write lock
 * is held for its work alone; the log is synced and checkpointed outside the lock during the pause
 * that follows ({@link syncWal}; while the prune is alone, every 50 ms of them), and synced once
 * more before the prune resolves, so what it says it deleted is durable. The pause ({@link SqlitePrunePace}: as long as the transaction held the
 * lock, 2 ms at least) lets queued appends of this process and writers of other processes (who try
 * every ms) take the lock; without a given `batchSize`, transactions are sized to hold the lock
 * about 0.5 ms (at least 4 steps) while others write, and 10 ms with 1 ms pauses once nobody else has committed for a
 * second (each transaction tells the pace whether anybody did: the file's data version for other
 * connections, the store's commit count for its own other writes). A run with more steps than a batch is hidden first: one
 * transaction deletes its row (readers find no run and no steps, as after the prune), then its
 * steps go in chunks of a batch. A prune killed in between leaves steps without a run, which the
 * next prune deletes first (an orphan sweep over the run numbers of the steps). A run number is
 * never handed out twice (schema 15's `run_counter`), so a run created meanwhile — by this process,
 * another one, or after a restart — never gets the number of steps still waiting to go, whichever
 * run the prunes of several processes delete at once.
 *
 * @internal
 */
export class SqlitePrune {
  readonly #db: Database.Database;
  readonly #access: SqlitePruneAccess;
  readonly #rollup: SqlitePruneRollup;
  readonly #pending: SqliteHealthPending;
  readonly #candidates: Database.Statement;
  readonly #state: Database.Statement;
  readonly #deleteSteps: Database.Statement;
  readonly #deleteRun: Database.Statement;
  readonly #openCalls: SqliteOpenCalls;
  readonly #nextRunNo: Database.Statement;
  readonly #hasRun: Database.Statement;
  readonly #lastSequence: Database.Statement;
  readonly #dataVersion: Database.Statement;
  readonly #now: () => number;
  /** Syncs the WAL file to disk (syncWal; a test passes one that records its calls). */
  readonly #syncWal: (path: string) => Promise<void>;
  /** What the prune's last transaction saw: the file's data version and the store's commits. */
  #seen: { version: number; commits: number } | null = null;

  /** `now`: the pace's clock in ms (tests; performance.now by default); `syncWal`: how the WAL is synced (tests; syncWal by default). */
  constructor(
    db: Database.Database,
    access: SqlitePruneAccess,
    pending: SqliteHealthPending,
    openCalls: SqliteOpenCalls,
    options: { now?: () => number; syncWal?: (path: string) => Promise<void> } = {},
  ) {
    this.#db = db;
    this.#now = options.now ?? (() => performance.now());
    this.#syncWal = options.syncWal ?? syncWal;
    this.#openCalls = openCalls;
    this.#access = access;
    this.#pending = pending;
    this.#rollup = new SqlitePruneRollup(db);
    this.#candidates = db.prepare(
      `SELECT rowid, id, step_count AS stepCount, finished_at AS finishedAt FROM runs
       WHERE rowid > ? AND status <> 'running' AND finished_at IS NOT NULL AND finished_at < ? ORDER BY rowid LIMIT ${CANDIDATE_PAGE}`,
    );
    this.#state = db.prepare('SELECT run_no AS runNo, status, finished_at AS finishedAt, step_count AS stepCount FROM runs WHERE id = ?');
    this.#deleteSteps = db.prepare(`DELETE FROM steps WHERE id >= ${STEP_ROWID} AND id < ${STEP_ROWID}`);
    this.#deleteRun = db.prepare('DELETE FROM runs WHERE id = ?');
    // the run number of the first step at or after a run number (a skip-scan of the steps' rowids)
    this.#nextRunNo = db.prepare('SELECT id >> 32 FROM steps WHERE id >= (? << 32) ORDER BY id LIMIT 1').pluck();
    this.#hasRun = db.prepare('SELECT 1 FROM runs WHERE run_no = ?').pluck();
    // changes when another connection commits (not when this one does)
    this.#dataVersion = db.prepare('PRAGMA data_version').pluck();
    this.#lastSequence = db.prepare('SELECT max(id) - (? << 32) FROM steps WHERE id >= (? << 32) AND id < ((? + 1) << 32)').pluck();
  }

  async prune(query: PruneRunsQuery): Promise<PruneRunsResult> {
    const q = checkPruneRunsQuery(query);
    const pace = new SqlitePrunePace({
      batchSize: query.batchSize === undefined ? undefined : q.batchSize,
      maxSteps: q.batchSize,
      now: this.#now,
    });
    this.#seen = null;
    try {
      return await this.#prune(q, pace);
    } finally {
      // what it deleted is durable before it says so (its transactions commit without an fsync)
      if (!q.dryRun) await this.#syncWal(this.#db.name);
    }
  }

  async #prune(q: NormalizedPruneRunsQuery, pace: SqlitePrunePace): Promise<PruneRunsResult> {
    const tally = new PruneRunsTally();
    if (!q.dryRun && !(await this.#sweepOrphans(q, pace, tally))) return tally.result(q.dryRun, false);
    for (let after = -1; ;) {
      const page = await this.#access.read(() => this.#candidates.all(after, q.olderThan) as Candidate[]);
      // one batch at a time: the pace may size the next one otherwise
      for (let next = 0; next < page.length;) {
        const batch = planPruneBatches(page.slice(next, next + MAX_PRUNE_BATCH_RUNS), pace.steps)[0]!;
        next += batch.length;
        if (q.signal?.aborted === true) return tally.result(q.dryRun, false);
        if (q.dryRun) {
          for (const run of batch) tally.addRun(run.stepCount, run.finishedAt);
          continue;
        }
        const [first] = batch;
        if (batch.length === 1 && first !== undefined && first.stepCount > pace.steps) await this.#pruneBig(first.id, q, pace, tally);
        else await this.#transaction(pace, () => this.#pruneBatch(batch, q, tally));
        await this.#rest(pace);
      }
      const last = page[page.length - 1];
      if (last === undefined || page.length < CANDIDATE_PAGE) break;
      after = last.rowid;
    }
    return tally.result(q.dryRun, true);
  }

  /** One batch of whole runs, inside its transaction; returns the steps it deleted. */
  #pruneBatch(batch: readonly Candidate[], q: NormalizedPruneRunsQuery, tally: PruneRunsTally): number {
    const deleted: [number, number | null][] = [];
    for (const { id } of batch) {
      const run = this.#state.get(id) as RunState | undefined;
      if (run === undefined || !isPrunableRun(run, q.olderThan)) continue;
      this.#rollup.collect(run.runNo, 0, run.stepCount);
      const steps = this.#deleteSteps.run(run.runNo, 0, run.runNo, run.stepCount).changes;
      this.#deleteRun.run(id);
      this.#openCalls.forget(run.runNo);
      deleted.push([steps, run.finishedAt]);
    }
    this.#rollup.subtract();
    // counted once the transaction is sure to commit (a retry on a lock runs it again)
    let total = 0;
    for (const [steps, finishedAt] of deleted) {
      tally.addRun(steps, finishedAt);
      total += steps;
    }
    if (deleted.length > 0) tally.addBatch();
    return total;
  }

  /** A run bigger than a batch: hidden (its row deleted) in one transaction, its steps in chunks after. */
  async #pruneBig(id: string, q: NormalizedPruneRunsQuery, pace: SqlitePrunePace, tally: PruneRunsTally): Promise<void> {
    const hidden = await this.#transaction(pace, () => {
      const run = this.#state.get(id) as RunState | undefined;
      if (run === undefined || !isPrunableRun(run, q.olderThan)) return null;
      // its number is never handed out again (run_counter), so its steps stay its own until they go
      this.#deleteRun.run(id);
      this.#openCalls.forget(run.runNo);
      return run;
    });
    if (hidden === null) return;
    tally.addRun(0, hidden.finishedAt);
    tally.addBatch();
    await this.#deleteStepsOf(hidden.runNo, hidden.stepCount, pace, tally);
  }

  /** Deletes the steps of a run already gone, as many sequences per transaction as the pace says. */
  async #deleteStepsOf(runNo: number, end: number, pace: SqlitePrunePace, tally: PruneRunsTally): Promise<void> {
    for (let from = 0; from < end;) {
      await this.#rest(pace);
      const to = Math.min(end, from + pace.steps);
      const steps = await this.#transaction(pace, () => {
        this.#rollup.collect(runNo, from, to);
        const changes = this.#deleteSteps.run(runNo, from, runNo, to).changes;
        this.#rollup.subtract();
        return changes;
      });
      tally.addSteps(steps);
      if (steps > 0) tally.addBatch();
      from = to;
    }
  }

  /** Finishes the prunes that were killed after hiding a run: steps whose run number no run has. */
  async #sweepOrphans(q: NormalizedPruneRunsQuery, pace: SqlitePrunePace, tally: PruneRunsTally): Promise<boolean> {
    for (let runNo = 0; ; runNo++) {
      const next = await this.#access.read(() => this.#nextRunNo.get(runNo) as number | undefined);
      if (next === undefined) return true;
      runNo = next;
      if ((await this.#access.read(() => this.#hasRun.get(runNo))) !== undefined) continue;
      if (q.signal?.aborted === true) return false;
      const last = await this.#access.read(() => this.#lastSequence.get(runNo, runNo, runNo) as number);
      await this.#deleteStepsOf(runNo, last + 1, pace, tally);
    }
  }

  /**
   * Between two transactions: the pace's pause, while the log is synced (the transactions committed
   * without an fsync) and copied into the database file — after every transaction while others
   * write, now and then while the prune is alone ({@link SqlitePrunePace.syncDue}).
   */
  async #rest(pace: SqlitePrunePace): Promise<void> {
    if (!pace.syncDue) return pace.pause();
    await Promise.all([pace.pause(), this.#syncWal(this.#db.name), this.#checkpoint()]);
    pace.synced();
  }

  /**
   * Copies the log into the database file outside the write lock (a passive checkpoint: it waits
   * for no one and copies what no reader still needs), a transaction's pages at a time. Left to
   * SQLite, the commit that takes the log past 1000 pages copies them all in one go — often an
   * append of another process, which then waits for it — and the writes and fsync of 4 MB delay
   * the fsyncs of every writer meanwhile.
   */
  async #checkpoint(): Promise<void> {
    // after the commit's own callbacks: the pause's timer is set first
    await new Promise((resolve) => setImmediate(resolve));
    try {
      this.#db.pragma('wal_checkpoint(PASSIVE)');
    } catch (error) {
      // another connection is checkpointing: it copies the pages instead
      if (!isBusyError(error)) throw error;
    }
  }

  /**
   * Whether another writer committed since the prune's last transaction: another connection (the
   * file's data version moved) or another write of this store (its commits counted more than the
   * prune's own). Under the write lock, at the start of a transaction.
   */
  #othersWrote(): boolean {
    const seen = { version: this.#dataVersion.get() as number, commits: this.#access.commits?.() ?? 0 };
    const last = this.#seen;
    this.#seen = seen;
    // the store counts the prune's last transaction once it committed
    return last !== null && (seen.version !== last.version || seen.commits > last.commits + 1);
  }

  /**
   * Runs `fn` in one `BEGIN IMMEDIATE` transaction and tells the pace how long it held the lock (a
   * number `fn` returns is the steps it deleted).
   */
  #transaction<T>(pace: SqlitePrunePace, fn: () => T): Promise<T> {
    return this.#access.write(() => {
      let locked = 0;
      let othersWrote = false;
      // committed without an fsync under the write lock: #rest syncs the log after it, outside the lock;
      // and without SQLite's automatic checkpoint, which a commit runs (with two fsyncs, under the lock)
      // while the log holds over 1000 pages — as it does while readers keep it from starting over:
      // #rest checkpoints outside the lock instead (the longest 1 % of transactions held it 7.4 ms
      // with it, 4.0 ms without, beside 4 recorders)
      const synchronous = this.#db.pragma('synchronous', { simple: true }) as number;
      const autoCheckpoint = this.#db.pragma('wal_autocheckpoint', { simple: true }) as number;
      this.#db.pragma('synchronous = NORMAL');
      this.#db.pragma('wal_autocheckpoint = 0');
      try {
        const value = this.#db
          .transaction(() => {
            locked = performance.now();
            othersWrote = this.#othersWrote();
            // a call still pending is in no rollup row to take it out of: all of them go in first
            this.#pending.roll();
            return fn();
          })
          .immediate();
        pace.learn(typeof value === 'number' ? value : 0, performance.now() - locked, othersWrote);
        return value;
      } catch (error) {
        this.#rollup.reset();
        throw error;
      } finally {
        this.#db.pragma(`wal_autocheckpoint = ${autoCheckpoint}`);
        this.#db.pragma(`synchronous = ${synchronous}`);
      }
    });
  }
}
