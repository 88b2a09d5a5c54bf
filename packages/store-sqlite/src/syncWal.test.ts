import { writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { syncWal } from './syncWal.js';
import { tempFolder } from './testing/tempDatabase.js';
import { RunStoreError } from '@runledger/trace';

let folder: ReturnType<typeof tempFolder>;
beforeEach(() => {
  folder = tempFolder();
});
afterEach(() => folder.remove());

describe('syncWal', () => {
  it('syncs an existing log, and has nothing to do without one', async () => {
    writeFileSync(folder.file('runs.db-wal'), 'frames');
    await expect(syncWal(folder.file('runs.db'))).resolves.toBeUndefined();
    await expect(syncWal(folder.file('other.db'))).resolves.toBeUndefined();
  });

  it('fails as a storage_failure naming the file when the log cannot be opened', async () => {
    // the log's folder is a file: ENOTDIR, not a missing log
    writeFileSync(folder.file('runs.db'), 'not a folder');
    const error = await syncWal(folder.file('runs.db/x')).catch((e: unknown) => e);
    expect(RunStoreError.is(error)).toBe(true);
    expect((error as RunStoreError).code).toBe('storage_failure');
    expect((error as Error).message).toContain('runs.db/x');
  });
});
