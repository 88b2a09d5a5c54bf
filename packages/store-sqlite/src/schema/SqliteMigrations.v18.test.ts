// Migration 18: runs.tokens, filled in from the llm steps' payloads, and the indexes of the search
// reads. A file of version 17 is brought forward with every run's tokens counted from its steps
// (a damaged payload counting 0, not failing the migration), and the migration runs again over its
// own result without counting twice.
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SQLITE_SCHEMA_VERSION } from './SqliteMigrations.js';
import { SqliteRunStore } from '../SqliteRunStore.js';
import { tempFolder, toolStep } from '../testing/tempDatabase.js';

const T = Date.UTC(2026, 0, 1);
const INDEXES = ['steps_call_servers', 'steps_call_tools', 'steps_server_calls'];

let folder: ReturnType<typeof tempFolder>;
beforeEach(() => {
  folder = tempFolder();
});
afterEach(() => folder.remove());

const llm = (promptTokens: unknown, completionTokens: unknown, createdAt: number) => ({
  kind: 'llm',
  round: 0,
  durationMs: 5,
  createdAt,
  payload: { kind: 'llm', model: 'm', promptTokens, completionTokens },
  toolServer: null,
  toolOutcome: null,
});

function indexesOf(path: string): string[] {
  const db = new Database(path, { readonly: true });
  try {
    return db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name IN (?, ?, ?) ORDER BY name")
      .pluck()
      .all(...INDEXES) as string[];
  } finally {
    db.close();
  }
}

describe('migration 18', () => {
  it("counts a version-17 file's tokens from its llm steps, adds the search indexes, and runs again over its own result", async () => {
    expect(SQLITE_SCHEMA_VERSION).toBeGreaterThanOrEqual(18);
    const path = folder.file();
    const store = await SqliteRunStore.open({ path });
    const a = await store.createRun({ configuration: 'c', createdAt: T });
    await store.appendStep(a.id, llm(100, 20, T + 1));
    await store.appendStep(a.id, toolStep('docs', 'ok', 3, T + 2));
    await store.appendStep(a.id, llm(7, 'many', T + 3));
    const b = await store.createRun({ configuration: 'c', createdAt: T + 10 });
    await store.appendStep(b.id, toolStep('docs', 'failed', 3, T + 11));
    // a damaged store: payload text that is no JSON, on an llm step and on an ended tool step
    const damaged = { ...a, id: '0da1a6ed-0000-4000-8000-000000000001', createdAt: T + 20, stepCount: 3 };
    const step = { runId: damaged.id, round: 0, durationMs: 1, toolServer: null, toolOutcome: null };
    expect(
      await store.importRun(damaged, [
        { ...step, sequence: 0, kind: 'llm', createdAt: T + 21, payload: '{"promptTokens": 5' },
        { ...step, sequence: 1, kind: 'tool', createdAt: T + 22, payload: '{bad', toolServer: 'docs', toolOutcome: 'ok' },
        { ...step, sequence: 2, kind: 'llm', createdAt: T + 23, payload: '{"promptTokens":9,"completionTokens":1}' },
      ]),
    ).toBe(true);
    expect((await store.getRun(a.id))?.tokens).toBe(127);
    expect((await store.getRun(damaged.id))?.tokens).toBe(10);
    await store.close();
    // laid out as version 17 wrote it
    const db = new Database(path);
    db.exec(
      `${INDEXES.map((name) => `DROP INDEX ${name};`).join(' ')} ALTER TABLE runs DROP COLUMN tokens; DELETE FROM schema_version WHERE version >= 18;`,
    );
    db.close();
    expect(indexesOf(path)).toEqual([]);

    const migrated = await SqliteRunStore.open({ path });
    expect((await migrated.listRuns()).runs.map((run) => [run.id, run.tokens])).toEqual([
      [damaged.id, 10],
      [b.id, 0],
      [a.id, 127],
    ]);
    expect(await migrated.runTotals()).toEqual({ runs: 3, tokens: 137, complete: true });
    await migrated.appendStep(b.id, llm(1, 2, T + 12));
    await migrated.close();
    expect(indexesOf(path)).toEqual(INDEXES);

    // again over its own result (the column and indexes are there already): counted, not added
    const again = new Database(path);
    again.exec('DELETE FROM schema_version WHERE version >= 18;');
    again.close();
    const reopened = await SqliteRunStore.open({ path });
    expect((await reopened.listRuns()).runs.map((run) => run.tokens)).toEqual([10, 3, 127]);
    await reopened.close();
    const check = new Database(path, { readonly: true });
    expect(check.prepare('SELECT max(version) FROM schema_version').pluck().get()).toBe(SQLITE_SCHEMA_VERSION);
    check.close();
  });
});
