// Migration 17: runs.title, the readable title the recorder gave the run. A file of version 16 is
// brought forward with its runs as they were (no title), and the migration runs again over its own
// result.
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

describe('migration 17', () => {
  it('adds the title column to a version-16 file, keeps its runs without a title, and runs again over its own result', async () => {
    expect(SQLITE_SCHEMA_VERSION).toBeGreaterThanOrEqual(17);
    const path = folder.file();
    const store = await SqliteRunStore.open({ path });
    const run = await store.createRun({ configuration: 'c', createdAt: T });
    await store.close();
    // laid out as version 16 wrote it
    const db = new Database(path);
    db.exec(
      'DROP TRIGGER runs_title_insert; DROP TRIGGER runs_title_delete; DROP TRIGGER runs_title_update; DROP TABLE runs_title;' +
        'ALTER TABLE runs DROP COLUMN title; DELETE FROM schema_version WHERE version >= 17;',
    );
    db.close();

    const migrated = await SqliteRunStore.open({ path });
    expect(await migrated.getRun(run.id)).toEqual({ ...run, title: null });
    const titled = await migrated.createRun({ configuration: 'c', title: 'Triage the inbox', createdAt: T + 1 });
    expect(titled.title).toBe('Triage the inbox');
    await migrated.close();

    // again over its own result (the column is there already)
    const again = new Database(path);
    again.exec('DELETE FROM schema_version WHERE version >= 17;');
    again.close();
    const reopened = await SqliteRunStore.open({ path });
    expect((await reopened.listRuns()).runs.map((r) => r.title)).toEqual(['Triage the inbox', null]);
    await reopened.close();
    const check = new Database(path, { readonly: true });
    expect(check.prepare('SELECT max(version) FROM schema_version').pluck().get()).toBe(SQLITE_SCHEMA_VERSION);
    check.close();
  });
});
