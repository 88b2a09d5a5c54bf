import { copyFileSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { copyRuns, buildRunTimeline, stepOutcome, type StoredStep } from '@runledger/trace';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { serverHealth } from '@runledger/trace/store';
import { HISTOGRAM_BUCKETS_V4, SQLITE_MIGRATIONS, SQLITE_SCHEMA_VERSION } from './SqliteMigrations.js';
import { SqliteRunStore } from '../SqliteRunStore.js';
import { setExactHealthMaxCalls } from '../SqliteRunStoreInternals.js';
import { tempFolder, toolStep } from '../testing/tempDatabase.js';

const FIXTURE = fileURLToPath(new URL('../../fixtures/legacy-v1.db', import.meta.url));
const DONE = '0b9a3f5e-2f43-4c7e-9d55-1a2b3c4d5e6f';
const OPEN = '7c1d2e3f-4a5b-4c6d-8e7f-901a2b3c4d5e';
const T = 1_735_732_800_000;
const DAY_MS = 86_400_000;

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

/**
 * Lays a current store file's rollup out as versions 5 to 13 did — keyed server first, with
 * health_servers (the first and last day each server was called, from the day rows) — and forgets
 * migration 14, so that the next open runs it again.
 */
function rollupAsVersion13(db: Database.Database): void {
  const rekey = (table: string, key: string): void => {
    const sql = db.prepare('SELECT sql FROM sqlite_schema WHERE name = ?').pluck().get(table) as string;
    const serverFirst = sql.replace(/PRIMARY KEY \(level, bucket_start, server/, `PRIMARY KEY (${key}`);
    expect(serverFirst).not.toBe(sql);
    db.exec(`${serverFirst.replace(new RegExp(`^CREATE TABLE "?${table}"?`), `CREATE TABLE ${table}_v13`)};
INSERT INTO ${table}_v13 SELECT * FROM ${table};
DROP TABLE ${table};
ALTER TABLE ${table}_v13 RENAME TO ${table};`);
  };
  rekey('health_rollup', 'server, level, bucket_start');
  rekey('health_causes', 'server, level, bucket_start');
  db.exec(`
CREATE TABLE health_servers (server TEXT PRIMARY KEY NOT NULL, first_day INTEGER NOT NULL, last_day INTEGER NOT NULL) WITHOUT ROWID;
INSERT INTO health_servers SELECT server, min(bucket_start), max(bucket_start) FROM health_rollup WHERE level = 4 GROUP BY server;
DELETE FROM schema_version WHERE version >= 14;`);
}

/** The columns of a table's primary key, in key order. */
function primaryKeyOf(db: Database.Database, table: string): string[] {
  return db
    .prepare(`SELECT name FROM pragma_index_info((SELECT name FROM pragma_index_list('${table}') WHERE origin = 'pk'))`)
    .pluck()
    .all() as string[];
}

describe('migration 12', () => {
  it('sums the day rows into 32-day rows exactly as a store at version 12 writes them', async () => {
    const DAY = 86_400_000;
    const path = folder.file('levels.db');
    const store = await SqliteRunStore.open({ path });
    const run = await store.createRun({ configuration: 'c', createdAt: T });
    // 90 days (three 32-day buckets, before the epoch's alignment and after), three servers, every outcome and cause
    for (let i = 0; i < 400; i++) {
      const outcome = (['ok', 'failed', 'cancelled', 'ok'] as const)[i % 4]!;
      const cause = outcome === 'failed' ? ['server_error', 'invalid_arguments', undefined][i % 3] : undefined;
      await store.appendStep(
        run.id,
        toolStep(`s${i % 3}`, outcome, 1 + ((i * 37) % 5000) / 7, T + Math.floor((i * 90 * DAY) / 400) + i, 0, cause),
      );
    }
    await store.close(); // moves the pending calls into the rollup, at every level
    const rowsOf = (db: Database.Database): unknown[] => [
      db.prepare('SELECT * FROM health_rollup WHERE level = 5 ORDER BY server, bucket_start').all(),
      db.prepare('SELECT * FROM health_causes WHERE level = 5 ORDER BY server, bucket_start, cause').all(),
    ];
    const db = new Database(path);
    const written = rowsOf(db);
    expect((written[0] as unknown[]).length).toBeGreaterThanOrEqual(9);
    // back to version 11: no 32-day rows
    rollupAsVersion13(db);
    db.exec(
      'DELETE FROM health_rollup WHERE level = 5; DELETE FROM health_causes WHERE level = 5; DROP TABLE open_calls; DELETE FROM schema_version WHERE version >= 12',
    );
    db.close();
    await (await SqliteRunStore.open({ path })).close();
    const migrated = new Database(path, { readonly: true });
    expect(rowsOf(migrated)).toEqual(written);
    migrated.close();
  });
});

describe('migration 13', () => {
  it('finds every run’s open calls in its steps exactly as appends keep them, in runs of any size', async () => {
    await expectMigratedOpenCalls({ counts: [40, 40, 40, 12_000] });
  });

  it('finds them exactly where run numbers pass 2^21 (step rowids past 2^53, beyond a JS number’s integers)', async () => {
    await expectMigratedOpenCalls({ counts: [40, 41, 43], lastRunNo: 2 ** 22 + 3 });
  });

  /**
   * Appends runs of `counts` steps (tool calls that end before they start, reused ids, steps
   * without calls), then migrates the file again from version 12 and expects the open calls the
   * appends kept; `lastRunNo`: the run number the store handed out last before these runs.
   */
  async function expectMigratedOpenCalls(options: { counts: readonly number[]; lastRunNo?: number }): Promise<void> {
    const path = folder.file('open-calls.db');
    const store = await SqliteRunStore.open({ path });
    if (options.lastRunNo !== undefined) {
      const side = new Database(path);
      side
        .prepare(
          "INSERT INTO runs (id, status, configuration, created_at, run_no) VALUES ('00000000-0000-4000-8000-000000000000', 'completed', 'c', ?, ?)",
        )
        .run(T, options.lastRunNo);
      side.close();
    }
    const call = (kind: 'tool_start' | 'tool', id: string, at: number) => ({
      kind,
      round: 0,
      durationMs: 1,
      createdAt: T + at,
      payload: { kind, toolName: 'mcp_a_x', toolCallId: id },
      toolServer: null,
      toolOutcome: null,
    });
    const runs: string[] = [];
    // ends before starts, reused ids, steps without calls, an unreadable-looking id, and (12 000 steps) a run past one page of the fold
    for (const [r, count] of options.counts.entries()) {
      const run = await store.createRun({ configuration: `open-${r}`, createdAt: T });
      runs.push(run.id);
      // appended 500 at a time in one turn: they share a commit (group commit keeps their order),
      // so the big run costs 24 fsyncs, not 12 000 (one each timed out on a loaded CI machine)
      for (let from = 0; from < count; from += 500) {
        const appends: Promise<number>[] = [];
        for (let i = from; i < Math.min(count, from + 500); i++) {
          const id = `c${(i * 7 + r) % 13}`;
          const kind = (i + r) % 3 === 0 ? 'tool' : 'tool_start';
          appends.push(store.appendStep(run.id, i % 5 === 4 ? toolStep('a', 'ok', 1, T + i) : call(kind, id, i)));
        }
        expect(await Promise.all(appends)).toEqual(appends.map((_, k) => from + k));
      }
    }
    const kept = await Promise.all(runs.map((id) => store.readOpenCalls(id)));
    expect(kept.some((read) => read!.starts.length > 0)).toBe(true);
    await store.close();
    const db = new Database(path);
    const rows = db.prepare('SELECT * FROM open_calls ORDER BY run_no, call_id').all();
    rollupAsVersion13(db);
    db.exec('DROP TABLE open_calls; DELETE FROM schema_version WHERE version >= 13');
    db.close();
    const migrated = await SqliteRunStore.open({ path });
    expect(await Promise.all(runs.map((id) => migrated.readOpenCalls(id)))).toEqual(kept);
    await migrated.close();
    const after = new Database(path, { readonly: true });
    expect(after.prepare('SELECT * FROM open_calls ORDER BY run_no, call_id').all()).toEqual(
      // the migration writes no closed rows and keeps no sequence for an end that came first
      (rows as { state: number; sequence: number }[])
        .filter((row) => row.state !== 2)
        .map((row) => (row.state === 1 ? { ...row, sequence: 0 } : row)),
    );
    if (options.lastRunNo !== undefined) {
      expect(after.prepare('SELECT min(run_no) FROM open_calls').pluck().get()).toBe(options.lastRunNo + 1);
    }
    after.close();
  }
});

describe('migration 14', () => {
  it('keys the rollup and its causes time first without changing a row or a health read, and drops health_servers', async () => {
    const MINUTE = 60_000;
    const path = folder.file('time-first.db');
    const store = await SqliteRunStore.open({ path });
    setExactHealthMaxCalls(store, 0);
    const run = await store.createRun({ configuration: 'c', createdAt: T });
    // 40 days, 12 servers, every outcome and cause, several calls of a server in one minute
    const appends: Promise<number>[] = [];
    for (let i = 0; i < 1_500; i++) {
      const outcome = (['ok', 'failed', 'cancelled', 'ok', 'ok'] as const)[i % 5]!;
      const cause = outcome === 'failed' ? ['server_error', 'invalid_arguments', 'mcp_timeout', undefined][(i >> 2) % 4] : undefined;
      const at = T + Math.floor((i * 40 * 1_440) / 1_500) * MINUTE + (i % 7) * 1_000;
      appends.push(store.appendStep(run.id, toolStep(`s${(i * 5) % 12}`, outcome, 1 + ((i * 37) % 9_000) / 9, at, 0, cause)));
    }
    await Promise.all(appends);
    await store.close(); // moves the pending calls into the rollup, at every level
    const rows = (db: Database.Database): unknown[] => [
      db.prepare('SELECT * FROM health_rollup ORDER BY server, level, bucket_start').all(),
      db.prepare('SELECT * FROM health_causes ORDER BY server, level, bucket_start, cause').all(),
    ];
    const windows = [
      {},
      { since: T + 3 * DAY_MS + 7 * MINUTE, until: T + 33 * DAY_MS + 11 * MINUTE },
      { since: T + 20 * DAY_MS },
      { until: T + DAY_MS },
    ];
    const healthOf = async (): Promise<unknown[]> => {
      const reader = await SqliteRunStore.open({ path });
      setExactHealthMaxCalls(reader, 0);
      const answers = await Promise.all(windows.map((window) => reader.serverHealth(window)));
      await reader.close();
      return answers;
    };
    const answers = await healthOf();
    expect((answers[0] as unknown[]).length).toBe(12);

    const db = new Database(path);
    const written = rows(db);
    expect((written[0] as unknown[]).length).toBeGreaterThan(2_000);
    rollupAsVersion13(db);
    expect(primaryKeyOf(db, 'health_rollup')).toEqual(['server', 'level', 'bucket_start']);
    expect(rows(db)).toEqual(written);
    db.close();

    expect(await healthOf()).toEqual(answers); // opening migrates
    const migrated = new Database(path, { readonly: true });
    expect(migrated.prepare('SELECT max(version) FROM schema_version').pluck().get()).toBe(SQLITE_SCHEMA_VERSION);
    expect(primaryKeyOf(migrated, 'health_rollup')).toEqual(['level', 'bucket_start', 'server']);
    expect(primaryKeyOf(migrated, 'health_causes')).toEqual(['level', 'bucket_start', 'server', 'cause']);
    expect(migrated.prepare("SELECT count(*) FROM sqlite_schema WHERE name = 'health_servers'").pluck().get()).toBe(0);
    // no index beside the key (the tables are their key's b-tree): one would take back what the key saves in pages per write
    expect(
      migrated
        .prepare("SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND tbl_name IN ('health_rollup', 'health_causes')")
        .pluck()
        .get(),
    ).toBe(0);
    expect(rows(migrated)).toEqual(written);
    expect(migrated.pragma('integrity_check', { simple: true })).toBe('ok');
    migrated.close();
  }, 60_000); // 2 000 rollup rows of 114 columns compared three times: seconds on a busy CI machine
});

describe('migrations', () => {
  it('are numbered 1, 2, 3 … without gaps', () => {
    expect(SQLITE_MIGRATIONS.map((m) => m.version)).toEqual(Array.from({ length: SQLITE_SCHEMA_VERSION }, (_, i) => i + 1));
  });

  it('bring a version 1 file forward, one transaction and one schema_version row each', async () => {
    const { path } = legacyCopy();
    const store = await SqliteRunStore.open({ path });
    await store.close();
    const db = new Database(path, { readonly: true });
    const versions = db.prepare('SELECT version, applied_at FROM schema_version ORDER BY version').all() as {
      version: number;
      applied_at: number;
    }[];
    expect(versions.map((v) => v.version)).toEqual(Array.from({ length: SQLITE_SCHEMA_VERSION }, (_, i) => i + 1));
    expect(versions[0]!.applied_at).toBe(1735689600000); // the old row is kept as it was
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
    expect(readFileSync(FIXTURE).length).toBeGreaterThan(0);
  });

  it('re-key the health rollup at version 5 without changing a row, and fill health_servers at version 6', () => {
    const path = folder.file('v4.db');
    const db = new Database(path);
    db.pragma('journal_mode = WAL');
    for (const migration of SQLITE_MIGRATIONS.slice(0, 4)) migration.up(db);
    // rows as version 4 wrote them (every level, one histogram bucket each)
    const insert = db.prepare(
      'INSERT INTO health_rollup (level, bucket_start, server, ok, failed, cancelled, last_failure_at, min_ms, max_ms, h5) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    const DAY = 86_400_000;
    for (let i = 0; i < 300; i++) {
      const at = T + i * 45_000;
      const failed = i % 5 === 0 ? 1 : 0;
      for (const [level, size] of [60_000, 3_600_000, DAY, 32 * DAY].entries()) {
        insert.run(
          level,
          Math.floor(at / size) * size * 0 + i * 1_000_000 + level,
          `s${i % 7}`,
          1 - failed,
          failed,
          0,
          failed ? at : null,
          2,
          2,
          1,
        );
      }
      void at;
    }
    const rows = (d: Database.Database): unknown[] =>
      d
        .prepare(
          `SELECT server, level, bucket_start, ok, failed, cancelled, last_failure_at, min_ms, max_ms, ${Array.from({ length: HISTOGRAM_BUCKETS_V4 }, (_, k) => `h${k}`).join(', ')}
           FROM health_rollup ORDER BY server, level, bucket_start`,
        )
        .raw()
        .all();
    const before = rows(db);
    expect(before).toHaveLength(1200);
    for (const migration of SQLITE_MIGRATIONS.slice(4, 7)) migration.up(db);
    expect(rows(db)).toEqual(before);
    expect(primaryKeyOf(db, 'health_rollup')).toEqual(['server', 'level', 'bucket_start']);
    // version 6 filled health_servers from the rollup's day buckets
    expect(db.prepare('SELECT count(*) FROM health_servers').pluck().get()).toBe(7);
    db.close();
  });

  it('rebuild the health rollup from the steps at versions 8 and 9: latency over answered calls only, failures by cause', async () => {
    const path = folder.file('v7.db');
    const db = new Database(path);
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE schema_version (version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at INTEGER NOT NULL)');
    for (const migration of SQLITE_MIGRATIONS.slice(0, 7)) {
      migration.up(db);
      db.prepare('INSERT INTO schema_version VALUES (?, ?, ?)').run(migration.version, migration.name, T);
    }
    db.prepare("INSERT INTO runs (id, status, configuration, created_at, run_no) VALUES (?, 'completed', 'c', ?, 1)").run(DONE, T);
    const step = db.prepare(
      "INSERT INTO steps (id, run_id, sequence, kind, round, duration_ms, created_at, payload, tool_server, tool_outcome, call_server, call_outcome) VALUES ((1 << 32) + ?, ?, ?, 'tool', 0, ?, ?, ?, 'flaky', ?, 'flaky', ?)",
    );
    // the demo's flaky server: nine answered calls of 1–9 ms, one cancelled call of 410 ms
    const calls: [string, number, Record<string, unknown>][] = [
      ...Array.from({ length: 9 }, (_, i): [string, number, Record<string, unknown>] =>
        i % 3 === 2 ? ['failed', i + 1, { toolFailureCause: 'server_error' }] : ['ok', i + 1, {}],
      ),
      ['cancelled', 410, {}],
      ['failed', 2000, {}], // a row without a cause: unknown, and not an answer
      ['failed', 3, { toolFailureCause: 'invalid_arguments' }],
    ];
    calls.forEach(([outcome, ms, extra], i) => {
      const payload = JSON.stringify({ kind: 'tool', toolServer: 'flaky', toolIsError: outcome !== 'ok', toolOutcome: outcome, ...extra });
      step.run(i, DONE, i, ms, T + i * 1000, payload, outcome, outcome);
    });
    db.close();

    const store = await SqliteRunStore.open({ path });

    setExactHealthMaxCalls(store, 0);
    const [rollup] = await store.serverHealth();
    const want = serverHealth(await store.readSteps(DONE))[0]!;
    await store.close();
    expect(rollup).toMatchObject({ calls: 12, ok: 6, failed: 5, cancelled: 1, invalidArguments: 1, answered: 10, p95DurationMs: 9 });
    expect(rollup!.failureCauses).toEqual([
      { cause: 'server_error', calls: 3 },
      { cause: 'invalid_arguments', calls: 1 },
      { cause: 'unknown', calls: 1 },
    ]);
    expect({ ...rollup, p50DurationMs: 0 }).toEqual({ ...want, p50DurationMs: 0 });
    expect(Math.abs(rollup!.p50DurationMs! - want.p50DurationMs!) / want.p50DurationMs!).toBeLessThanOrEqual(0.1226);
    const after = new Database(path, { readonly: true });
    expect(after.prepare('SELECT call_cause FROM steps WHERE call_cause IS NOT NULL ORDER BY id').pluck().all()).toEqual([
      'server_error',
      'server_error',
      'server_error',
      'invalid_arguments',
    ]);
    expect(after.prepare('SELECT DISTINCT server FROM health_rollup').pluck().all()).toEqual(['flaky']);
    after.close();
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
    expect(done).toMatchObject({
      status: 'completed',
      configuration: 'support-bot',
      actor: 'ops@example.com',
      stepCount: 8,
      heartbeatAt: null,
    });
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
    const rollup = await SqliteRunStore.open({ path });
    setExactHealthMaxCalls(rollup, 0);
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
    const entries = buildRunTimeline(run, await store.readSteps(DONE));
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
      expect(bySequence.get(step.sequence)!.outcome).toBe(stepOutcome(step.payload));
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
