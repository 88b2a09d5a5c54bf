import type Database from 'better-sqlite3';
import { retryBusy } from '../busyRetry.js';
import { SQLITE_MIGRATIONS, SQLITE_SCHEMA_VERSION } from './SqliteMigrations.js';
import { RunStoreError } from '@runledger/trace';

/**
 * Applies the pending migrations, each in its own `BEGIN IMMEDIATE` transaction — on a new file
 * (no version yet) all of them in one: one commit and one WAL sync instead of one per migration
 * (a first open takes about half as long), and a failure part-way leaves the file as it was.
 * Refuses a file written by a newer version (the sibling of store-postgres's migrateSchema).
 */
export async function migrateSchema(db: Database.Database, busyTimeoutMs: number): Promise<void> {
  const current = (): number => {
    const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'").get();
    if (table === undefined) return 0;
    return (db.prepare('SELECT max(version) FROM schema_version').pluck().get() as number | null) ?? 0;
  };
  const found = await retryBusy(current, busyTimeoutMs);
  if (found > SQLITE_SCHEMA_VERSION) throw RunStoreError.schemaTooNew(found, SQLITE_SCHEMA_VERSION);
  if (found === SQLITE_SCHEMA_VERSION) return;
  const fresh = found === 0; // nothing to keep readable between migrations: one transaction for all
  for (;;) {
    const applied = await retryBusy(
      () =>
        db
          .transaction(() => {
            db.exec(
              'CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at INTEGER NOT NULL)',
            );
            const version = current();
            if (version > SQLITE_SCHEMA_VERSION) throw RunStoreError.schemaTooNew(version, SQLITE_SCHEMA_VERSION);
            for (let v = version; ; v++) {
              const next = SQLITE_MIGRATIONS[v];
              if (next === undefined) return v !== version;
              next.up(db);
              db.prepare('INSERT INTO schema_version (version, description, applied_at) VALUES (?, ?, ?)').run(
                next.version,
                next.name,
                Date.now(),
              );
              if (!fresh) return true;
            }
          })
          .immediate(),
      busyTimeoutMs,
    );
    if (!applied) return;
  }
}
