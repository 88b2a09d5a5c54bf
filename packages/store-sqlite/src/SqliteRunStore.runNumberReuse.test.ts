// A SQLite run number is never handed out twice. A step's rowid is (run number << 32) + sequence,
// and a prune deletes a big run's row first (hiding it) and its steps in chunks after; a number
// handed out again while such steps remain would give a new run the old run's steps: its appends
// collide with them, readSteps shows them as its own, and the rest of the chunked delete takes
// the new run's steps with it. Here two prunes run at once on two connections of one file, in
// the order that used to cause exactly that, and a store opened afterwards (another process, or
// the same one restarted) creates the next run.
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteHealthPending } from './health/SqliteHealthPending.js';
import { SqliteHealthWriter } from './health/SqliteHealthWriter.js';
import { SqliteOpenCalls } from './SqliteOpenCalls.js';
import { SqlitePrune, type SqlitePruneAccess } from './prune/SqlitePrune.js';
import { SqliteRunStore } from './SqliteRunStore.js';
import { tempFolder, toolStep } from './testing/tempDatabase.js';

let folder: ReturnType<typeof tempFolder>;
const open: { close(): unknown }[] = [];
beforeEach(() => {
  folder = tempFolder();
});
afterEach(async () => {
  for (const handle of open.splice(0).reverse()) await handle.close();
  folder.remove();
});

const T0 = Date.UTC(2026, 0, 1);
const BIG = 300;

async function openStore(): Promise<SqliteRunStore> {
  const store = await SqliteRunStore.open({ path: folder.file() });
  open.push(store);
  return store;
}

/** A second connection on the file, as another process's prune has it. */
function connection(): Database.Database {
  const db = new Database(folder.file());
  db.pragma('journal_mode = WAL');
  open.push(db);
  return db;
}

/** A prune on its own connection, its transactions run through `write`. */
function pruneOn(db: Database.Database, write: SqlitePruneAccess['write']): SqlitePrune {
  return new SqlitePrune(
    db,
    { write, read: async (fn) => fn() },
    new SqliteHealthPending(db, new SqliteHealthWriter(db)),
    new SqliteOpenCalls(db),
  );
}

/** Appends `count` tool steps of `server` to a run, 100 per commit. */
async function appendSteps(store: SqliteRunStore, runId: string, server: string, count: number): Promise<void> {
  for (let from = 0; from < count; from += 100) {
    const appends: Promise<number>[] = [];
    for (let i = from; i < Math.min(count, from + 100); i++) appends.push(store.appendStep(runId, toolStep(server, 'ok', 5, T0 + i)));
    await Promise.all(appends);
  }
}

const runNoOf = (runId: string): number => {
  const db = new Database(folder.file(), { readonly: true });
  try {
    return db.prepare('SELECT run_no FROM runs WHERE id = ?').pluck().get(runId) as number;
  } finally {
    db.close();
  }
};

function deferred(): { promise: Promise<void>; resolve(): void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

describe('SQLite run numbers', () => {
  it('are never handed out again while two prunes at once hide a big run and delete the newest one', async () => {
    // run 1: big, ended at T0 + 2 000; run 2: small, the newest, ended at T0 + 1 000
    const setup = await openStore();
    const big = await setup.createRun({ configuration: 'old', createdAt: T0 });
    await appendSteps(setup, big.id, 'alpha', BIG);
    await setup.finishRun(big.id, { status: 'completed', finishedAt: T0 + 2_000 });
    const newest = await setup.createRun({ configuration: 'old', createdAt: T0 });
    await appendSteps(setup, newest.id, 'alpha', 10);
    await setup.finishRun(newest.id, { status: 'completed', finishedAt: T0 + 1_000 });
    await setup.close();

    // prune B (cutoff T0 + 1 500: the newest run only) has swept and listed, and waits to delete
    // until prune A (cutoff T0 + 3 000: both) has hidden the big run; A's first chunk of the big
    // run's steps waits until the new run below is recorded
    const bWaiting = deferred();
    const aHid = deferred();
    const aGoOn = deferred();
    let bWrites = 0;
    const pruneB = pruneOn(connection(), async (fn) => {
      if (bWrites++ === 0) {
        bWaiting.resolve();
        await aHid.promise;
      }
      return fn();
    });
    let aWrites = 0;
    const pruneA = pruneOn(connection(), async (fn) => {
      const n = ++aWrites;
      if (n === 2) await aGoOn.promise;
      const value = fn();
      if (n === 1) aHid.resolve();
      return value;
    });
    const b = pruneB.prune({ olderThan: T0 + 1_500, batchSize: 50 });
    await bWaiting.promise;
    const a = pruneA.prune({ olderThan: T0 + 3_000, batchSize: 50 });
    // B deleted the newest run after A hid the big one (B waited for that), and A has deleted none of its steps yet
    expect(await b).toMatchObject({ runs: 1, steps: 10, complete: true });

    // a recorder starts (a process opening the file) and records a run
    const store = await openStore();
    const run = await store.createRun({ configuration: 'new', createdAt: T0 + 10_000 });
    expect(runNoOf(run.id), 'the new run’s number: above every number handed out (1, 2)').toBe(3);
    const appends = [0, 1, 2].map((i) => store.appendStep(run.id, toolStep('beta', 'ok', 7, T0 + 10_001 + i)));
    expect(await Promise.all(appends)).toEqual([0, 1, 2]);
    expect((await store.readSteps(run.id)).map((step) => [step.runId, step.sequence, step.toolServer])).toEqual([
      [run.id, 0, 'beta'],
      [run.id, 1, 'beta'],
      [run.id, 2, 'beta'],
    ]);

    // the next prune still finds the hidden run's steps (no run has their number) and deletes them first
    expect(await store.pruneRuns({ olderThan: T0 })).toMatchObject({ runs: 0, steps: BIG, complete: true });
    // prune A goes on: the big run's steps are gone already, the newest run too; the new run is untouched
    aGoOn.resolve();
    expect(await a).toMatchObject({ complete: true });
    expect(await store.readSteps(run.id)).toHaveLength(3);
    expect(await store.getRun(run.id)).toMatchObject({ status: 'running', stepCount: 3 });
    expect((await store.serverHealth()).map((h) => [h.server, h.calls])).toEqual([['beta', 3]]);
    const db = connection();
    expect(db.prepare('SELECT count(*) FROM steps').pluck().get()).toBe(3);
  });

  it('go on from the last one handed out after a restart, though a prune deleted every run', async () => {
    const first = await SqliteRunStore.open({ path: folder.file() });
    const ids: string[] = [];
    for (let r = 0; r < 3; r++) {
      const run = await first.createRun({ configuration: 'c', createdAt: T0 });
      await appendSteps(first, run.id, 'alpha', 5);
      await first.finishRun(run.id, { status: 'completed', finishedAt: T0 + 1_000 });
      ids.push(run.id);
    }
    expect(ids.map(runNoOf)).toEqual([1, 2, 3]);
    expect(await first.pruneRuns({ olderThan: T0 + 2_000 })).toMatchObject({ runs: 3, steps: 15 });
    await first.close();

    const again = await openStore();
    const created = await again.createRun({ configuration: 'c', createdAt: T0 + 5_000 });
    const source = await again.createRun({ configuration: 'c', createdAt: T0 + 5_000 });
    await again.finishRun(source.id, { status: 'completed', finishedAt: T0 + 5_001 });
    const copy = { ...(await again.getRun(source.id))!, id: '5f0c3a8e-1d2b-4c3d-9e4f-5a6b7c8d9e0f' };
    expect(await again.importRun(copy, [])).toBe(true);
    expect([created.id, source.id, copy.id].map(runNoOf)).toEqual([4, 5, 6]);
  });
});
