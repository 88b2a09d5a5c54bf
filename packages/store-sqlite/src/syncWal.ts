import { open } from 'node:fs/promises';
import { messageOf } from './storageFailure.js';
import { RunStoreError } from '@runledger/trace';

/**
 * Makes what was committed to a SQLite file's write-ahead log durable: `fdatasync` of its `-wal`
 * file, off the main thread and without any SQLite lock held (a missing log has nothing to sync).
 *
 * @remarks
 * For transactions committed with `synchronous = NORMAL` (written to the log, not yet synced): the
 * prune commits so, so that no other writer waits for its fsync under the write lock. The log is one
 * file written in order, so syncing it makes every transaction committed before durable, and a
 * writer with `synchronous = FULL` that commits after them syncs them with its own.
 *
 * @internal
 */
export async function syncWal(databasePath: string): Promise<void> {
  let handle;
  try {
    handle = await open(`${databasePath}-wal`, 'r');
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return;
    throw RunStoreError.storageFailure(`cannot open the write-ahead log of ${databasePath}: ${messageOf(error)}`, error);
  }
  try {
    await handle.datasync();
  } catch (error) {
    throw RunStoreError.storageFailure(`cannot sync the write-ahead log of ${databasePath}: ${messageOf(error)}`, error);
  } finally {
    await handle.close();
  }
}
