import { ToolResult } from '@runledger/core';
import { describe, expect, it } from 'vitest';
import { InMemoryRunStore } from '../store/InMemoryRunStore.js';
import { RunCancelledError } from './RunCancelledError.js';
import type { RunStore } from '../store/RunStore.js';
import { buildRunTimeline } from '../timeline/buildRunTimeline.js';
import { startRun } from './startRun.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A tool call that takes `ms` unless the signal aborts it first, like McpTool.execute: it never rejects. */
function slowTool(ms: number, signal: AbortSignal): Promise<ToolResult> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(ToolResult.cancelled('the run was cancelled before the call'));
    const timer = setTimeout(() => resolve(ToolResult.text('done')), ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve(
          signal.reason instanceof RunCancelledError
            ? ToolResult.cancelled(`cancelled: ${signal.reason.reason}`)
            : ToolResult.error('aborted'),
        );
      },
      { once: true },
    );
  });
}

/** A tiny agent loop: one LLM call, then one tool call; ends the run as the loop ends. */
async function agentLoop(run: Awaited<ReturnType<typeof startRun>>, toolMs: number): Promise<void> {
  try {
    await run.trace.recordLlmCall({ round: 0, durationMs: 1, model: 'm', requestedToolCalls: [{ name: 'mcp_slow_wait', arguments: {} }] });
    const started = performance.now();
    const result = await slowTool(toolMs, run.signal);
    await run.trace.recordToolResult({ toolName: 'mcp_slow_wait', result, round: 0, durationMs: performance.now() - started });
    await run.complete();
  } catch (error) {
    await run.fail(error);
  }
}

describe('startRun', () => {
  it('records every step in the store in record order and completes', async () => {
    const store = InMemoryRunStore.create();
    const run = await startRun(store, { configuration: 'support', actor: 'ops', title: 'Answer the ticket', heartbeatMs: 0 });
    expect((await store.getRun(run.id))?.status).toBe('running');
    await agentLoop(run, 1);
    const finished = await run.finished;
    expect(finished).toMatchObject({
      status: 'completed',
      configuration: 'support',
      actor: 'ops',
      title: 'Answer the ticket',
      stepCount: 2,
      outcomeCounts: { ok: 1, failed: 0, cancelled: 0 },
    });
    expect(run.status).toBe('completed');
    expect((await store.readSteps(run.id)).map((s) => [s.sequence, s.kind, s.toolOutcome])).toEqual([
      [0, 'llm', null],
      [1, 'tool', 'ok'],
    ]);
    expect(await run.fail(new Error('late'))).toEqual(finished);
    await run.cancel();
    expect(run.signal.aborted).toBe(false);
  });

  it('cancel() ends an in-flight tool call cancelled, records its step cancelled, and ends the run cancelled', async () => {
    const store = InMemoryRunStore.create();
    const run = await startRun(store, { configuration: 'c', heartbeatMs: 0 });
    const loop = agentLoop(run, 60_000);
    await sleep(20);
    await run.cancel('operator pressed cancel');
    expect(run.signal.aborted).toBe(true);
    expect(RunCancelledError.is(run.signal.reason)).toBe(true);
    expect((run.signal.reason as RunCancelledError).requestedBy).toBe('local');
    await loop;
    const finished = await run.finished;
    expect(finished).toMatchObject({
      status: 'cancelled',
      terminationReason: 'operator pressed cancel',
      outcomeCounts: { ok: 0, failed: 0, cancelled: 1 },
    });
    expect(finished.cancelRequestedAt).not.toBeNull();
    const steps = await store.readSteps(run.id);
    expect(steps[1]).toMatchObject({ kind: 'tool', toolOutcome: 'cancelled', toolServer: 'slow' });
    expect(JSON.parse(steps[1]!.payload)).toMatchObject({ toolIsError: true, toolOutcome: 'cancelled' });
    const timeline = buildRunTimeline(finished, steps);
    expect(timeline.map((e) => e.event ?? e.outcome)).toEqual(['started', '', 'cancel_requested', 'cancelled', 'cancelled']);
    expect(timeline.filter((e) => e.event === null).map((e) => e.outcome)).toEqual(['', 'cancelled']);
  });

  it('cancel() keeps who asked, from where (api by default) and the reason as one line in the store', async () => {
    const store = InMemoryRunStore.create();
    const asked = await startRun(store, { configuration: 'c', heartbeatMs: 0 });
    await asked.cancel('wrong\nprompt', { requestedBy: 'alice' });
    const finished = await asked.complete();
    expect(finished.cancelRequest).toMatchObject({ from: 'api', by: 'alice', reason: 'wrong prompt' });
    expect(finished.terminationReason).toBe('wrong\nprompt');
    const signalled = await startRun(store, { configuration: 'c', heartbeatMs: 0 });
    await signalled.cancel(undefined, { from: 'signal', requestedBy: 'ops' });
    expect((await signalled.complete()).cancelRequest).toMatchObject({ from: 'signal', by: 'ops', reason: null });
    const long = await startRun(store, { configuration: 'c', heartbeatMs: 0 });
    await long.cancel('x'.repeat(600));
    expect((await long.complete()).cancelRequest?.reason).toBe(`${'x'.repeat(499)}…`);
  });

  it('cancel() with a requestedBy outside the rule rejects naming the field and cancels nothing', async () => {
    const store = InMemoryRunStore.create();
    const run = await startRun(store, { configuration: 'c', heartbeatMs: 0 });
    await expect(run.cancel('why', { requestedBy: 'two\nlines' })).rejects.toThrow(
      /CancelRequestInput\.by must be a string of 1 to 200 characters/,
    );
    await expect(run.cancel('why', { from: 'mail' as never })).rejects.toThrow(/CancelRequestInput\.from must be/);
    expect(run.signal.aborted).toBe(false);
    expect((await store.getRun(run.id))?.cancelRequestedAt).toBeNull();
    expect((await run.complete()).status).toBe('completed');
  });

  it('a cancel requested through the store by another process reaches the run', async () => {
    const store = InMemoryRunStore.create();
    const otherProcess = store.openPeer();
    const run = await startRun(store, { configuration: 'c', heartbeatMs: 0 });
    const loop = agentLoop(run, 60_000);
    await sleep(10);
    await otherProcess.requestCancel(run.id);
    await loop;
    const finished = await run.finished;
    expect(finished.status).toBe('cancelled');
    expect(finished.terminationReason).toBe(
      'cancelled by an operator from outside the run (the app’s Cancel button, or another process through the store)',
    );
    expect((run.signal.reason as RunCancelledError).requestedBy).toBe('store');
    expect(finished.outcomeCounts.cancelled).toBe(1);
  });

  it('polls the store when cancelPollMs is set, for stores whose watch is slow', async () => {
    const store = InMemoryRunStore.create();
    const silent: RunStore = new Proxy(store, {
      get(target, key) {
        if (key === 'watchCancel') return () => () => undefined;
        const value = (target as unknown as Record<PropertyKey, unknown>)[key];
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const run = await startRun(silent, { configuration: 'c', heartbeatMs: 0, cancelPollMs: 10 });
    await store.requestCancel(run.id);
    await sleep(60);
    expect(run.signal.aborted).toBe(true);
    expect((await run.complete()).status).toBe('cancelled');
  });

  it('ends the run cancelled after the grace period when the loop never returns', async () => {
    const store = InMemoryRunStore.create();
    const run = await startRun(store, { configuration: 'c', heartbeatMs: 0, cancelGraceMs: 20 });
    await run.cancel();
    const finished = await run.finished;
    expect(finished).toMatchObject({ status: 'cancelled', terminationReason: 'cancelled by the operator' });
    expect(run.status).toBe('cancelled');
  });

  it('fails with the error message; terminal is terminal', async () => {
    const store = InMemoryRunStore.create();
    const run = await startRun(store, { configuration: 'c', heartbeatMs: 0 });
    const failed = await run.fail(new Error('model unavailable'));
    expect(failed).toMatchObject({ status: 'failed', terminationReason: 'model unavailable' });
    expect(await run.complete()).toEqual(failed);
    expect((await store.getRun(run.id))?.status).toBe('failed');
  });

  it('sends heartbeats while running and stops at the end', async () => {
    const store = InMemoryRunStore.create();
    const run = await startRun(store, { configuration: 'c', heartbeatMs: 10 });
    await sleep(40);
    const beat = (await store.getRun(run.id))?.heartbeatAt;
    expect(beat).not.toBeNull();
    await run.complete();
    expect(await store.recoverInterrupted(Date.now() + 1000)).toEqual([]);
  });

  it('waits for the steps to be stored before finishing', async () => {
    const store = InMemoryRunStore.create();
    const slow: RunStore = new Proxy(store, {
      get(target, key) {
        if (key === 'appendStep')
          return async (...args: Parameters<RunStore['appendStep']>) => {
            await sleep(5);
            return target.appendStep(...args);
          };
        const value = (target as unknown as Record<PropertyKey, unknown>)[key];
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const run = await startRun(slow, { configuration: 'c', heartbeatMs: 0 });
    for (let i = 0; i < 5; i++) void run.trace.recordLlmCall({ round: i, durationMs: 1 });
    const finished = await run.complete();
    expect(finished.stepCount).toBe(5);
    expect((await store.readSteps(run.id)).map((s) => s.round)).toEqual([0, 1, 2, 3, 4]);
  });

  it('refuses a negative interval', async () => {
    await expect(startRun(InMemoryRunStore.create(), { configuration: 'c', heartbeatMs: -1 })).rejects.toThrow(
      /heartbeatMs must be a finite number ≥ 0/,
    );
  });
});
