import { InMemoryRunStore, type RunStore, type StepQuery, type StoredRun } from '@runledger/trace';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OpenCallTracker } from './OpenCallTracker.js';
import { callStepRecorder } from '../../test/callStepRecorder.js';
import { readTimelineSlice, timelineSlice } from './timelineSlice.js';

const T0 = Date.UTC(2026, 11, 1, 9, 0, 0);
const PAGE = 20;

/** A store as one written before readOpenCalls: the tracker reads such a run whole on its first view. */
function withoutOpenCalls(store: RunStore): RunStore {
  return new Proxy(store, {
    get(target, key) {
      if (key === 'readOpenCalls') return undefined;
      const value = Reflect.get(target, key, target) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** The store, counting the steps each readSteps returns; `failNext` makes the next readSteps throw. */
function counting(store: RunStore): { store: RunStore; stepsRead: () => number; failNext: () => void } {
  let read = 0;
  let fail = false;
  const wrapped = Object.create(store) as RunStore;
  wrapped.readSteps = async (runId: string, query?: StepQuery) => {
    if (fail) {
      fail = false;
      throw new Error('connection lost');
    }
    const steps = await store.readSteps(runId, query);
    read += steps.length;
    return steps;
  };
  return { store: wrapped, stepsRead: () => read, failNext: () => (fail = true) };
}

/** The slice as built from the whole run (what a view of a running run read before the tracker). */
async function fromWholeRun(store: RunStore, run: StoredRun, from: number): Promise<ReturnType<typeof timelineSlice>> {
  const read = await store.readSteps(run.id, { fromSequence: from, limit: PAGE + 1 });
  const after = await store.readSteps(run.id, { fromSequence: from + PAGE + 1 });
  const before = from > 0 ? await store.readSteps(run.id, { fromSequence: 0, limit: from }) : [];
  return timelineSlice(run, read, from, PAGE, { before, after });
}

/** A running run of 3 000 calls (6 000 steps less 3), three of them still on the wire: 7, 1 007 and 2 007. */
async function runOf3000Calls(): Promise<{ memory: InMemoryRunStore; run: StoredRun; append: ReturnType<typeof callStepRecorder> }> {
  const memory = InMemoryRunStore.create();
  const run = await memory.createRun({ configuration: 'tracked', createdAt: T0 });
  const append = callStepRecorder(memory, run, T0);
  for (let call = 0; call < 3_000; call++) {
    await append('tool_start', call);
    if (call % 1_000 !== 7) await append('tool', call);
  }
  return { memory, run, append };
}

/** One step of a generated history: start a call, end one of the open calls (by index), or view a page (by position). */
type Action = { start: true } | { end: number } | { view: number };
const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 5, arbitrary: fc.constant({ start: true as const }) },
  { weight: 4, arbitrary: fc.nat().map((end) => ({ end })) },
  { weight: 1, arbitrary: fc.double({ min: 0, max: 1, noNaN: true }).map((view) => ({ view })) },
);

describe('OpenCallTracker', () => {
  it('gives every view of a running run the timeline and calls on the wire the whole run gives, for any history', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 1, maxLength: 160 }), fc.boolean(), async (actions, keepsOpenCalls) => {
        const memory = InMemoryRunStore.create();
        // a store that keeps open calls, and one that does not (the tracker folds the run itself)
        const store = keepsOpenCalls ? memory : withoutOpenCalls(memory);
        const run = await store.createRun({ configuration: 'tracked', createdAt: T0 });
        const append = callStepRecorder(store, run, T0);
        const tracker = new OpenCallTracker();
        const open: number[] = [];
        let next = 0;
        for (const act of [...actions, { view: 0 }, { view: 1 }]) {
          if ('start' in act) {
            open.push(next);
            await append('tool_start', next++);
          } else if ('end' in act) {
            if (open.length > 0) await append('tool', open.splice(act.end % open.length, 1)[0]!);
          } else {
            const now = (await store.getRun(run.id))!;
            const from = Math.min(Math.floor(act.view * now.stepCount), Math.max(0, now.stepCount - 1));
            const viewed = await readTimelineSlice(store, now, from, PAGE, tracker);
            expect(viewed).toEqual(await fromWholeRun(store, now, from));
            expect(viewed.wire).toHaveLength(open.length);
          }
        }
      }),
      { numRuns: 150 },
    );
  });

  it('asks the store for a running run’s open calls once, then reads only the page and the steps appended since', async () => {
    const { memory, run, append } = await runOf3000Calls();
    let asked = 0;
    const { store, stepsRead } = counting(memory);
    (store as { readOpenCalls: RunStore['readOpenCalls'] }).readOpenCalls = (runId: string) => {
      asked++;
      return memory.readOpenCalls(runId);
    };
    const tracker = new OpenCallTracker();
    const first = await readTimelineSlice(store, (await memory.getRun(run.id))!, 0, PAGE, tracker);
    expect(first.wire).toHaveLength(3);
    expect(stepsRead(), 'the page only: the open calls came from the store').toBe(PAGE + 1);
    expect(first).toEqual(await fromWholeRun(memory, (await memory.getRun(run.id))!, 0));
    for (let call = 3_000; call < 3_010; call++) await append('tool_start', call);
    await append('tool', 1_007);
    const second = await readTimelineSlice(store, (await memory.getRun(run.id))!, 2_000, PAGE, tracker);
    expect(second.wire).toHaveLength(12);
    expect(stepsRead()).toBe(PAGE + 1 + PAGE + 1 + 11);
    expect(asked).toBe(1);
    expect(second).toEqual(await fromWholeRun(memory, (await memory.getRun(run.id))!, 2_000));
  });

  it('reads a running run whole once from a store without readOpenCalls, then only the page and the steps appended since', async () => {
    const { memory, run, append } = await runOf3000Calls();
    const { store, stepsRead } = counting(withoutOpenCalls(memory));
    const tracker = new OpenCallTracker();
    const first = await readTimelineSlice(store, (await memory.getRun(run.id))!, 0, PAGE, tracker);
    expect(first.wire).toHaveLength(3);
    expect(stepsRead()).toBe(PAGE + 1 + 5_997);
    for (let call = 3_000; call < 3_010; call++) await append('tool_start', call);
    const second = await readTimelineSlice(store, (await memory.getRun(run.id))!, 2_000, PAGE, tracker);
    expect(second.wire).toHaveLength(13);
    expect(stepsRead()).toBe(PAGE + 1 + 5_997 + PAGE + 1 + 10);
    expect(second).toEqual(await fromWholeRun(memory, (await memory.getRun(run.id))!, 2_000));
  });

  it('reads a run again from the start after a failed read, and forgets a run once it has ended', async () => {
    const memory = InMemoryRunStore.create();
    const run = await memory.createRun({ configuration: 'tracked', createdAt: T0 });
    const append = callStepRecorder(memory, run, T0);
    for (let call = 0; call < 50; call++) await append('tool_start', call);
    const { store, failNext } = counting(withoutOpenCalls(memory));
    const tracker = new OpenCallTracker();
    await readTimelineSlice(store, (await memory.getRun(run.id))!, 0, PAGE, tracker);
    for (let call = 0; call < 50; call += 2) await append('tool', call);
    // the page read succeeds, the tracker's tail read fails: the view fails, nothing half-read stays
    const view = readTimelineSlice(store, (await memory.getRun(run.id))!, 0, PAGE, tracker);
    failNext();
    await expect(view).rejects.toThrow('connection lost');
    const again = await readTimelineSlice(store, (await memory.getRun(run.id))!, 0, PAGE, tracker);
    expect(again.wire).toHaveLength(25);
    expect(tracker.size).toBe(1);
    const finished = await memory.finishRun(run.id, { status: 'completed', finishedAt: T0 + 60_000 });
    await readTimelineSlice(store, finished, 0, PAGE, tracker);
    expect(tracker.size).toBe(0);
  });

  it('follows at most maxRuns runs, the least recently viewed going first, and answers two views of one run with one tail read', async () => {
    const memory = InMemoryRunStore.create();
    const tracker = new OpenCallTracker(2);
    const runs: StoredRun[] = [];
    for (let i = 0; i < 3; i++) {
      const run = await memory.createRun({ configuration: 'tracked', createdAt: T0 });
      await callStepRecorder(memory, run, T0)('tool_start', i);
      runs.push((await memory.getRun(run.id))!);
    }
    const { store, stepsRead } = counting(withoutOpenCalls(memory));
    await Promise.all([tracker.openCalls(store, runs[0]!), tracker.openCalls(store, runs[0]!)]);
    expect(stepsRead()).toBe(1);
    await tracker.openCalls(store, runs[1]!);
    await tracker.openCalls(store, runs[0]!);
    await tracker.openCalls(store, runs[2]!); // runs[1] was viewed least recently: it goes
    expect(tracker.size).toBe(2);
    const before = stepsRead();
    await tracker.openCalls(store, runs[0]!);
    expect(stepsRead()).toBe(before);
    await tracker.openCalls(store, runs[1]!);
    expect(stepsRead()).toBe(before + 1);
  });
});
