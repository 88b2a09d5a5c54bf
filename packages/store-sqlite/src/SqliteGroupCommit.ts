import type Database from 'better-sqlite3';
import type { GroupRunner } from './WriteQueue.js';
import { RunStoreError } from '@runledger/trace';

/** At most this many writes share one commit; the next ones start the next batch. */
export const GROUP_MAX_WRITES = 256;
/** A batch closes once its writes carry this many bytes (of payload text): one commit stays short. */
export const GROUP_MAX_BYTES = 2 * 1024 * 1024;

/** What one write of a batch came to: its value, or the error that refused it (and only it). */
export type BatchOutcome = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: unknown };

/**
 * Runs a batch of writes in ONE `BEGIN IMMEDIATE … COMMIT` (one WAL fsync with `synchronous =
 * FULL`), each write in its own savepoint (a batch of one write needs none: the transaction is its
 * own).
 *
 * @remarks
 * A write that refuses with a {@link RunStoreError} (unknown run, sequence conflict, …) is rolled
 * back to its savepoint and only it is refused; the others commit. Any other failure (a driver
 * error: disk full, I/O error, a lock) may have rolled back the whole transaction, so it ends the
 * batch: everything is rolled back and `run` throws — nothing of the batch is committed, and
 * running the batch again is safe.
 *
 * @internal
 */
export class SqliteGroupCommit implements GroupRunner {
  readonly maxWrites: number = GROUP_MAX_WRITES;
  readonly maxBytes: number = GROUP_MAX_BYTES;
  readonly #db: Database.Database;
  readonly #begin: Database.Statement;
  readonly #commit: Database.Statement;
  readonly #rollback: Database.Statement;
  readonly #savepoint: (write: () => unknown) => unknown;

  constructor(db: Database.Database) {
    this.#db = db;
    this.#begin = db.prepare('BEGIN IMMEDIATE');
    this.#commit = db.prepare('COMMIT');
    this.#rollback = db.prepare('ROLLBACK');
    // inside the batch's transaction, better-sqlite3 runs a transaction function as a savepoint
    this.#savepoint = db.transaction((write: () => unknown) => write());
  }

  /** Runs the writes in order in one transaction and commits it; throws (all rolled back) when the batch as a whole failed. */
  run(writes: readonly (() => unknown)[]): BatchOutcome[] {
    // a write alone needs no savepoint: its refusal rolls back the transaction, which is only its own
    if (writes.length === 1) return [this.#runAlone(writes[0] as () => unknown)];
    this.#begin.run();
    try {
      const outcomes = new Array<BatchOutcome>(writes.length);
      for (let i = 0; i < writes.length; i++) {
        try {
          outcomes[i] = { ok: true, value: this.#savepoint(writes[i] as () => unknown) };
        } catch (error) {
          if (!RunStoreError.is(error) || !this.#db.inTransaction) throw error;
          outcomes[i] = { ok: false, error };
        }
      }
      this.#commit.run();
      return outcomes;
    } catch (error) {
      this.#rollbackQuietly();
      throw error;
    }
  }

  #runAlone(write: () => unknown): BatchOutcome {
    this.#begin.run();
    let value: unknown;
    try {
      value = write();
    } catch (error) {
      this.#rollbackQuietly();
      if (RunStoreError.is(error)) return { ok: false, error };
      throw error;
    }
    try {
      this.#commit.run();
    } catch (error) {
      this.#rollbackQuietly();
      throw error;
    }
    return { ok: true, value };
  }

  #rollbackQuietly(): void {
    if (this.#db.inTransaction) {
      try {
        this.#rollback.run();
      } catch {
        // the batch's own error says more than the rollback's
      }
    }
  }
}
