// How the capabilities of a PostgresRunStore reach its database (the sibling of store-sqlite's
// SqliteAccess): the pool, the quoted schema, statements dropped when PostgreSQL does not answer
// within queryTimeoutMs, the store's storage failures, refused once the store is closed.
import type pg from 'pg';
import { timedQuery } from './postgresConnections.js';
import { storageFailure } from './storageFailure.js';
import { RunStoreError } from '@runledger/trace';

/** A query under the store's timeout. @internal */
export type TimedQuery = <R extends pg.QueryResultRow>(text: string, values: readonly unknown[]) => Promise<pg.QueryResult<R>>;

/**
 * The database of one PostgresRunStore as its ledger, search, prune and import use it.
 *
 * @internal
 */
export class PostgresAccess {
  readonly pool: pg.Pool;
  /** The store's schema, quoted for SQL. */
  readonly q: string;
  /** How long a statement may wait for PostgreSQL's answer, in ms. */
  readonly queryTimeoutMs: number;
  #closed = false;

  constructor(pool: pg.Pool, quotedSchema: string, queryTimeoutMs: number) {
    this.pool = pool;
    this.q = quotedSchema;
    this.queryTimeoutMs = queryTimeoutMs;
  }

  /** A statement of a run's write (or read) on a pooled connection, dropped when PostgreSQL does not answer within queryTimeoutMs. */
  timed<R extends pg.QueryResultRow>(text: string, values: readonly unknown[], name?: string): Promise<pg.QueryResult<R>> {
    return this.pool.query<R>(timedQuery(text, [...values], this.queryTimeoutMs, name));
  }

  /** The store's storage_failure for `what`, naming the timeout when it was one. */
  failure(what: string, error: unknown): RunStoreError {
    return storageFailure(what, error, this.queryTimeoutMs);
  }

  /** Refuses every use once the store is closed (`storage_failure`). */
  open(): void {
    if (this.#closed) throw RunStoreError.storageFailure('the store is closed');
  }

  /** Refuses every use from now on; false when the store was closed already. */
  close(): boolean {
    if (this.#closed) return false;
    this.#closed = true;
    return true;
  }
}
