import { copyFileSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { copyRuns, RunTimelineFactory, serverHealth, type StoredStep } from '@runledger/trace';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HISTOGRAM_BUCKETS } from './DurationHistogram.js';
import { HealthRollupWriter } from './HealthRollupWriter.js';
import { SQLITE_MIGRATIONS, SQLITE_SCHEMA_VERSION } from './SqliteMigrations.js';
import { SqliteRunStore } from './SqliteRunStore.js';
import { tempFolder } from './testing/tempDatabase.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/legacy-v1.db', import.meta.url));
const DONE = '0b9a3f5e-2f43-4c7e-9d55-1a2b3c4d5e6f';
const OPEN = '7c1d2e3f-4a5b-4c6d-8e7f-901a2b3c4d5e';
const T = 1_735_732_800_000;

let folder: ReturnType<typeof tempFolder>;
beforeEach(() => {
  folder = tempFolder();
});
afterEach(() => folder.remove());

function legacyCopy(): { path: string; original: Map<string, string> } {
  const path = folder.file('legacy.db');
  copyFileSync(FIXTURE, path);
  const db = new Database(path, { readonly: true });
  const original = new Map(
    (db.prepare('SELECT run_id, sequence, payload FROM steps').all() as { run_id: string; sequence: number; payload: string }[]).map(
      (r) => [`${r.run_id}/${r.sequence}`, r.payload],
    ),
  );
  db.close();
  return { path, original };
}

describe('migrations', () => {
  it('are numbered 1, 2, 3 … without gaps', () => {
    expect(SQLITE_MIGRATIONS.map((m) => m.version)).toEqual(Array.from({ length: SQLITE_SCHEMA_VERSION }, (_, i) => i + 1));
  });

  it('bring a version 1 file forward, one transaction and one schema_version row each', async () => {
    const { path } = legacyCopy();
    const store = await SqliteRunStore.open({ path });
    await store.close();
    const db = new Database(path, { readonly: true });
    const versions = db.prepare('SELECT version, applied_at FROM schema_version ORDER BY version').all() as { version: number; applied_at: number }[];
    expect(versions.map((v) => v.version)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(versions[0]!.applied_at).toBe(1735689600000); // the old row is kept as it was
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
    expect(readFileSync(FIXTURE).length).toBeGreaterThan(0);
  });

  it('re-key the health rollup at version 5 without changing a row, and keep health as it was', async () => {
    const path = folder.file('v4.db');
    const db = new Database(path);
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE schema_version (version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at INTEGER NOT NULL)');
    for (const migration of SQLITE_MIGRATIONS.slice(0, 4)) {
      migration.apply(db);
      db.prepare('INSERT INTO schema_version VALUES (?, ?, ?)').run(migration.version, migration.description, T);
    }
    const writer = new HealthRollupWriter(db, { serverDays: false });
    for (let i = 0; i < 300; i++) {
      writer.add(`s${i % 7}`, i % 5 === 0 ? 'failed' : i % 17 === 0 ? 'cancelled' : 'ok', 1 + (i % 90) * 3.5, T + i * 45_000);
    }
    const rows = (d: Database.Database): unknown[] =>
      d
        .prepare(
          `SELECT server, level, bucket_start, ok, failed, cancelled, last_failure_at, min_ms, max_ms, ${Array.from({ length: HISTOGRAM_BUCKETS }, (_, k) => `h${k}`).join(', ')}
           FROM health_rollup ORDER BY server, level, bucket_start`,
        )
        .raw()
        .all();
    const before = rows(db);
    expect(before.length).toBeGreaterThan(7 * 4);
    db.close();

    // no steps in this file: health from the rollup alone (the exact path would read the steps)
    const store = await SqliteRunStore.openWith({ path }, { exactHealthMaxCalls: 0 });
    const health = await store.serverHealth({ since: T - 32 * 86_400_000, until: T + 64 * 86_400_000 });
    await store.close();
    const after = new Database(path, { readonly: true });
    expect(after.prepare('SELECT max(version) FROM schema_version').pluck().get()).toBe(SQLITE_SCHEMA_VERSION);
    expect(rows(after)).toEqual(before);
    // version 6 filled health_servers from the rollup's day buckets
    const DAY = 86_400_000;
    const lastDay = Math.floor((T + 299 * 45_000) / DAY) * DAY;
    expect(after.prepare('SELECT server, first_day, last_day FROM health_servers ORDER BY server').raw().all()).toEqual(
      Array.from({ length: 7 }, (_, i) => [`s${i}`, Math.floor(T / DAY) * DAY, lastDay]),
    );
    const key = after.prepare("SELECT name FROM pragma_index_info((SELECT name FROM pragma_index_list('health_rollup') WHERE origin = 'pk'))").pluck().all();
    expect(key).toEqual(['server', 'level', 'bucket_start']);
    after.close();
    expect(health.map((h) => h.server)).toEqual(['s0', 's1', 's2', 's3', 's4', 's5', 's6']);
    expect(health.reduce((sum, h) => sum + h.calls, 0)).toBe(300);
    expect(health.reduce((sum, h) => sum + h.failed, 0)).toBe(60);
  });

  it('read legacy rows as before: payload text unchanged, columns null as recorded, counted from toolIsError', async () => {
    const { path, original } = legacyCopy();
    const store = await SqliteRunStore.open({ path });
    const steps = await store.readSteps(DONE);
    expect(steps.map((s) => s.sequence)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    for (const step of [...steps, ...(await store.readSteps(OPEN))]) {
      expect(step.payload).toBe(original.get(`${step.runId}/${step.sequence}`));
      expect(step.toolServer).toBeNull();
      expect(step.toolOutcome).toBeNull();
    }
    expect(steps[7]!.payload).toBe('{"kind":"tool","toolName":"mcp_github_x", trunc');
    const done = (await store.getRun(DONE))!;
    expect(done).toMatchObject({ status: 'completed', configuration: 'support-bot', actor: 'ops@example.com', stepCount: 8, heartbeatAt: null });
    // ok: github search + calculator; failed: github get_file + jira; the damaged row and the llm row count nowhere
    expect(done.outcomeCounts).toEqual({ ok: 2, failed: 2, cancelled: 0 });
    expect((await store.listRuns({ hasOutcome: 'failed' })).runs.map((r) => r.id)).toEqual([OPEN, DONE]);
    expect((await store.listRuns({ hasOutcome: 'cancelled' })).runs).toEqual([]);
    await store.close();
  });

  it('count legacy rows in server health from the mcp_<server>_ prefix, like the pure definition', async () => {
    const { path } = legacyCopy();
    const store = await SqliteRunStore.open({ path });
    const rows: StoredStep[] = [...(await store.readSteps(DONE)), ...(await store.readSteps(OPEN))];
    const health = await store.serverHealth();
    expect(health).toEqual(serverHealth(rows));
    expect(health.map((h) => [h.server, h.ok, h.failed, h.cancelled, h.lastFailureAt])).toEqual([
      ['github', 2, 2, 0, T + 62_000],
      ['jira', 0, 1, 0, T + 4_400],
    ]);
    // the rollup built by the migration agrees as well (forced past the exact path)
    await store.close();
    const rollup = await SqliteRunStore.openWith({ path }, { exactHealthMaxCalls: 0 });
    expect((await rollup.serverHealth()).map((h) => [h.server, h.calls, h.failed, h.lastFailureAt])).toEqual([
      ['github', 4, 2, T + 62_000],
      ['jira', 1, 1, T + 4_400],
    ]);
    expect((await rollup.serverHealth({ since: T + 61_000 })).map((h) => [h.server, h.calls])).toEqual([['github', 2]]);
    await rollup.close();
  });

  it('render legacy rows in the timeline as before: outcome from toolIsError, the damaged row unreadable', async () => {
    const { path } = legacyCopy();
    const store = await SqliteRunStore.open({ path });
    const run = await store.getRun(DONE);
    const entries = RunTimelineFactory.build(run, await store.readSteps(DONE));
    const bySequence = new Map(entries.filter((e) => e.sequence !== null).map((e) => [e.sequence, e]));
    expect([...bySequence.keys()]).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect([2, 3, 4, 5].map((n) => bySequence.get(n)!.outcome)).toEqual(['ok', 'failed', 'ok', 'failed']);
    expect(bySequence.get(6)!.outcome).toBe('ok'); // an old llm row with toolIsError renders as it always did
    expect(bySequence.get(1)!.outcome).toBe('');
    expect(bySequence.get(7)!.unreadable).toBe(true);
    expect(entries.filter((e) => e.unreadable)).toHaveLength(1);
    expect(entries.some((e) => e.event === 'completed')).toBe(true);
    // the same reading as the timeline's own stepOutcome over the raw payload text
    for (const step of await store.readSteps(DONE)) {
      expect(bySequence.get(step.sequence)!.outcome).toBe(RunTimelineFactory.stepOutcome(step.payload));
    }
    await store.close();
  });

  it('keep steps whose run row is missing aside instead of dropping them', async () => {
    const { path } = legacyCopy();
    const raw = new Database(path);
    raw.prepare("INSERT INTO steps VALUES ('11111111-2222-4333-8444-555555555555', 0, 'llm', 0, 1, '{}', 1)").run();
    raw.close();
    await (await SqliteRunStore.open({ path })).close();
    const db = new Database(path, { readonly: true });
    expect(db.prepare('SELECT run_id, sequence FROM orphaned_steps_v1').all()).toEqual([
      { run_id: '11111111-2222-4333-8444-555555555555', sequence: 0 },
    ]);
    expect(db.prepare('SELECT count(*) FROM steps').pluck().get()).toBe(11);
    db.close();
    const clean = legacyCopy();
    await (await SqliteRunStore.open({ path: clean.path })).close();
    const db2 = new Database(clean.path, { readonly: true });
    expect(db2.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'orphaned_steps_v1'").pluck().get()).toBe(0);
    db2.close();
  });

  it('let a migrated run go on: the next sequence follows the legacy rows', async () => {
    const { path } = legacyCopy();
    const store = await SqliteRunStore.open({ path });
    const next = await store.appendStep(OPEN, {
      kind: 'tool',
      round: 1,
      durationMs: 5,
      createdAt: T + 63_000,
      payload: { kind: 'tool', toolName: 'mcp_github_search_code', toolServer: 'github', toolIsError: false, toolOutcome: 'cancelled' },
      toolServer: 'github',
      toolOutcome: 'cancelled',
    });
    expect(next).toBe(3);
    expect((await store.getRun(OPEN))!.outcomeCounts).toEqual({ ok: 1, failed: 1, cancelled: 1 });
    expect((await store.serverHealth()).find((h) => h.server === 'github')).toMatchObject({ calls: 5, cancelled: 1 });
    await store.close();
  });

  it('copy with copyRuns into a fresh store unchanged: runs, steps, counts and health', async () => {
    const { path } = legacyCopy();
    const source = await SqliteRunStore.open({ path });
    const target = await SqliteRunStore.open({ path: folder.file('copy.db') });
    const result = await copyRuns(source, target);
    expect(result).toMatchObject({ runsSeen: 2, runsCopied: 2 });
    for (const id of [DONE, OPEN]) {
      expect(await target.getRun(id)).toEqual(await source.getRun(id));
      expect(await target.readSteps(id)).toEqual(await source.readSteps(id));
    }
    expect(await target.serverHealth()).toEqual(await source.serverHealth());
    expect((await copyRuns(source, target)).runsCopied).toBe(0);
    await source.close();
    await target.close();
  });
});
