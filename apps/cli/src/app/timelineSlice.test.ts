import { InMemoryRunStore, type RunStore, type StepQuery, type StoredRun } from '@runledger/trace';
import { describe, expect, it } from 'vitest';
import { callStepRecorder } from '../../test/callStepRecorder.js';
import { AFTER_PAGE_CHUNK, readTimelineSlice, timelineSlice } from './timelineSlice.js';

const T0 = Date.UTC(2026, 10, 29, 9, 0, 0);
const PAGE = 200;

/** The store, counting the steps each readSteps returns. */
function counting(store: RunStore): { store: RunStore; stepsRead: () => number } {
  let read = 0;
  const wrapped = Object.create(store) as RunStore;
  wrapped.readSteps = async (runId: string, query?: StepQuery) => {
    const steps = await store.readSteps(runId, query);
    read += steps.length;
    return steps;
  };
  return { store: wrapped, stepsRead: () => read };
}

/**
 * A run of `calls` tool calls (tool_start then tool, each ending the call it started), except the
 * calls in `endLate` (their end is appended after every other step) and `neverEnd` (no end).
 */
async function runWithCalls(
  store: RunStore,
  calls: number,
  options: { endLate?: readonly number[]; neverEnd?: readonly number[]; finish?: boolean } = {},
): Promise<StoredRun> {
  const run = await store.createRun({ configuration: 'paging', createdAt: T0 });
  const append = callStepRecorder(store, run, T0);
  const late = new Set([...(options.endLate ?? []), ...(options.neverEnd ?? [])]);
  for (let call = 0; call < calls; call++) {
    await append('tool_start', call);
    if (!late.has(call)) await append('tool', call);
  }
  for (const call of options.endLate ?? []) await append('tool', call);
  if (options.finish === false) return (await store.getRun(run.id))!;
  return store.finishRun(run.id, { status: 'completed', finishedAt: T0 + 10 * (2 * calls + 1) });
}

/** The slice as built from the whole rest of the run (what every page read before the reads were bounded). */
async function fromWholeRun(store: RunStore, run: StoredRun, from: number): Promise<ReturnType<typeof timelineSlice>> {
  const read = await store.readSteps(run.id, { fromSequence: from, limit: PAGE + 1 });
  const after = await store.readSteps(run.id, { fromSequence: from + PAGE + 1 });
  const before = run.status === 'running' && from > 0 ? await store.readSteps(run.id, { fromSequence: 0, limit: from }) : [];
  return timelineSlice(run, read, from, PAGE, { before, after });
}

describe('readTimelineSlice', () => {
  it('reads a page of a finished run without reading the rest of the run when its calls end nearby', async () => {
    const memory = InMemoryRunStore.create();
    const run = await runWithCalls(memory, 5_000);
    const { store, stepsRead } = counting(memory);
    const first = await readTimelineSlice(store, run, 0, PAGE);
    expect(first.stepsShown).toBe(PAGE);
    expect(stepsRead()).toBeLessThanOrEqual(PAGE + 1 + AFTER_PAGE_CHUNK);
    const middle = await readTimelineSlice(store, run, 5_001, PAGE);
    expect(middle.stepsShown).toBe(PAGE);
    expect(stepsRead()).toBeLessThanOrEqual(2 * (PAGE + 1 + AFTER_PAGE_CHUNK));
    expect(first).toEqual(await fromWholeRun(memory, run, 0));
    expect(middle).toEqual(await fromWholeRun(memory, run, 5_001));
  });

  it('still finds the end of a call started on the page and ended far later, as the whole run shows it', async () => {
    const memory = InMemoryRunStore.create();
    const run = await runWithCalls(memory, 3_000, { endLate: [7] });
    const { store } = counting(memory);
    const page = await readTimelineSlice(store, run, 0, PAGE);
    expect(page).toEqual(await fromWholeRun(memory, run, 0));
    // without the steps after the page the call would show as never ended: the late end is what decides
    const pageOnly = timelineSlice(run, await memory.readSteps(run.id, { fromSequence: 0, limit: PAGE + 1 }), 0, PAGE);
    expect(page).not.toEqual(pageOnly);
  });

  it('shows a call that never ended on a finished run exactly as the whole run shows it', async () => {
    const memory = InMemoryRunStore.create();
    const run = await runWithCalls(memory, 1_500, { neverEnd: [3] });
    expect(await readTimelineSlice(memory, run, 0, PAGE)).toEqual(await fromWholeRun(memory, run, 0));
  });

  it('lists every call on the wire of a running run, started before, on or after the page', async () => {
    const memory = InMemoryRunStore.create();
    const run = await runWithCalls(memory, 1_200, { neverEnd: [2, 600, 1_150], finish: false });
    const page = await readTimelineSlice(memory, run, 800, PAGE);
    expect(page).toEqual(await fromWholeRun(memory, run, 800));
    expect(page.wire?.map((entry) => entry.sequence)).toHaveLength(3);
  });
});
