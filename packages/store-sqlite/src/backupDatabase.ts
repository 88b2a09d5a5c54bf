// SqliteRunStore.backup (SQLite only): a consistent copy of the whole database in a new file.
import { existsSync } from 'node:fs';
import type { SqliteAccess } from './SqliteAccess.js';
import { RunStoreError } from '@runledger/trace';

/**
 * Writes the database to `destination` with `VACUUM INTO`, in the store's read path: one read
 * snapshot, compacted, a single file without a `-wal` beside it.
 *
 * @throws RunStoreError (`invalid_input`) when `destination` is empty or already exists;
 *   (`storage_failure`) when the copy cannot be written.
 * @internal
 */
export async function backupDatabase(access: SqliteAccess, destination: string): Promise<void> {
  if (typeof destination !== 'string' || destination === '') {
    throw RunStoreError.invalidInput('backup destination must be a non-empty file path');
  }
  if (existsSync(destination)) {
    throw RunStoreError.invalidInput(`backup destination ${destination} already exists; choose a new file`);
  }
  await access.read(() => access.db.prepare('VACUUM INTO ?').run(destination));
}
