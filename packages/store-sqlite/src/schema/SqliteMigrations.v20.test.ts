// Migration 20: a run's termination as data. A file of version 19 keeps each ended run's reason as
// prose; it opens with every reason read into its kind and facts, the sentences shown unchanged
// (words the kind's sentence would not repeat kept as they were), and the migration runs again
// over its own result without changing a row.
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LEGACY_PROSE_TIME, LEGACY_TERMINATION_PROSE } from '@runledger/store-contract';
import { SQLITE_SCHEMA_VERSION } from './SqliteMigrations.js';
import { SqliteRunStore } from '../SqliteRunStore.js';
import { tempFolder } from '../testing/tempDatabase.js';

const T = LEGACY_PROSE_TIME;

let folder: ReturnType<typeof tempFolder>;
beforeEach(() => {
  folder = tempFolder();
});
afterEach(() => folder.remove());

const PROSE = LEGACY_TERMINATION_PROSE;

function terminationRows(path: string): unknown[] {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare('SELECT id, termination_kind, termination_facts, termination_reason FROM runs ORDER BY id').all();
  } finally {
    db.close();
  }
}

describe('migration 20', () => {
  it("reads a version-19 file's prose into kinds and facts, shows the same sentences, and runs again over its own result", async () => {
    expect(SQLITE_SCHEMA_VERSION).toBeGreaterThanOrEqual(20);
    const path = folder.file();
    const store = await SqliteRunStore.open({ path });
    const ids: string[] = [];
    for (const [index] of PROSE.entries()) {
      const run = await store.createRun({ configuration: 'c', createdAt: T + index });
      await store.finishRun(run.id, { status: 'failed', finishedAt: T + 100 });
      ids.push(run.id);
    }
    const running = await store.createRun({ configuration: 'c', createdAt: T + 50 });
    await store.close();
    // laid out as version 19 wrote it: the prose, no kind
    const db = new Database(path);
    const setProse = db.prepare('UPDATE runs SET termination_reason = ? WHERE id = ?');
    PROSE.forEach(([prose], index) => setProse.run(prose, ids[index]));
    db.exec(
      'ALTER TABLE runs DROP COLUMN termination_kind; ALTER TABLE runs DROP COLUMN termination_facts; DELETE FROM schema_version WHERE version >= 20;',
    );
    db.close();

    const migrated = await SqliteRunStore.open({ path });
    for (const [index, [prose, termination]] of PROSE.entries()) {
      const run = await migrated.getRun(ids[index]!);
      expect(run).toMatchObject({ termination, terminationReason: prose });
    }
    expect(await migrated.getRun(running.id)).toMatchObject({ termination: null, terminationReason: null });
    await migrated.close();
    const converted = terminationRows(path);
    // only the words the kind's sentence would not repeat are kept
    expect(converted.filter((row) => (row as { termination_reason: string | null }).termination_reason !== null)).toHaveLength(2);

    const again = new Database(path);
    again.exec('DELETE FROM schema_version WHERE version >= 20;');
    again.close();
    const reopened = await SqliteRunStore.open({ path });
    await reopened.close();
    expect(terminationRows(path)).toEqual(converted);
    const check = new Database(path, { readonly: true });
    expect(check.prepare('SELECT max(version) FROM schema_version').pluck().get()).toBe(SQLITE_SCHEMA_VERSION);
    check.close();
  });
});
