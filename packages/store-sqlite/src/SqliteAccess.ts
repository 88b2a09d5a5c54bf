// How the capabilities of a SqliteRunStore reach its database (the sibling of store-postgres's
// PostgresAccess): the one connection, its cached prepared statements, and the write queue every
// read and write goes through, refused once the store is closed.
import type Database from 'better-sqlite3';
import type { WriteQueue } from './WriteQueue.js';
import { RunStoreError } from '@runledger/trace';

/**
 * The database of one SqliteRunStore as its ledger, search, prune and import use it (a prune's SqlitePruneAccess).
 *
 * @internal
 */
export class SqliteAccess {
  readonly db: Database.Database;
  /** The file the store writes. */
  readonly path: string;
  readonly writes: WriteQueue;
  readonly #statements = new Map<string, Database.Statement>();
  #closed = false;

  constructor(db: Database.Database, path: string, writes: WriteQueue) {
    this.db = db;
    this.path = path;
    this.writes = writes;
  }

  /** The prepared statement of `sql`, prepared once (`raw`: rows as arrays). */
  stmt(sql: string, raw = false): Database.Statement {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare(sql);
      if (raw) statement.raw();
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  /** Refuses every use once the store is closed (`storage_failure`). */
  assertOpen(): void {
    if (this.#closed) throw RunStoreError.storageFailure(`the SQLite store of ${this.path} is closed`);
  }

  /** Runs `fn` as the next write of the queue. */
  write<T>(fn: () => T): Promise<T> {
    this.assertOpen();
    return this.writes.write(fn);
  }

  /** Runs `fn` as a read, in the queue's order. */
  read<T>(fn: () => T): Promise<T> {
    this.assertOpen();
    return this.writes.read(fn);
  }

  /** How many writes the store has committed (a prune's among them). */
  commits(): number {
    return this.writes.commits;
  }

  /** Refuses every use from now on; false when the store was closed already. */
  close(): boolean {
    if (this.#closed) return false;
    this.#closed = true;
    return true;
  }
}
