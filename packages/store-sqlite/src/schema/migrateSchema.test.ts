// migrateSchema on a new file: every migration in one transaction (one commit, one WAL sync, not
// one per migration), so a failure part-way leaves the file as it was, never at a version between.
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteRunStore } from '../SqliteRunStore.js';
import { tempFolder } from '../testing/tempDatabase.js';
import { SQLITE_MIGRATIONS, SQLITE_SCHEMA_VERSION } from './SqliteMigrations.js';

let folder: ReturnType<typeof tempFolder>;
beforeEach(() => {
  folder = tempFolder();
});
afterEach(() => folder.remove());

const tables = (path: string): string[] => {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'view') ORDER BY name").pluck().all() as string[];
  } finally {
    db.close();
  }
};

describe('migrateSchema on a new file', () => {
  it('records every migration, in order, at the current version', async () => {
    const store = await SqliteRunStore.open({ path: folder.file() });
    await store.close();
    const db = new Database(folder.file(), { readonly: true });
    try {
      expect(db.prepare('SELECT version FROM schema_version ORDER BY version').pluck().all()).toEqual(
        SQLITE_MIGRATIONS.map((m) => m.version),
      );
      expect(SQLITE_MIGRATIONS.at(-1)?.version).toBe(SQLITE_SCHEMA_VERSION);
    } finally {
      db.close();
    }
  });

  it('applies all of them or none: a migration that fails part-way leaves no table and no version behind', async () => {
    // migration 13 creates the table open_calls: a view of that name makes it fail after twelve others ran
    const db = new Database(folder.file());
    db.exec('CREATE VIEW open_calls AS SELECT 1 AS x');
    db.close();
    await expect(SqliteRunStore.open({ path: folder.file() })).rejects.toThrow(/open_calls/);
    expect(tables(folder.file())).toEqual(['open_calls']);
  });
});
