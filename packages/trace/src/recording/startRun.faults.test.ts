// The recorder under store faults, with an in-memory store behind a fault switch. The same rules
// against real faults (killed PostgreSQL backends, an outage behind a TCP proxy, a full disk under
// SQLite) are tested in the store packages.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { deliverSpool } from '../spool/deliverSpool.js';
import { InMemoryRunStore } from '../store/InMemoryRunStore.js';
import type { AppendStepInput, FinishRunInput, RunStore, StoredRun } from '../store/RunStore.js';
import { RunStoreError } from '../store/RunStoreError.js';
import { startRun } from './startRun.js';

const FAST_RETRY = { attempts: 4, initialDelayMs: 1, maxDelayMs: 5 };

type Fault = 'before' | 'after' | 'hang' | null;

/**
 * A store whose writes fail while a fault is set: `before` fails without writing (a refused or
 * reset connection), `after` writes and then fails (the connection died during COMMIT: the
 * writer cannot know the step is stored).
 */
class FaultyStore implements RunStore {
  fault: Fault = null;
  /** Fail only this many writes, then heal; Infinity while the outage lasts. */
  failures = Infinity;
  attempts = 0;
  /** Refuse for good (invalid_input) the appends whose payload has this round, once each. */
  refuseRound: number | null = null;
  readonly inner = InMemoryRunStore.create();

  async #write<T>(write: () => Promise<T>): Promise<T> {
    this.attempts++;
    if (this.fault === null || this.failures <= 0) return write();
    this.failures--;
    if (this.fault === 'hang') return new Promise<T>(() => undefined); // a connection gone silent
    if (this.fault === 'after') await write();
    throw RunStoreError.storageFailure('Connection terminated unexpectedly');
  }

  createRun = (input: Parameters<RunStore['createRun']>[0]) => this.inner.createRun(input);
  appendStep = (runId: string, step: AppendStepInput) =>
    this.#write(() => {
      if (this.refuseRound !== null && step.round === this.refuseRound) {
        this.refuseRound = null;
        return Promise.reject(RunStoreError.invalidInput('refused for good by the test'));
      }
      return this.inner.appendStep(runId, step);
    });
  finishRun = (runId: string, finish: FinishRunInput) => this.#write(() => this.inner.finishRun(runId, finish));
  requestCancel = (runId: string, at?: number) => this.inner.requestCancel(runId, at);
  heartbeat = (runId: string, at?: number) => this.inner.heartbeat(runId, at);
  recoverInterrupted = (staleBefore: number) => this.inner.recoverInterrupted(staleBefore);
  getRun = (runId: string) => this.inner.getRun(runId);
  listRuns = (query?: Parameters<RunStore['listRuns']>[0]) => this.inner.listRuns(query);
  readSteps = (runId: string, query?: Parameters<RunStore['readSteps']>[1]) => this.inner.readSteps(runId, query);
  serverHealth = (query?: Parameters<RunStore['serverHealth']>[0]) => this.inner.serverHealth(query);
  watchCancel = (runId: string, onCancel: () => void) => this.inner.watchCancel(runId, onCancel);
  importRun = (run: StoredRun, steps: Parameters<RunStore['importRun']>[1]) => this.inner.importRun(run, steps);
  close = () => this.inner.close();
}

const dirs: string[] = [];
function spoolDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'runledger-spool-test-'));
  dirs.push(dir);
  return dir;
}

afterEach(() => {
  vi.restoreAllMocks();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function until(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('startRun under store faults', () => {
  it('retries a write that failed before it was stored, in record order', async () => {
    const store = new FaultyStore();
    const run = await startRun(store, { configuration: 'c', heartbeatMs: 0, retry: FAST_RETRY, spoolDir: spoolDir() });
    store.fault = 'before';
    store.failures = 2;
    const recorded = [
      run.trace.recordRequest({ content: 'a' }),
      run.trace.recordLlmCall({ round: 0 }),
      run.trace.recordLlmCall({ round: 1 }),
    ];
    await Promise.all(recorded);
    expect(run.trace.recordFailures).toBe(0);
    expect((await store.readSteps(run.id)).map((s) => [s.sequence, s.kind, s.round])).toEqual([
      [0, 'request', 0],
      [1, 'llm', 0],
      [2, 'llm', 1],
    ]);
    expect(store.attempts).toBe(5);
  });

  it('stores a step once when the store failed after it was written (an ambiguous commit)', async () => {
    const store = new FaultyStore();
    const run = await startRun(store, { configuration: 'c', heartbeatMs: 0, retry: FAST_RETRY, spoolDir: spoolDir() });
    store.fault = 'after';
    store.failures = 3;
    for (let round = 0; round < 3; round++) await run.trace.recordLlmCall({ round });
    const steps = await store.readSteps(run.id);
    expect(steps.map((s) => [s.sequence, s.round])).toEqual([
      [0, 0],
      [1, 1],
      [2, 2],
    ]);
    store.fault = null;
    expect(await run.complete()).toMatchObject({ status: 'completed', stepCount: 3, unstoredSteps: 0 });
  });

  it('spools steps and the final status through an outage, then delivers them in order and removes the file', async () => {
    const store = new FaultyStore();
    const dir = spoolDir();
    const run = await startRun(store, { configuration: 'c', heartbeatMs: 0, retry: FAST_RETRY, spoolDir: dir });
    await run.trace.recordRequest({ content: 'before the outage' });
    store.fault = 'before';
    for (let round = 0; round < 5; round++) await run.trace.recordLlmCall({ round });
    expect(run.trace.recordFailures).toBe(0);
    const [file] = readdirSync(dir);
    expect(file).toMatch(new RegExp(`^spool-${process.pid}-\\d+-[0-9a-f]+\\.jsonl$`));
    // the file's count line, then the five entries
    const lines = readFileSync(join(dir, file!), 'utf8').trim().split('\n');
    expect(JSON.parse(lines[0]!)).toEqual({ v: 1, type: 'count', acknowledged: 5 });
    expect(lines.slice(1)).toHaveLength(5);
    // the final status cannot be stored either: it waits in the spool, and the call says so
    await expect(run.complete()).rejects.toThrow(/could not be stored yet; it waits in the spool file .*spool-/);
    expect((await store.getRun(run.id))?.status).toBe('running');
    store.fault = null; // the store is back: the background delivery hands everything over
    const finished = await run.finished;
    expect(finished).toMatchObject({ status: 'completed', stepCount: 6, unstoredSteps: 0 });
    expect((await store.readSteps(run.id)).map((s) => [s.sequence, s.kind])).toEqual([
      [0, 'request'],
      [1, 'llm'],
      [2, 'llm'],
      [3, 'llm'],
      [4, 'llm'],
      [5, 'llm'],
    ]);
    await until(() => readdirSync(dir).length === 0, 'the spool file removal');
    expect(await run.complete()).toEqual(finished);
  });

  it('delivers the spool of a process that is gone with deliverSpool, idempotently', async () => {
    const store = new FaultyStore();
    const dir = spoolDir();
    const run = await startRun(store, { configuration: 'c', heartbeatMs: 0, retry: FAST_RETRY, spoolDir: dir });
    store.fault = 'after'; // every step reaches the store, but no answer comes back
    await run.trace.recordLlmCall({ round: 0 });
    await run.trace.recordLlmCall({ round: 1 });
    await expect(run.fail(new Error('model quota'))).rejects.toThrow(/spool/);
    const [file] = readdirSync(dir);
    // a copy of the file as a process that died would have left it
    const orphan = join(dir, 'spool-999999999-1-00000000.jsonl');
    writeFileSync(orphan, readFileSync(join(dir, file!)));
    store.fault = null;
    await run.finished;
    await until(() => !readdirSync(dir).includes(file!), 'the process removing its own spool file');
    const result = await deliverSpool(store.inner, { dir });
    expect(result.files).toEqual([
      {
        path: orphan,
        pid: 999999999,
        state: 'delivered',
        steps: 2,
        finishes: 1,
        lateFinishes: [],
        torn: 0,
        unreadable: 0,
        lost: 0,
        problem: null,
      },
    ]);
    expect(readdirSync(dir)).toEqual([]);
    expect(await store.getRun(run.id)).toMatchObject({ status: 'failed', terminationReason: 'model quota', stepCount: 2 });
  });

  it('skips a torn last line and keeps a file whose entries the store refuses, saying why', async () => {
    const dir = spoolDir();
    const store = InMemoryRunStore.create();
    const run = await store.createRun({ configuration: 'c' });
    const step = { kind: 'llm', round: 0, durationMs: 1, createdAt: 5, payload: { kind: 'llm' }, toolServer: null, toolOutcome: null };
    const good = JSON.stringify({ v: 1, type: 'step', runId: run.id, sequence: 0, step });
    writeFileSync(join(dir, 'spool-999999998-1-0000000a.jsonl'), `${good}\n{"v":1,"type":"st`);
    const missing = '00000000-0000-4000-8000-000000000000';
    writeFileSync(
      join(dir, 'spool-999999998-2-0000000b.jsonl'),
      `${JSON.stringify({ v: 1, type: 'step', runId: missing, sequence: 0, step })}\n`,
    );
    const result = await deliverSpool(store, { dir });
    expect(result.files.map((f) => [f.state, f.steps, f.torn, f.problem])).toEqual([
      ['delivered', 1, 1, null],
      ['kept', 0, 0, `step 0 of run ${missing}: run_not_found: run "${missing}" does not exist`],
    ]);
    expect(readdirSync(dir)).toEqual(['spool-999999998-2-0000000b.jsonl']);
    expect(await store.readSteps(run.id)).toHaveLength(1);
  });

  it('reports a step that can be neither stored nor spooled on stderr, counts it, and stores the count with the run', async () => {
    const store = new FaultyStore();
    const blocker = join(spoolDir(), 'a-file');
    writeFileSync(blocker, '');
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    // the spool folder cannot be made: a file stands where it would be
    const run = await startRun(store, { configuration: 'c', heartbeatMs: 0, retry: FAST_RETRY, spoolDir: join(blocker, 'spool') });
    await run.trace.recordRequest({ content: 'kept' });
    store.fault = 'before';
    await run.trace.recordLlmCall({ round: 0 });
    await run.trace.recordLlmCall({ round: 1 });
    expect(run.trace.recordFailures).toBe(2);
    const lines = stderr.mock.calls.map(([text]) => String(text));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^runledger: a llm step was NOT stored .*nor written to the spool in .*a-file\/spool/);
    store.fault = null;
    await run.trace.recordLlmCall({ round: 2 });
    const finished = await run.complete();
    expect(finished).toMatchObject({ status: 'completed', stepCount: 2, unstoredSteps: 2 });
    // the steps that were stored keep gap-free sequences
    expect((await store.readSteps(run.id)).map((s) => [s.sequence, s.kind, s.round])).toEqual([
      [0, 'request', 0],
      [1, 'llm', 2],
    ]);
  });

  it('never leaves a run running because its final write failed once; the next call tries again', async () => {
    const store = new FaultyStore();
    const run = await startRun(store, { configuration: 'c', heartbeatMs: 0, retry: { attempts: 1 }, spoolDir: false });
    store.fault = 'before';
    store.failures = 1;
    await expect(run.complete()).rejects.toThrow('Connection terminated unexpectedly');
    expect((await store.getRun(run.id))?.status).toBe('running');
    // a later fail() ends the run as first decided: completed
    expect(await run.fail(new Error('other'))).toMatchObject({ status: 'completed' });
    expect(await run.finished).toMatchObject({ status: 'completed' });
  });

  it('retries the final status within the budget', async () => {
    const store = new FaultyStore();
    const run = await startRun(store, { configuration: 'c', heartbeatMs: 0, retry: FAST_RETRY, spoolDir: spoolDir() });
    store.fault = 'after';
    store.failures = 2;
    expect(await run.complete()).toMatchObject({ status: 'completed' });
  });

  it('stores a failure whose message has NUL bytes and lone surrogates, made storable', async () => {
    const store = InMemoryRunStore.create();
    const run = await startRun(store, { configuration: 'c', heartbeatMs: 0, spoolDir: false });
    const done = await run.fail(new Error('printed \u0000 and \uD800 and \uDC00 and 😀'));
    expect(done).toMatchObject({ status: 'failed', terminationReason: 'printed \uFFFD and \uFFFD and \uFFFD and 😀' });
  });

  it('ends cancelled when the store took a cancel before the finish, even one this process never saw', async () => {
    const store = InMemoryRunStore.create();
    const run = await startRun(store, { configuration: 'c', heartbeatMs: 0, spoolDir: false });
    // the app's cancel lands just before the run completes, before any watcher could react
    const app = store.openPeer();
    const [, done] = await Promise.all([app.requestCancel(run.id), run.complete()]);
    expect(done.status).toBe('cancelled');
    expect(run.status).toBe('cancelled');
    expect(done.terminationReason).toBe('cancel requested while the run was running (the run reported "completed")');
  });

  it('goes on after a lost step: the next steps read the sequence again and are stored gap-free', async () => {
    const store = new FaultyStore();
    const lost: number[] = [];
    const run = await startRun(store, {
      configuration: 'c',
      heartbeatMs: 0,
      retry: FAST_RETRY,
      spoolDir: false,
      onRecordError: (_error, step) => lost.push(step.round),
    });
    await run.trace.recordLlmCall({ round: 0 });
    store.fault = 'after'; // the last try of round 1 is stored, but the writer never hears so
    store.failures = FAST_RETRY.attempts;
    await run.trace.recordLlmCall({ round: 1 });
    store.fault = 'before';
    store.failures = FAST_RETRY.attempts; // round 2 fails every try: lost for real
    await run.trace.recordLlmCall({ round: 2 });
    store.fault = null;
    for (let round = 3; round < 6; round++) await run.trace.recordLlmCall({ round });
    expect(lost).toEqual([1, 2]);
    expect((await store.readSteps(run.id)).map((s) => [s.sequence, s.round])).toEqual([
      [0, 0],
      [1, 1],
      [2, 3],
      [3, 4],
      [4, 5],
    ]);
    // counted as reported (round 1 was in fact stored: the count errs on the side of loss)
    expect(await run.complete()).toMatchObject({ stepCount: 5, unstoredSteps: 2 });
  });

  it('reports a spooled step the store refuses at delivery, counts it, and keeps the later ones gap-free', async () => {
    const store = new FaultyStore();
    const lost: number[] = [];
    const run = await startRun(store, {
      configuration: 'c',
      heartbeatMs: 0,
      retry: FAST_RETRY,
      spoolDir: spoolDir(),
      onRecordError: (_error, step) => lost.push(step.round),
    });
    store.fault = 'before';
    for (let round = 0; round < 4; round++) await run.trace.recordLlmCall({ round });
    expect(lost).toEqual([]); // acknowledged: all four are in the spool
    store.refuseRound = 1;
    store.fault = null;
    const done = await run.complete().catch(() => run.finished);
    expect(lost).toEqual([1]);
    expect(done).toMatchObject({ status: 'completed', stepCount: 3, unstoredSteps: 1 });
    expect((await store.readSteps(run.id)).map((s) => [s.sequence, s.round])).toEqual([
      [0, 0],
      [1, 2],
      [2, 3],
    ]);
  });

  it('reports a step whose sequence another writer took, and goes on after it', async () => {
    const store = new FaultyStore();
    const lost: string[] = [];
    const run = await startRun(store, {
      configuration: 'c',
      heartbeatMs: 0,
      retry: FAST_RETRY,
      spoolDir: spoolDir(),
      onRecordError: (error) => lost.push(RunStoreError.is(error) ? error.code : String(error)),
    });
    await run.trace.recordLlmCall({ round: 0 });
    await store.inner.appendStep(run.id, {
      kind: 'llm',
      round: 9,
      durationMs: 0,
      createdAt: 1,
      payload: { other: true },
      toolServer: null,
      toolOutcome: null,
    });
    await run.trace.recordLlmCall({ round: 1 }); // its sequence 1 is taken: lost, never moved
    await run.trace.recordLlmCall({ round: 2 });
    expect(lost).toEqual(['sequence_conflict']);
    expect((await store.readSteps(run.id)).map((s) => [s.sequence, s.round])).toEqual([
      [0, 0],
      [1, 9],
      [2, 2],
    ]);
  });

  it('gives up a try the store never answers (a silent connection) and spools the step', async () => {
    const store = new FaultyStore();
    const run = await startRun(store, {
      configuration: 'c',
      heartbeatMs: 0,
      retry: { attempts: 2, initialDelayMs: 1, attemptTimeoutMs: 50 },
      spoolDir: spoolDir(),
    });
    store.fault = 'hang';
    store.failures = 2;
    const started = Date.now();
    await run.trace.recordLlmCall({ round: 0 });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(run.trace.recordFailures).toBe(0);
    expect(await run.complete().catch(() => run.finished)).toMatchObject({ status: 'completed', stepCount: 1 });
  });

  it('starts a new spool file when its file was removed under it (delivered by hand with --all)', async () => {
    const store = new FaultyStore();
    const dir = spoolDir();
    const run = await startRun(store, { configuration: 'c', heartbeatMs: 0, retry: FAST_RETRY, spoolDir: dir });
    store.fault = 'before';
    await run.trace.recordLlmCall({ round: 0 });
    const [first] = readdirSync(dir);
    rmSync(join(dir, first!));
    await run.trace.recordLlmCall({ round: 1 });
    const files = readdirSync(dir);
    expect(files).toHaveLength(1);
    expect(files[0]).not.toBe(first);
    expect(readFileSync(join(dir, files[0]!), 'utf8')).toContain('"sequence":1');
    store.fault = null;
    expect(await run.complete().catch(() => run.finished)).toMatchObject({ stepCount: 2, unstoredSteps: 0 });
  });

  it('delivers the other runs of a spool file when the store refuses one run', async () => {
    const dir = spoolDir();
    const store = InMemoryRunStore.create();
    const good = await store.createRun({ configuration: 'c' });
    const gone = '00000000-0000-4000-8000-000000000002';
    const step = { kind: 'llm', round: 0, durationMs: 1, createdAt: 5, payload: { kind: 'llm' }, toolServer: null, toolOutcome: null };
    const line = (runId: string, sequence: number) => JSON.stringify({ v: 1, type: 'step', runId, sequence, step });
    writeFileSync(
      join(dir, 'spool-999999996-1-000000cc.jsonl'),
      [line(gone, 0), line(good.id, 0), line(gone, 1), line(good.id, 1), ''].join('\n'),
    );
    const result = await deliverSpool(store, { dir });
    expect(result.files[0]).toMatchObject({ state: 'kept', steps: 2 });
    expect(result.files[0]!.problem).toContain(`step 0 of run ${gone}: run_not_found`);
    expect((await store.readSteps(good.id)).map((s) => s.sequence)).toEqual([0, 1]);
  });

  it('retries a store that throws instead of rejecting, and keeps taking the cheap path after it', async () => {
    const store = new FaultyStore();
    const run = await startRun(store, { configuration: 'c', heartbeatMs: 0, retry: FAST_RETRY, spoolDir: false });
    const append = store.appendStep;
    let throws = 1;
    store.appendStep = (runId, step) => {
      if (throws-- > 0) throw RunStoreError.storageFailure('thrown, not rejected');
      return append(runId, step);
    };
    for (let round = 0; round < 3; round++) await run.trace.recordLlmCall({ round });
    expect(run.trace.recordFailures).toBe(0);
    expect((await store.readSteps(run.id)).map((s) => [s.sequence, s.round])).toEqual([
      [0, 0],
      [1, 1],
      [2, 2],
    ]);
    expect(await run.complete()).toMatchObject({ stepCount: 3 });
  });

  it('refuses retry and spool options that break their rules, naming them', async () => {
    const store = InMemoryRunStore.create();
    await expect(startRun(store, { configuration: 'c', retry: { attempts: 0 } })).rejects.toThrow(
      'StartRunOptions.retry.attempts must be an integer ≥ 1, got 0',
    );
    await expect(startRun(store, { configuration: 'c', retry: { maxDelayMs: -1 } })).rejects.toThrow(
      'StartRunOptions.retry.maxDelayMs must be a finite number ≥ 0',
    );
    await expect(startRun(store, { configuration: 'c', spoolDir: '' })).rejects.toThrow(
      'StartRunOptions.spoolDir must be a folder path or false',
    );
  });
});

describe('startRun: the final status after the store was away (issue 30)', () => {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('stores a spooled final status with the time the run ended, not the time it was delivered', async () => {
    const store = new FaultyStore();
    const dir = spoolDir();
    const run = await startRun(store, { configuration: 'c', heartbeatMs: 0, retry: FAST_RETRY, spoolDir: dir });
    store.fault = 'before';
    const ended = Date.now();
    await expect(run.complete()).rejects.toThrow(/waits in the spool file/);
    const spooled = readFileSync(join(dir, readdirSync(dir)[0]!), 'utf8');
    await sleep(400); // the store is away for a while
    store.fault = null;
    const finished = await run.finished;
    expect(finished.status).toBe('completed');
    expect(finished.finishedAt! - ended).toBeGreaterThanOrEqual(0);
    expect(finished.finishedAt! - ended).toBeLessThan(100);
    expect(JSON.parse(spooled.trim().split('\n').at(-1)!).finish.finishedAt).toBe(finished.finishedAt);
  });

  it('keeps a final status that arrives after recovery ended the run as a late finish, with its unstored steps', async () => {
    const store = new FaultyStore();
    const run = await startRun(store, {
      configuration: 'c',
      heartbeatMs: 0,
      retry: FAST_RETRY,
      spoolDir: spoolDir(),
      onRecordError: () => undefined,
    });
    store.refuseRound = 0; // refused for good: lost and counted
    await run.trace.recordLlmCall({ round: 0 });
    expect(run.trace.recordFailures).toBe(1);
    store.fault = 'before';
    const ended = Date.now();
    await expect(run.complete()).rejects.toThrow(/waits in the spool file/);
    // the process looks dead meanwhile: recovery ends the run
    expect(await store.inner.recoverInterrupted(Date.now() + 1)).toEqual([run.id]);
    store.fault = null;
    const finished = await run.finished;
    expect(finished).toMatchObject({ status: 'interrupted', unstoredSteps: 1, lateFinishStatus: 'completed' });
    expect(finished.lateFinishAt! - ended).toBeLessThan(100);
    expect(await store.getRun(run.id)).toEqual(finished);
  });

  it('settles complete() and finished, once, when the store refuses the spooled final status for good (the run was pruned)', async () => {
    const store = new FaultyStore();
    const reported: unknown[] = [];
    const run = await startRun(store, {
      configuration: 'c',
      heartbeatMs: 0,
      retry: FAST_RETRY,
      spoolDir: spoolDir(),
      onError: (error) => reported.push(error),
    });
    store.fault = 'before';
    await expect(run.complete()).rejects.toThrow(/waits in the spool file/);
    await store.inner.recoverInterrupted(Date.now() + 1);
    expect((await store.inner.pruneRuns({ olderThan: Date.now() + 60_000 })).runs).toBe(1);
    store.fault = null;
    const settled = await Promise.race([
      run.finished.then(
        () => 'resolved',
        (error: unknown) => error,
      ),
      sleep(3_000).then(() => 'finished never settled'),
    ]);
    expect(settled).toMatchObject({ name: 'RunFinishRefusedError', code: 'finish_refused', runId: run.id, status: 'completed' });
    expect((settled as Error).message).toMatch(/refused for good.*run_not_found/);
    // every later call gives the same answer, and it was reported once
    expect(await run.complete().catch((error: unknown) => error)).toBe(settled);
    expect(await run.fail(new Error('later')).catch((error: unknown) => error)).toBe(settled);
    expect(reported).toEqual([settled]);
  });

  it('settles complete() and finished with the same typed error when the run is gone before the finish', async () => {
    const store = InMemoryRunStore.create();
    const reported: unknown[] = [];
    const run = await startRun(store, {
      configuration: 'c',
      heartbeatMs: 0,
      retry: FAST_RETRY,
      spoolDir: false,
      onError: (e) => reported.push(e),
    });
    await store.recoverInterrupted(Date.now() + 1);
    await store.pruneRuns({ olderThan: Date.now() + 60_000 });
    const error = await run.complete().catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'RunFinishRefusedError', code: 'finish_refused', runId: run.id, status: 'completed' });
    expect(RunStoreError.is((error as Error).cause)).toBe(true);
    await expect(run.finished).rejects.toBe(error);
    expect(await run.complete().catch((e: unknown) => e)).toBe(error);
    expect(reported).toEqual([error]);
  });
});
