import pg from 'pg';
import { APPEND_VALUE_COUNT, appendBatchStatement } from './ledger/appendStatement.js';
import { timedQuery } from './postgresConnections.js';
import { storageFailure } from './storageFailure.js';
import { RunStoreError } from '@runledger/trace';

/** At most this many appends share one statement; the next ones go in the next. */
export const BATCH_MAX_APPENDS = 256;
/** A batch closes once its payloads carry this many characters: one statement stays short. */
export const BATCH_MAX_CHARS = 2 * 1024 * 1024;
/** A batch on its way for longer than this (a connection gone silent) no longer holds up the appends after it: they run alone. */
export const BATCH_STALL_MS = 2_000;

/** Index of the run id, the payload text and the expected sequence in an append's values (see appendValues). */
const RUN_ID = 0;
const PAYLOAD = 5;
const EXPECTED_SEQUENCE = 10;

/** An append waiting for its batch: its values, and what settles its promise. */
interface Queued {
  readonly values: unknown[];
  readonly resolve: (sequence: number | null) => void;
  readonly reject: (error: unknown) => void;
}

/** Options of a {@link PostgresGroupCommit}. @internal */
export interface GroupCommitOptions {
  /** How long a batch statement waits for its answer before pg drops its connection (PostgresRunStoreOptions.queryTimeoutMs). */
  readonly queryTimeoutMs: number;
  /** How long a batch may be on its way before the appends behind it run alone; default {@link BATCH_STALL_MS}. */
  readonly stallMs?: number;
}

/**
 * Group commit for PostgreSQL: the appends of different runs that arrive while a batch is on its
 * way (or in the same turn of the event loop) share one statement and one commit
 * ({@link appendBatchStatement}); each resolves only once that commit is done.
 *
 * @remarks
 * One batch runs at a time; appends that arrive meanwhile gather into the next, so under load
 * batches grow to the number of runs recording at once, and alone an append waits for nothing (a
 * batch of one is the caller's to run, with the single-append statement). A batch holds at most
 * one append per run (a second waits for the next batch, so a run's appends keep their order).
 * {@link PostgresGroupCommit.append} resolves with the sequence, or with null when the caller
 * must run the append alone: its batch held only it, its run was missing, hidden or at another
 * sequence (the single statement then says which, and stores a repeated step idempotently), or
 * the batch statement failed with an error from the server (nothing of it was committed, so
 * running each alone is safe), or the batch on its way has taken longer than {@link BATCH_STALL_MS} (a connection gone silent must not
 * hold up every run: the pool has other connections, and a retry of an append that timed out
 * names its sequence, so it is stored once whichever try gets through). A caller that sends a
 * run's appends without awaiting each may then see a later one run before an earlier one still in
 * the stalled batch (the recorder awaits each append, so its runs keep their order). A batch whose
 * outcome is unknown — its connection died or gave no answer within `queryTimeoutMs`, so the
 * server may have committed it — hands back only the appends that named their sequence (run alone
 * they find their step stored, or store it once); one that did not is rejected with
 * `storage_failure`, as the single statement's caller would be, never stored a second time.
 *
 * @internal
 */
export class PostgresGroupCommit {
  readonly #pool: pg.Pool;
  readonly #text: string;
  /** Appends waiting for the next batch, in arrival order. */
  #waiting: Queued[] = [];
  #running = false;
  /** The batch on its way has taken longer than stallMs: appends run alone until it answers. */
  #stalled = false;
  readonly #stallMs: number;
  readonly #queryTimeoutMs: number;
  #scheduled = false;
  /** The flush scheduled or running, if any (it schedules the next before it ends when appends wait). */
  #next: Promise<void> | null = null;

  constructor(pool: pg.Pool, quotedSchema: string, options: GroupCommitOptions) {
    this.#pool = pool;
    this.#stallMs = options.stallMs ?? BATCH_STALL_MS;
    this.#queryTimeoutMs = options.queryTimeoutMs;
    this.#text = appendBatchStatement(quotedSchema);
  }

  /** Queues an append (its values, see appendValues); resolves with its sequence, or null: run it alone. */
  append(values: unknown[]): Promise<number | null> {
    // nothing may wait behind a batch whose connection went silent: the pool has others
    if (this.#stalled) return Promise.resolve(null);
    return new Promise<number | null>((resolve, reject) => {
      this.#waiting.push({ values, resolve, reject });
      this.#schedule();
    });
  }

  /** Resolves once no batch runs or waits. */
  async idle(): Promise<void> {
    while (this.#next !== null) await this.#next;
  }

  #schedule(): void {
    if (this.#running || this.#scheduled) return;
    this.#scheduled = true;
    // the appends of this turn join the batch
    const next = new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
      this.#scheduled = false;
      await this.#flush();
    });
    this.#next = next;
    void next.finally(() => {
      if (this.#next === next) this.#next = null;
    });
  }

  /**
   * Runs the next batch; never rejects, and settles every append it takes: a failed batch hands
   * its appends back to their callers, and a fault of the batcher itself (none is known) settles
   * them as a batch whose outcome is unknown, so no error escapes and no caller waits forever.
   */
  async #flush(): Promise<void> {
    let batch: Queued[] = [];
    let stored = new Map<number, number>();
    /** Set when the batch's outcome is unknown (it may have committed): holds what was thrown, which may be anything, null too. */
    let unknown: { readonly thrown: unknown } | null = null;
    try {
      batch = this.#take();
      if (batch.length === 1) batch[0]!.resolve(null);
      if (batch.length <= 1) return;
      this.#running = true;
      const stall = setTimeout(() => this.#stall(), this.#stallMs);
      stall.unref();
      try {
        const columns = Array.from({ length: APPEND_VALUE_COUNT }, (_, k) => batch.map((queued) => queued.values[k]));
        const result = await this.#pool.query<{ ord: number; sequence: number }>(
          timedQuery(this.#text, columns, this.#queryTimeoutMs, 'runledger_append_batch'),
        );
        stored = new Map(result.rows.map((row) => [row.ord, row.sequence]));
      } catch (error) {
        // the server's error: rolled back whole, each append runs alone and fails or succeeds on its own;
        // anything else (a dead or silent connection, a value pg cannot send) may have come after the commit
        if (!(error instanceof pg.DatabaseError)) unknown = { thrown: error };
      } finally {
        clearTimeout(stall);
        this.#running = false;
        this.#stalled = false;
      }
    } catch (error) {
      unknown = { thrown: error };
      // nothing taken: what waits goes to its callers, or the next flush would meet the same fault
      if (batch.length === 0) batch = this.#waiting.splice(0);
    } finally {
      this.#settle(batch, stored, unknown);
      if (this.#waiting.length > 0) this.#schedule();
    }
  }

  /** Settles a batch's appends (a promise settles once: those settled already stay as they are). */
  #settle(batch: readonly Queued[], stored: ReadonlyMap<number, number>, unknown: { readonly thrown: unknown } | null): void {
    const failure = unknown === null ? null : this.#failure(unknown.thrown);
    batch.forEach((queued, i) => {
      if (failure !== null && queued.values[EXPECTED_SEQUENCE] === null) queued.reject(failure);
      else queued.resolve(stored.get(i + 1) ?? null);
    });
  }

  /** The `storage_failure` of a batch whose outcome is unknown, also when what was thrown cannot be shown (String() of it throws). */
  #failure(thrown: unknown): RunStoreError {
    try {
      return storageFailure('appendStep', thrown, this.#queryTimeoutMs);
    } catch {
      return RunStoreError.storageFailure(
        'PostgreSQL appendStep failed: the driver threw a value that is not an Error and cannot be shown',
        thrown,
      );
    }
  }

  /** The batch on its way did not answer within stallMs: what waits behind it, and what comes until it answers, runs alone. */
  #stall(): void {
    this.#stalled = true;
    for (const queued of this.#waiting.splice(0)) queued.resolve(null);
  }

  /** The next batch: the waiting appends in order, one per run, up to the limits; the rest wait. */
  #take(): Queued[] {
    const batch: Queued[] = [];
    const later: Queued[] = [];
    const runs = new Set<unknown>();
    let chars = 0;
    for (const queued of this.#waiting) {
      const run = queued.values[RUN_ID];
      const payload = queued.values[PAYLOAD];
      const size = typeof payload === 'string' ? payload.length : 0;
      if (runs.has(run) || batch.length >= BATCH_MAX_APPENDS || (batch.length > 0 && chars + size > BATCH_MAX_CHARS)) {
        later.push(queued);
        continue;
      }
      runs.add(run);
      chars += size;
      batch.push(queued);
    }
    this.#waiting = later;
    return batch;
  }
}
