// Migration 16: runs.late_finish_status / late_finish_at, where a final status that arrived after
// its run had ended is kept. A file of version 15 is brought forward with its runs as they were
// (no late finish), and the migration runs again over its own result.
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SQLITE_SCHEMA_VERSION } from './SqliteMigrations.js';
import { SqliteRunStore } from '../SqliteRunStore.js';
import { tempFolder } from '../testing/tempDatabase.js';

const T = Date.UTC(2026, 0, 1);

let folder: ReturnType<typeof tempFolder>;
beforeEach(() => {
  folder = tempFolder();
});
afterEach(() => folder.remove());

describe('migration 16', () => {
  it('adds the late finish columns to a version-15 file, keeps its runs, and runs again over its own result', async () => {
    expect(SQLITE_SCHEMA_VERSION).toBeGreaterThanOrEqual(16);
    const path = folder.file();
    const store = await SqliteRunStore.open({ path });
    const run = await store.createRun({ configuration: 'c', createdAt: T });
    const done = await store.finishRun(run.id, { status: 'interrupted', finishedAt: T + 1, unstoredSteps: 1 });
    await store.close();
    // laid out as version 15 wrote it
    const db = new Database(path);
    db.exec(
      'ALTER TABLE runs DROP COLUMN late_finish_status; ALTER TABLE runs DROP COLUMN late_finish_at; DELETE FROM schema_version WHERE version >= 16;',
    );
    db.close();

    const migrated = await SqliteRunStore.open({ path });
    expect(await migrated.getRun(run.id)).toEqual(done);
    const late = await migrated.finishRun(run.id, { status: 'completed', finishedAt: T + 2, unstoredSteps: 2 });
    expect(late).toEqual({ ...done, unstoredSteps: 3, lateFinishStatus: 'completed', lateFinishAt: T + 2 });
    await migrated.close();

    // again over its own result (the columns are there already)
    const again = new Database(path);
    again.exec('DELETE FROM schema_version WHERE version >= 16;');
    again.close();
    const reopened = await SqliteRunStore.open({ path });
    expect(await reopened.getRun(run.id)).toEqual(late);
    await reopened.close();
    const check = new Database(path, { readonly: true });
    expect(check.prepare('SELECT max(version) FROM schema_version').pluck().get()).toBe(SQLITE_SCHEMA_VERSION);
    check.close();
  });
});
