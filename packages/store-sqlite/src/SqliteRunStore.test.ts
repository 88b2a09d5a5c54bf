import { randomUUID } from 'node:crypto';
import { buildRunTimeline, RunStoreError, type StoredRun } from '@runledger/trace';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SqliteRunStore } from './SqliteRunStore.js';
import { tempFolder, toolStep } from './testing/tempDatabase.js';

let folder: ReturnType<typeof tempFolder>;
const open: SqliteRunStore[] = [];
async function openStore(file = 'runs.db', options: { cancelPollMs?: number; busyTimeoutMs?: number } = {}): Promise<SqliteRunStore> {
  const store = await SqliteRunStore.open({ path: folder.file(file), ...options });
  open.push(store);
  return store;
}

beforeEach(() => {
  folder = tempFolder();
});
afterEach(async () => {
  for (const store of open.splice(0)) await store.close();
  folder.remove();
});

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

describe('SqliteRunStore.open', () => {
  it('creates the file in WAL mode with synchronous FULL and the newest schema version', async () => {
    const store = await openStore();
    await store.close();
    const db = new Database(folder.file());
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.prepare('SELECT version FROM schema_version ORDER BY version').pluck().all()).toEqual(
      Array.from({ length: SqliteRunStore.SCHEMA_VERSION }, (_, i) => i + 1),
    );
    db.close();
    const again = await openStore();
    expect(await again.listRuns()).toEqual({ runs: [], nextCursor: null });
  });

  it('refuses a database written by a newer schema version and leaves it untouched', async () => {
    await (await openStore()).close();
    const db = new Database(folder.file());
    db.prepare("INSERT INTO schema_version VALUES (99, 'from the future', 0)").run();
    db.close();
    const error = await SqliteRunStore.open({ path: folder.file() }).catch((e: unknown) => e);
    expect(RunStoreError.is(error) && error.code).toBe('schema_too_new');
    expect((error as Error).message).toContain(`schema version 99, newer than ${SqliteRunStore.SCHEMA_VERSION}`);
    const check = new Database(folder.file());
    expect(check.prepare('SELECT max(version) FROM schema_version').pluck().get()).toBe(99);
    check.close();
  });

  it('refuses a file that is not a database with a storage_failure', async () => {
    const { writeFileSync } = await import('node:fs');
    writeFileSync(folder.file('junk.db'), 'this is not a database, just some text '.repeat(200));
    const error = await SqliteRunStore.open({ path: folder.file('junk.db') }).catch((e: unknown) => e);
    expect(RunStoreError.is(error) && error.code).toBe('storage_failure');
  });

  it('refuses bad options, naming the field', async () => {
    await expect(SqliteRunStore.open({ path: '' })).rejects.toThrow('SqliteRunStoreOptions.path must be a non-empty file path');
    await expect(SqliteRunStore.open({ path: folder.file(), cancelPollMs: 0 })).rejects.toThrow(
      'SqliteRunStoreOptions.cancelPollMs must be a positive number of ms, got 0',
    );
  });
});

describe('runs and steps', () => {
  it('assigns 0-based gap-free sequences and keeps counters per run', async () => {
    const store = await openStore();
    const run = await store.createRun({ configuration: 'agent-a', actor: 'ops', createdAt: T0 });
    expect(run).toMatchObject({ status: 'running', configuration: 'agent-a', actor: 'ops', createdAt: T0, startedAt: T0 });
    const outcomes = ['ok', 'failed', 'cancelled', 'ok'] as const;
    const sequences: number[] = [];
    for (const [i, outcome] of outcomes.entries()) sequences.push(await store.appendStep(run.id, toolStep('github', outcome, 10, T0 + i)));
    sequences.push(
      await store.appendStep(run.id, {
        kind: 'llm',
        round: 1,
        durationMs: 5.5,
        createdAt: T0 + 9,
        payload: { kind: 'llm' },
        toolServer: null,
        toolOutcome: null,
      }),
    );
    expect(sequences).toEqual([0, 1, 2, 3, 4]);
    const stored = (await store.getRun(run.id)) as StoredRun;
    expect(stored.stepCount).toBe(5);
    expect(stored.outcomeCounts).toEqual({ ok: 2, failed: 1, cancelled: 1 });
    const steps = await store.readSteps(run.id);
    expect(steps.map((s) => s.sequence)).toEqual([0, 1, 2, 3, 4]);
    expect(steps[1]).toMatchObject({
      runId: run.id,
      kind: 'tool',
      toolServer: 'github',
      toolOutcome: 'failed',
      durationMs: 10,
      createdAt: T0 + 1,
    });
    expect(JSON.parse(steps[1]!.payload)).toMatchObject({ toolIsError: true, toolOutcome: 'failed' });
    expect(steps[4]).toMatchObject({ kind: 'llm', round: 1, durationMs: 5.5, toolServer: null, toolOutcome: null });
    expect((await store.readSteps(run.id, { fromSequence: 2, limit: 2 })).map((s) => s.sequence)).toEqual([2, 3]);
    expect(await store.readSteps(run.id, { fromSequence: 9 })).toEqual([]);
  });

  it('refuses bad input naming the field, and unknown runs with run_not_found', async () => {
    const store = await openStore();
    const run = await store.createRun({ configuration: 'a' });
    await expect(store.createRun({ configuration: 'a', id: 'not-a-uuid' })).rejects.toThrow('CreateRunInput.id must be a UUID');
    await expect(store.createRun({ configuration: 'a', id: run.id })).rejects.toThrow('CreateRunInput.id must be new');
    await expect(store.createRun({ configuration: '' })).rejects.toThrow('CreateRunInput.configuration must be a non-empty string');
    const good = toolStep('s', 'ok', 1, T0);
    await expect(store.appendStep(run.id, { ...good, round: -1 })).rejects.toThrow(
      'AppendStepInput.round must be an integer from 0 to 2147483647, got -1',
    );
    await expect(store.appendStep(run.id, { ...good, toolOutcome: 'maybe' as 'ok' })).rejects.toThrow(
      'AppendStepInput.toolOutcome must be',
    );
    await expect(store.appendStep(run.id, { ...good, payload: [] as unknown as Record<string, unknown> })).rejects.toThrow(
      'AppendStepInput.payload must be a plain object',
    );
    const missing = randomUUID();
    const error = await store.appendStep(missing, good).catch((e: unknown) => e);
    expect(RunStoreError.is(error) && error.code).toBe('run_not_found');
    await expect(store.finishRun(missing, { status: 'completed' })).rejects.toThrow(`run "${missing}" does not exist`);
    await expect(store.finishRun(run.id, { status: 'running' as 'completed' })).rejects.toThrow('FinishRunInput.status must be one of');
    expect(await store.getRun(missing)).toBeNull();
    expect((await store.getRun(run.id))!.stepCount).toBe(0);
  });

  it('keeps terminal runs terminal and the first cancel request', async () => {
    const store = await openStore();
    const run = await store.createRun({ configuration: 'a', createdAt: T0 });
    const cancelled = await store.requestCancel(run.id, T0 + 10);
    expect(cancelled.cancelRequestedAt).toBe(T0 + 10);
    expect((await store.requestCancel(run.id, T0 + 20)).cancelRequestedAt).toBe(T0 + 10);
    const done = await store.finishRun(run.id, { status: 'cancelled', finishedAt: T0 + 30, terminationReason: 'operator' });
    expect(done).toMatchObject({ status: 'cancelled', finishedAt: T0 + 30, terminationReason: 'operator' });
    // a finish after the finish changes how it ended not at all: it is kept as a late one
    expect(await store.finishRun(run.id, { status: 'completed', finishedAt: T0 + 40 })).toEqual({
      ...done,
      lateFinishStatus: 'completed',
      lateFinishAt: T0 + 40,
    });
    const other = await store.createRun({ configuration: 'a' });
    await store.finishRun(other.id, { status: 'completed', finishedAt: T0 + 50 });
    // a cancel after the finish is kept as a late one; the run stays completed
    expect(await store.requestCancel(other.id, T0 + 60)).toMatchObject({ status: 'completed', cancelRequestedAt: T0 + 60 });
  });

  it('finds runs with a stale heartbeat and marks them interrupted', async () => {
    const store = await openStore();
    const fresh = await store.createRun({ configuration: 'a', createdAt: T0 });
    const stale = await store.createRun({ configuration: 'a', createdAt: T0 });
    const done = await store.createRun({ configuration: 'a', createdAt: T0 });
    await store.finishRun(done.id, { status: 'completed', finishedAt: T0 + 1 });
    await store.heartbeat(fresh.id, T0 + 60_000);
    await store.heartbeat(stale.id, T0 + 1000);
    await store.heartbeat(stale.id, T0 + 500); // never goes back
    expect((await store.getRun(stale.id))!.heartbeatAt).toBe(T0 + 1000);
    await store.heartbeat(randomUUID()); // an unknown run: nothing to record, nothing to fail
    expect(await store.recoverInterrupted(T0 + 30_000)).toEqual([stale.id]);
    const recovered = (await store.getRun(stale.id))!;
    expect(recovered.status).toBe('interrupted');
    expect(recovered.terminationReason).toBe(`no sign of life since ${new Date(T0 + 1000).toISOString()}`);
    expect(recovered.finishedAt).not.toBeNull();
    expect((await store.getRun(fresh.id))!.status).toBe('running');
    expect(await store.recoverInterrupted(T0 + 30_000)).toEqual([]);
  });
});

describe('listRuns', () => {
  it('filters by status, configuration, outcome and time, newest first with keyset paging', async () => {
    const store = await openStore();
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) {
      const run = await store.createRun({ configuration: i % 2 === 0 ? 'even' : 'odd', createdAt: T0 + Math.floor(i / 2) * 1000 });
      ids.push(run.id);
      if (i % 5 === 0) await store.appendStep(run.id, toolStep('s', 'failed', 1, T0));
      if (i % 3 === 0) await store.finishRun(run.id, { status: 'completed' });
    }
    const all: StoredRun[] = [];
    let cursor: string | null = null;
    do {
      const page = await store.listRuns({ limit: 7, cursor });
      expect(page.runs.length).toBeLessThanOrEqual(7);
      all.push(...page.runs);
      cursor = page.nextCursor;
    } while (cursor !== null);
    expect(all).toHaveLength(25);
    expect(new Set(all.map((r) => r.id)).size).toBe(25);
    for (let i = 1; i < all.length; i++) {
      const [a, b] = [all[i - 1]!, all[i]!];
      expect(a.createdAt > b.createdAt || (a.createdAt === b.createdAt && a.id > b.id)).toBe(true);
    }
    expect((await store.listRuns({ configuration: 'even', limit: 200 })).runs).toHaveLength(13);
    expect((await store.listRuns({ status: 'completed', limit: 200 })).runs).toHaveLength(9);
    expect((await store.listRuns({ status: ['completed', 'running'], limit: 200 })).runs).toHaveLength(25);
    expect((await store.listRuns({ hasOutcome: 'failed' })).runs.map((r) => r.id).sort()).toEqual(
      [ids[0], ids[5], ids[10], ids[15], ids[20]].sort(),
    );
    expect((await store.listRuns({ hasOutcome: 'ok' })).runs).toEqual([]);
    const window = await store.listRuns({ createdFrom: T0 + 2000, createdTo: T0 + 4000 });
    expect(window.runs.map((r) => r.createdAt)).toEqual([T0 + 3000, T0 + 3000, T0 + 2000, T0 + 2000]);
    await expect(store.listRuns({ cursor: 'garbage' })).rejects.toThrow('RunQuery.cursor must be a nextCursor returned by listRuns');
    await expect(store.listRuns({ limit: 0 })).rejects.toThrow('RunQuery.limit must be a positive integer');
    expect((await store.listRuns({ limit: 1000 })).runs).toHaveLength(25);
  });
});

describe('bad data', () => {
  it('reads back payloads that are not JSON or not objects as raw text, and lists their runs', async () => {
    const store = await openStore();
    const run = await store.createRun({ configuration: 'a', createdAt: T0 });
    await store.appendStep(run.id, toolStep('s', 'ok', 1, T0));
    const db = new Database(folder.file());
    const insert = db.prepare(
      `INSERT INTO steps (id, run_id, sequence, kind, round, duration_ms, created_at, payload)
       VALUES (((SELECT run_no FROM runs WHERE id = @run) << 32) + @sequence, @run, @sequence, @kind, 0, 0, @at, @payload)`,
    );
    insert.run({ run: run.id, sequence: 1, kind: 'tool', at: T0 + 1, payload: '{"toolName": "mcp_s_x", broken' });
    insert.run({ run: run.id, sequence: 2, kind: 'tool', at: T0 + 2, payload: '[1, 2, 3]' });
    insert.run({ run: run.id, sequence: 3, kind: 'wat', at: T0 + 3, payload: '42' });
    insert.run({ run: run.id, sequence: 4, kind: 'tool', at: T0 + 4, payload: Buffer.from('{"blob": true}') });
    db.prepare('UPDATE runs SET step_count = 5 WHERE id = ?').run(run.id);
    db.close();
    const steps = await store.readSteps(run.id);
    expect(steps.map((s) => [s.sequence, s.kind, s.payload])).toEqual([
      [0, 'tool', steps[0]!.payload],
      [1, 'tool', '{"toolName": "mcp_s_x", broken'],
      [2, 'tool', '[1, 2, 3]'],
      [3, 'wat', '42'],
      [4, 'tool', '{"blob": true}'],
    ]);
    expect((await store.listRuns()).runs[0]!.stepCount).toBe(5);
    const timeline = buildRunTimeline(await store.getRun(run.id), steps);
    expect(timeline.filter((e) => e.unreadable).map((e) => e.sequence)).toEqual([1, 2, 3]);
    expect(timeline.find((e) => e.sequence === 0)!.outcome).toBe('ok');
    expect(timeline.find((e) => e.sequence === 4)!.unreadable).toBe(false);
    expect(await store.appendStep(run.id, toolStep('s', 'ok', 1, T0 + 5))).toBe(5);
  });
});

describe('watchCancel', () => {
  it('fires once for a cancel requested in this process', async () => {
    const store = await openStore('runs.db', { cancelPollMs: 10_000 });
    const run = await store.createRun({ configuration: 'a' });
    const onCancel = vi.fn();
    store.watchCancel(run.id, onCancel);
    await new Promise((r) => setTimeout(r, 20));
    expect(onCancel).not.toHaveBeenCalled();
    await store.requestCancel(run.id);
    await store.requestCancel(run.id);
    await new Promise((r) => setTimeout(r, 20));
    expect(onCancel).toHaveBeenCalledTimes(1);
  });

  it('notices a cancel requested by another connection by polling, and stops when unwatched', async () => {
    const store = await openStore('runs.db', { cancelPollMs: 20 });
    const peer = await openStore('runs.db');
    const run = await store.createRun({ configuration: 'a' });
    const other = await store.createRun({ configuration: 'a' });
    const onCancel = vi.fn();
    const onOther = vi.fn();
    store.watchCancel(run.id, onCancel);
    const stop = store.watchCancel(other.id, onOther);
    stop();
    await peer.requestCancel(run.id);
    await peer.requestCancel(other.id);
    await vi.waitFor(() => expect(onCancel).toHaveBeenCalledTimes(1), { timeout: 2000 });
    await new Promise((r) => setTimeout(r, 80));
    expect(onCancel).toHaveBeenCalledTimes(1);
    expect(onOther).not.toHaveBeenCalled();
  });

  it('fires at once for a run whose cancel was already requested, and never after close', async () => {
    const store = await openStore('runs.db', { cancelPollMs: 20 });
    const run = await store.createRun({ configuration: 'a' });
    await store.requestCancel(run.id);
    const early = vi.fn();
    store.watchCancel(run.id, early);
    await vi.waitFor(() => expect(early).toHaveBeenCalledTimes(1), { timeout: 500 });
    const late = vi.fn();
    const run2 = await store.createRun({ configuration: 'a' });
    store.watchCancel(run2.id, late);
    await store.close();
    const peer = await openStore('runs.db');
    await peer.requestCancel(run2.id);
    await new Promise((r) => setTimeout(r, 80));
    expect(late).not.toHaveBeenCalled();
    expect(store.watchCancel(run2.id, late)).toBeTypeOf('function');
    await expect(store.getRun(run.id)).rejects.toThrow('is closed');
  });
});

describe('importRun', () => {
  it('writes a run and its steps exactly, once', async () => {
    const source = await openStore('a.db');
    const target = await openStore('b.db');
    const run = await source.createRun({ configuration: 'a', actor: 'me', createdAt: T0 });
    await source.appendStep(run.id, toolStep('github', 'failed', 12.5, T0 + 1));
    await source.appendStep(run.id, toolStep('github', 'ok', 3, T0 + 2));
    await source.finishRun(run.id, { status: 'failed', finishedAt: T0 + 3, terminationReason: 'boom' });
    const storedRun = (await source.getRun(run.id))!;
    const steps = [...(await source.readSteps(run.id))];
    steps[1] = { ...steps[1]!, payload: 'not json at all' };
    expect(await target.importRun(storedRun, steps)).toBe(true);
    expect(await target.importRun(storedRun, steps)).toBe(false);
    expect(await target.getRun(run.id)).toEqual(storedRun);
    expect(await target.readSteps(run.id)).toEqual(steps);
    expect(await target.appendStep(run.id, toolStep('github', 'ok', 1, T0 + 4))).toBe(2);
    const [health] = await target.serverHealth();
    expect(health).toMatchObject({ server: 'github', calls: 3, ok: 2, failed: 1, lastFailureAt: T0 + 1 });
    await expect(target.importRun({ ...storedRun, id: randomUUID() }, steps)).rejects.toThrow("steps[0].runId must be the run's id");
    await expect(target.importRun(storedRun, [steps[1]!])).rejects.toThrow('steps[0].sequence must be 0');
  });
});

describe('busy handling', () => {
  it('waits for another connection holding the write lock instead of failing', async () => {
    const store = await openStore();
    const run = await store.createRun({ configuration: 'a' });
    const blocker = new Database(folder.file());
    blocker.exec('BEGIN IMMEDIATE');
    setTimeout(() => blocker.exec('COMMIT'), 400);
    const started = Date.now();
    expect(await store.appendStep(run.id, toolStep('s', 'ok', 1, T0))).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    blocker.close();
  });

  it('gives up after busyTimeoutMs with a storage_failure, never a raw SQLITE_BUSY', async () => {
    const store = await openStore('runs.db', { busyTimeoutMs: 250 });
    const run = await store.createRun({ configuration: 'a' });
    const blocker = new Database(folder.file());
    blocker.exec('BEGIN IMMEDIATE');
    const error = await store.appendStep(run.id, toolStep('s', 'ok', 1, T0)).catch((e: unknown) => e);
    blocker.exec('ROLLBACK');
    blocker.close();
    expect(RunStoreError.is(error) && error.code).toBe('storage_failure');
    expect((error as Error).message).toContain('locked by another connection for more than 250 ms');
    expect(((error as Error).cause as { code?: string }).code).toMatch(/^SQLITE_BUSY/);
    // the store keeps working afterwards, and the queue kept order
    const order = await Promise.all([0, 1, 2].map(() => store.appendStep(run.id, toolStep('s', 'ok', 1, T0))));
    expect(order).toEqual([0, 1, 2]);
  });
});

describe('backup', () => {
  it('writes a consistent, standalone copy that opens as a store, and refuses an existing file', async () => {
    const store = await openStore();
    const peer = await openStore();
    const run = await store.createRun({ configuration: 'a', createdAt: T0 });
    for (let i = 0; i < 50; i++) await store.appendStep(run.id, toolStep('s', i % 5 === 0 ? 'failed' : 'ok', i, T0 + i));
    const copy = folder.file('backup.db');
    // a writer in the same file keeps going while the copy is taken
    const writing = (async () => {
      for (let i = 0; i < 20; i++) await peer.appendStep(run.id, toolStep('s', 'ok', 1, T0 + 100 + i));
    })();
    await store.backup(copy);
    await writing;
    await expect(store.backup(copy)).rejects.toThrow('already exists');
    const check = new Database(copy, { readonly: true });
    expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
    check.close();
    const restored = await openStore('backup.db');
    const steps = await restored.readSteps(run.id);
    expect(steps.length).toBeGreaterThanOrEqual(50);
    expect(steps.map((s) => s.sequence)).toEqual(steps.map((_, i) => i));
    expect((await restored.getRun(run.id))!.stepCount).toBe(steps.length);
    expect((await restored.serverHealth())[0]!.calls).toBe(steps.length);
  });
});
