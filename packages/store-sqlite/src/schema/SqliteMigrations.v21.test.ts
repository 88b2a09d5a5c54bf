// Migration 21: who asked for a run's cancel, from where and why. A file of version 20 has no such
// columns: a run cancelled there reads with its cancel time and no request, a new request is kept
// after the migration, and the migration runs again over its own result.
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SQLITE_SCHEMA_VERSION } from './SqliteMigrations.js';
import { SqliteRunStore } from '../SqliteRunStore.js';
import { tempFolder } from '../testing/tempDatabase.js';

const T = 1_767_225_600_000;

let folder: ReturnType<typeof tempFolder>;
beforeEach(() => {
  folder = tempFolder();
});
afterEach(() => folder.remove());

describe('migration 21', () => {
  it('reads a run cancelled in a version-20 file without a request, keeps new requests, and runs again over its own result', async () => {
    expect(SQLITE_SCHEMA_VERSION).toBeGreaterThanOrEqual(21);
    const path = folder.file();
    const store = await SqliteRunStore.open({ path });
    const old = await store.createRun({ configuration: 'c', createdAt: T });
    await store.requestCancel(old.id, T + 1, { from: 'app', by: 'gone with the columns' });
    await store.finishRun(old.id, { status: 'completed', finishedAt: T + 2 });
    const fresh = await store.createRun({ configuration: 'c', createdAt: T + 3 });
    await store.close();
    // laid out as version 20 wrote it: no request columns
    const db = new Database(path);
    db.exec(
      'ALTER TABLE runs DROP COLUMN cancel_from; ALTER TABLE runs DROP COLUMN cancel_by; ALTER TABLE runs DROP COLUMN cancel_reason; DELETE FROM schema_version WHERE version >= 21;',
    );
    db.close();

    const migrated = await SqliteRunStore.open({ path });
    const read = await migrated.getRun(old.id);
    expect(read).toMatchObject({ status: 'cancelled', cancelRequestedAt: T + 1 });
    expect(read).not.toHaveProperty('cancelRequest');
    const asked = await migrated.requestCancel(fresh.id, T + 4, { from: 'cli', by: 'alice', reason: 'stuck' });
    expect(asked.cancelRequest).toEqual({ at: T + 4, from: 'cli', by: 'alice', reason: 'stuck' });
    await migrated.close();

    const again = new Database(path);
    again.exec('DELETE FROM schema_version WHERE version >= 21;');
    again.close();
    const reopened = await SqliteRunStore.open({ path });
    expect((await reopened.getRun(fresh.id))?.cancelRequest).toEqual({ at: T + 4, from: 'cli', by: 'alice', reason: 'stuck' });
    await reopened.close();
    const check = new Database(path, { readonly: true });
    expect(check.prepare('SELECT max(version) FROM schema_version').pluck().get()).toBe(SQLITE_SCHEMA_VERSION);
    check.close();
  });
});
