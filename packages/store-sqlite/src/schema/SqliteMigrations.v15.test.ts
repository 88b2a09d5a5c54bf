// Migration 15: the run counter. A file of version 14 handed out one past the highest run number
// still in `runs`; where a prune had deleted the newest run while the steps of a hidden one (or
// other rows naming a run number) remained, the next run got a number whose rows still existed.
// The migration starts the counter above every run number any table still holds.
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SQLITE_SCHEMA_VERSION } from './SqliteMigrations.js';
import { SqliteRunStore } from '../SqliteRunStore.js';
import { tempFolder, toolStep } from '../testing/tempDatabase.js';

const T = Date.UTC(2026, 0, 1);

let folder: ReturnType<typeof tempFolder>;
beforeEach(() => {
  folder = tempFolder();
});
afterEach(() => folder.remove());

/** Lays a store file out as version 14 did: no run counter, schema_version up to 14. */
function asVersion14(db: Database.Database): void {
  db.exec(`
DROP TRIGGER IF EXISTS runs_count_run_no;
DROP TABLE IF EXISTS run_counter;
DELETE FROM schema_version WHERE version >= 15;`);
}

/** Every run number a table of the file still holds. */
function numbersIn(db: Database.Database): number[] {
  return db
    .prepare('SELECT run_no FROM runs UNION SELECT DISTINCT id >> 32 FROM steps UNION SELECT run_no FROM open_calls ORDER BY 1')
    .pluck()
    .all() as number[];
}

describe('migration 15', () => {
  it('hands out run numbers above every number still present in any table of a version-14 file', async () => {
    const path = folder.file();
    const store = await SqliteRunStore.open({ path });
    const ids: string[] = [];
    for (let r = 0; r < 5; r++) {
      const run = await store.createRun({ configuration: `r${r}`, createdAt: T + r });
      for (let i = 0; i < 20; i++) await store.appendStep(run.id, toolStep('alpha', 'ok', 3, T + i));
      await store.finishRun(run.id, { status: 'completed', finishedAt: T + 100 });
      ids.push(run.id);
    }
    await store.close();

    // as two prunes at once left it: run 4 hidden (its row gone, its steps not yet), run 5, the newest, deleted
    // whole; and an open_calls row of a number no run has
    const db = new Database(path);
    db.prepare('DELETE FROM runs WHERE id = ?').run(ids[3]);
    db.prepare('DELETE FROM steps WHERE id >= (5 << 32)').run();
    db.prepare('DELETE FROM runs WHERE id = ?').run(ids[4]);
    db.prepare("INSERT INTO open_calls (run_no, call_id, sequence, state) VALUES (7, 'left-over', 0, 0)").run();
    asVersion14(db);
    expect(numbersIn(db)).toEqual([1, 2, 3, 4, 7]);
    db.close();
    expect(await SqliteRunStore.schemaVersionOf(path)).toBe(14);

    const migrated = await SqliteRunStore.open({ path });
    expect(await SqliteRunStore.schemaVersionOf(path)).toBe(SQLITE_SCHEMA_VERSION);
    const run = await migrated.createRun({ configuration: 'new', createdAt: T + 1_000 });
    expect(await migrated.appendStep(run.id, toolStep('beta', 'ok', 3, T + 1_001))).toBe(0);
    expect((await migrated.readSteps(run.id)).map((step) => [step.runId, step.toolServer])).toEqual([[run.id, 'beta']]);
    await migrated.close();

    const after = new Database(path, { readonly: true });
    expect(after.prepare('SELECT run_no FROM runs WHERE id = ?').pluck().get(run.id)).toBe(8);
    after.close();
  });

  it('starts the counter of a new file at 0, and of a version-14 file past run number 2^30 (step rowids past 2^53) exactly', async () => {
    const path = folder.file();
    const store = await SqliteRunStore.open({ path });
    await store.close();
    const db = new Database(path);
    expect(db.prepare('SELECT last_run_no FROM run_counter').pluck().all()).toEqual([0]);
    // left-over numbers beyond a JS number's integers once shifted into a rowid
    db.prepare(
      "INSERT INTO runs (id, status, configuration, created_at, run_no) VALUES ('00000000-0000-4000-8000-000000000001', 'completed', 'c', ?, ?)",
    ).run(T, 2 ** 30 + 5);
    db.prepare('DELETE FROM runs').run();
    asVersion14(db);
    db.prepare("INSERT INTO open_calls (run_no, call_id, sequence, state) VALUES (?, 'x', 0, 0)").run(2 ** 30 + 9);
    db.close();
    const migrated = await SqliteRunStore.open({ path });
    const run = await migrated.createRun({ configuration: 'c', createdAt: T });
    await migrated.close();
    const after = new Database(path, { readonly: true });
    expect(after.prepare('SELECT run_no FROM runs WHERE id = ?').pluck().get(run.id)).toBe(2 ** 30 + 10);
    after.close();
  });
});
