import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SqliteRunStore } from './SqliteRunStore.js';
import { tempFolder, toolStep } from './testing/tempDatabase.js';

let folder: ReturnType<typeof tempFolder>;
const open: SqliteRunStore[] = [];
async function openStore(groupCommit?: boolean): Promise<SqliteRunStore> {
  const store = await SqliteRunStore.open({ path: folder.file(`runs-${String(groupCommit)}.db`), groupCommit });
  open.push(store);
  return store;
}
beforeEach(() => {
  folder = tempFolder();
});
afterEach(async () => {
  vi.restoreAllMocks();
  for (const store of open.splice(0)) await store.close();
  folder.remove();
});

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

/** Counts the COMMITs run on any better-sqlite3 connection while `fn` runs. */
async function countCommits(fn: () => Promise<unknown>): Promise<number> {
  const probe = new Database(':memory:');
  const proto = Object.getPrototypeOf(probe.prepare('SELECT 1')) as { run: (...args: unknown[]) => unknown };
  probe.close();
  let commits = 0;
  const run = proto.run;
  const spy = vi.spyOn(proto, 'run').mockImplementation(function (this: { source: string }, ...args: unknown[]) {
    if (this.source === 'COMMIT') commits++;
    return run.apply(this, args);
  });
  try {
    await fn();
  } finally {
    spy.mockRestore();
  }
  return commits;
}

describe('SqliteRunStore group commit', () => {
  it('commits the appends of 16 concurrent runs in shared transactions, each run gap-free and in order', async () => {
    const store = await openStore();
    const runs = await Promise.all(Array.from({ length: 16 }, (_, i) => store.createRun({ configuration: `c${i}` })));
    const perRun = 20;
    const sequences: number[][] = runs.map(() => []);
    const commits = await countCommits(() =>
      Promise.all(
        runs.map(async (run, r) => {
          for (let i = 0; i < perRun; i++) sequences[r]!.push(await store.appendStep(run.id, toolStep(`s${r}`, 'ok', i, T0 + i, i)));
        }),
      ),
    );
    // one commit per turn of the event loop, shared by the 16 runs — not one per step
    expect(commits).toBeLessThanOrEqual(perRun + 1);
    for (const [r, run] of runs.entries()) {
      expect(sequences[r]).toEqual(Array.from({ length: perRun }, (_, i) => i));
      const steps = await store.readSteps(run.id);
      expect(steps.map((step) => step.round)).toEqual(Array.from({ length: perRun }, (_, i) => i));
      expect((await store.getRun(run.id))!.stepCount).toBe(perRun);
    }
    const health = await store.serverHealth({ since: T0 - 1, until: T0 + 1000 });
    expect(health).toHaveLength(16);
    expect(health.every((h) => h.calls === perRun)).toBe(true);
  });

  it('lets a run recording alone commit each append at once, one commit per step', async () => {
    const store = await openStore();
    const run = await store.createRun({ configuration: 'c' });
    await store.appendStep(run.id, toolStep('s', 'ok', 1, T0));
    const reader = new Database(folder.file('runs-undefined.db'), { readonly: true });
    const count = reader.prepare('SELECT count(*) FROM steps').pluck();
    const commits = await countCommits(async () => {
      for (let i = 1; i <= 10; i++) {
        const appended = store.appendStep(run.id, toolStep('s', 'ok', 1, T0 + i));
        // committed in the call, as without group commit: no turn of the event loop to wait
        expect(count.get()).toBe(i + 1);
        expect(await appended).toBe(i);
      }
    });
    reader.close();
    expect(commits).toBe(10);
  });

  it('commits once per step with groupCommit: false', async () => {
    const store = await openStore(false);
    const runs = await Promise.all([0, 1, 2, 3].map(() => store.createRun({ configuration: 'c' })));
    const commits = await countCommits(() => Promise.all(runs.map((run, i) => store.appendStep(run.id, toolStep('s', 'ok', 1, T0 + i)))));
    expect(commits).toBe(4);
  });

  it('refuses only the append that breaks a rule, with the same error as per-step commits; the rest of its batch commits', async () => {
    const outcomes = [];
    for (const groupCommit of [true, false]) {
      const store = await openStore(groupCommit);
      const run = await store.createRun({ configuration: 'c' });
      const settled = await Promise.allSettled([
        store.appendStep(run.id, toolStep('s', 'ok', 1, T0)),
        store.appendStep(randomUUID(), toolStep('s', 'ok', 1, T0)), // unknown run
        store.appendStep(run.id, { ...toolStep('s', 'ok', 1, T0), sequence: 7 }), // past the end
        store.appendStep(run.id, { ...toolStep('s', 'failed', 2, T0), sequence: 0 }), // conflicts with sequence 0
        store.appendStep(run.id, { ...toolStep('s', 'ok', 1, T0), sequence: 0 }), // the same step again: its sequence
        store.appendStep(run.id, { ...toolStep('s', 'ok', -1, T0) }), // invalid input, refused before the queue
        store.appendStep(run.id, toolStep('s', 'failed', 3, T0)),
      ]);
      const shape = settled.map((result) =>
        result.status === 'fulfilled'
          ? result.value
          : { code: (result.reason as { code: string }).code, message: (result.reason as Error).message.replace(/[0-9a-f-]{36}/g, 'ID') },
      );
      const steps = await store.readSteps(run.id);
      outcomes.push({ shape, stored: steps.map((step) => [step.sequence, step.toolOutcome]) });
    }
    expect(outcomes[0]).toEqual(outcomes[1]);
    expect(outcomes[0]!.shape.map((entry) => (typeof entry === 'number' ? entry : entry.code))).toEqual([
      0,
      'run_not_found',
      'invalid_input',
      'sequence_conflict',
      0,
      'invalid_input',
      1,
    ]);
    expect(outcomes[0]!.stored).toEqual([
      [0, 'ok'],
      [1, 'failed'],
    ]);
  });

  it('keeps the order of writes: appends asked before a finish or a cancel are in before it, later ones after', async () => {
    const store = await openStore();
    const run = await store.createRun({ configuration: 'c' });
    const other = await store.createRun({ configuration: 'c' });
    const first = [0, 1, 2].map((i) => store.appendStep(run.id, toolStep('s', 'ok', 1, T0 + i)));
    const cancelled = store.requestCancel(other.id);
    const afterCancel = store.appendStep(other.id, toolStep('s', 'ok', 1, T0));
    const finished = store.finishRun(run.id, { status: 'completed' });
    const late = store.appendStep(run.id, toolStep('s', 'ok', 1, T0 + 3));
    expect(await Promise.all(first)).toEqual([0, 1, 2]);
    expect((await finished).stepCount).toBe(3);
    expect((await cancelled).stepCount).toBe(0);
    expect(await afterCancel).toBe(0);
    // a step after the finish is stored after it, as with per-step commits
    expect(await late).toBe(3);
  });

  it('settles every queued append before close resolves', async () => {
    const store = await openStore();
    const run = await store.createRun({ configuration: 'c' });
    const appends = [0, 1, 2, 3].map((i) => store.appendStep(run.id, toolStep('s', 'ok', 1, T0 + i)));
    await store.close();
    expect(await Promise.all(appends)).toEqual([0, 1, 2, 3]);
    await expect(store.appendStep(run.id, toolStep('s', 'ok', 1, T0))).rejects.toMatchObject({ code: 'storage_failure' });
  });

  it('refuses a groupCommit option that is not a boolean, naming it', async () => {
    await expect(SqliteRunStore.open({ path: folder.file(), groupCommit: 'yes' as unknown as boolean })).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringContaining('SqliteRunStoreOptions.groupCommit must be true or false'),
    });
  });
});
