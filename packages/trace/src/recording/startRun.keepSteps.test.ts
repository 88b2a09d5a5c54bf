import { ToolResult } from '@runledger/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { InMemoryRunStore } from '../store/InMemoryRunStore.js';
import { startRun } from './startRun.js';
import {
  resetUnboundedTraceWarning,
  UNBOUNDED_TRACE_WARNING,
  UNBOUNDED_WARN_AT,
  unboundedWarnAt,
  warnUnboundedTrace,
} from './unboundedTraceWarning.js';

afterEach(() => {
  vi.restoreAllMocks();
  resetUnboundedTraceWarning();
});

async function recordTools(run: Awaited<ReturnType<typeof startRun>>, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    await run.trace.recordToolResult({ toolName: 'mcp_gh_search', toolArguments: { i }, result: ToolResult.text(`hit ${i}`), round: i });
  }
}

describe('startRun keepSteps and readSteps', () => {
  it('keeps a window in memory, stores every step, and reads them all back page by page', async () => {
    const store = InMemoryRunStore.create();
    const run = await startRun(store, { configuration: 'c', heartbeatMs: 0, keepSteps: 3, privacy: 'full' });
    await recordTools(run, 10);
    expect(run.trace.steps.map((s) => s.round)).toEqual([7, 8, 9]);
    expect(run.trace.stepCount).toBe(10);
    const read = [];
    for await (const step of run.readSteps({ pageSize: 4 })) read.push(step);
    expect(read).toEqual(await store.readSteps(run.id));
    expect(read.map((s) => s.sequence)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(read.map((s) => JSON.parse(s.payload).toolResult)).toEqual(Array.from({ length: 10 }, (_, i) => `hit ${i}`));
    const later = [];
    for await (const step of run.readSteps({ fromSequence: 8 })) later.push(step.sequence);
    expect(later).toEqual([8, 9]);
    expect((await run.complete()).stepCount).toBe(10);
  });

  it('reads steps whose records were not awaited: the hooks settle first', async () => {
    const store = InMemoryRunStore.create();
    const run = await startRun(store, { configuration: 'c', heartbeatMs: 0, keepSteps: 0 });
    for (let i = 0; i < 5; i++) void run.trace.recordRequest({ content: String(i), round: i });
    const rounds = [];
    for await (const step of run.readSteps({ pageSize: 5 })) rounds.push(step.round);
    expect(rounds).toEqual([0, 1, 2, 3, 4]);
    expect(run.trace.steps).toEqual([]);
  });

  it('refuses a bad keepSteps before it creates the run, naming StartRunOptions.keepSteps and the rule', async () => {
    const store = InMemoryRunStore.create();
    await expect(startRun(store, { configuration: 'c', keepSteps: -1 })).rejects.toThrow(
      new RangeError('StartRunOptions.keepSteps must be a non-negative integer or Infinity (every step), got -1'),
    );
    await expect(startRun(store, { configuration: 'c', keepSteps: '5' as unknown as number })).rejects.toThrow(TypeError);
    expect((await store.listRuns()).runs).toEqual([]);
  });

  it('refuses bad readSteps options at the call, naming the option and the rule', async () => {
    const run = await startRun(InMemoryRunStore.create(), { configuration: 'c', heartbeatMs: 0 });
    expect(() => run.readSteps({ pageSize: 0 })).toThrow(
      new RangeError('ReadRunStepsOptions.pageSize must be a positive integer up to 2147483647, got 0'),
    );
    expect(() => run.readSteps({ fromSequence: -1 })).toThrow(
      new RangeError('ReadRunStepsOptions.fromSequence must be a non-negative integer up to 2147483647, got -1'),
    );
    expect(() => run.readSteps({ pageSize: '10' as unknown as number })).toThrow(TypeError);
    await run.complete();
  });

  it('warns once per process at 100 000 steps by default, naming StartRunOptions.keepSteps', () => {
    const emitted = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    expect(UNBOUNDED_WARN_AT).toBe(100_000);
    expect(unboundedWarnAt()).toBe(UNBOUNDED_WARN_AT);
    warnUnboundedTrace(UNBOUNDED_WARN_AT);
    warnUnboundedTrace(UNBOUNDED_WARN_AT);
    expect(emitted).toHaveBeenCalledTimes(1);
    expect(emitted.mock.calls[0]![0]).toMatch(/kept 100,000 steps in memory .*StartRunOptions\.keepSteps/);
    expect(emitted.mock.calls[0]![1]).toEqual({ code: UNBOUNDED_TRACE_WARNING });
  });

  // The rule at a lowered count (the default is pinned above): recording 200 000 steps took over
  // the test's 20 s on a loaded CI machine.
  it('warns when a run that did not choose keepSteps passes the count, once per process; an explicit Infinity does not', async () => {
    const at = 2_000;
    resetUnboundedTraceWarning(at);
    const emitted = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const store = InMemoryRunStore.create();
    const chosen = await startRun(store, { configuration: 'c', heartbeatMs: 0, keepSteps: Infinity });
    for (let i = 0; i < at; i++) void chosen.trace.recordRequest({ content: '' });
    await chosen.trace.flush();
    expect(emitted).not.toHaveBeenCalled();
    const unchosen = await startRun(store, { configuration: 'c', heartbeatMs: 0 });
    for (let i = 0; i < at - 1; i++) void unchosen.trace.recordRequest({ content: '' });
    await unchosen.trace.flush();
    expect(emitted).not.toHaveBeenCalled();
    await unchosen.trace.recordRequest({ content: '' });
    await unchosen.trace.recordRequest({ content: '' });
    expect(emitted).toHaveBeenCalledTimes(1);
    expect(emitted.mock.calls[0]![0]).toMatch(/kept 2,000 steps in memory .*StartRunOptions\.keepSteps/);
    expect(emitted.mock.calls[0]![1]).toEqual({ code: UNBOUNDED_TRACE_WARNING });
    // once per process: a second unchosen run past the count says nothing more
    const again = await startRun(store, { configuration: 'c', heartbeatMs: 0 });
    for (let i = 0; i < at + 1; i++) void again.trace.recordRequest({ content: '' });
    await again.trace.flush();
    expect(emitted).toHaveBeenCalledTimes(1);
    expect(unchosen.trace.stepCount).toBe(at + 1);
    expect((await unchosen.complete()).stepCount).toBe(at + 1);
    await chosen.complete();
    await again.complete();
  });
});
