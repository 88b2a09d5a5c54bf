// Opening a store's file: the connection, WAL, the durability and cache settings, and the
// migrations (the sibling of store-postgres's openPool and migrateSchema).
import Database from 'better-sqlite3';
import { retryBusy } from './busyRetry.js';
import { migrateSchema } from './schema/migrateSchema.js';
import { messageOf, storageFailure } from './storageFailure.js';
import type { CheckedSqliteRunStoreOptions } from './SqliteRunStoreOptions.js';
import { RunStoreError } from '@runledger/trace';

/**
 * The driver's own busy wait: none. SQLite's busy handler sleeps 1, 2, 5, 10 … 100 ms between tries
 * (blocking the event loop), so a waiter misses the short gaps between another process's
 * transactions; the store polls in JS instead (busyRetry.ts, every ms), on a timer.
 */
const DRIVER_BUSY_TIMEOUT_MS = 0;

/**
 * Opens (or creates) the file, switches it to WAL, applies pending migrations and hands the
 * connection to `use` (the store's constructor); closes it again when any of that fails.
 *
 * @throws RunStoreError `schema_too_new` for a file of a newer runledger; `storage_failure` when it cannot be opened.
 * @internal
 */
export async function openDatabase<T>(
  { path, busyTimeoutMs }: CheckedSqliteRunStoreOptions,
  use: (db: Database.Database) => T,
): Promise<T> {
  let db: Database.Database;
  try {
    db = new Database(path, { timeout: DRIVER_BUSY_TIMEOUT_MS });
  } catch (error) {
    throw RunStoreError.storageFailure(`cannot open the SQLite file ${path}: ${messageOf(error)}`, error);
  }
  try {
    await retryBusy(() => db.pragma('journal_mode = WAL'), busyTimeoutMs);
    // FULL: in WAL mode the WAL is fsynced at every commit, so a resolved append survives a
    // power cut, not only a killed process (NORMAL would only promise the latter).
    db.pragma('synchronous = FULL');
    // 4 MiB of page cache per store: appends touch only the right edge of each b-tree and health
    // reads a few thousand rollup rows, so more buys little and costs every process memory.
    db.pragma('cache_size = -4096');
    await migrateSchema(db, busyTimeoutMs);
    return use(db);
  } catch (error) {
    db.close();
    throw RunStoreError.is(error) ? error : storageFailure(`cannot open the SQLite file ${path}`, error, busyTimeoutMs);
  }
}
