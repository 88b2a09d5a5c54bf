import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { runRunStoreContract } from '@runledger/store-contract';
import { canPruneRuns, canReadOpenCalls, canReadToolCallTotals, InMemoryRunStore, type RunStore } from '@runledger/trace';
import { describe, expect, it } from 'vitest';
import { otelRunStore } from './otelRunStore.js';

// The whole store contract through the wrapper, spans exported as they end: a store wrapped for
// OpenTelemetry keeps every promise the store it wraps keeps.
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new InMemorySpanExporter())] });
let last: InMemoryRunStore | null = null;

runRunStoreContract('otelRunStore(InMemoryRunStore)', {
  async open() {
    last = InMemoryRunStore.create();
    return otelRunStore(last, { tracerProvider: provider });
  },
  async openPeer() {
    if (last === null) throw new Error('open() first');
    return otelRunStore(last.openPeer(), { tracerProvider: provider });
  },
  async cleanup() {
    last = null;
  },
});

describe('otelRunStore and the optional members of RunStore', () => {
  it('prunes, reads open calls and sums tool calls through the wrapper when the store does (the contract above runs them, not skips them)', async () => {
    const inner = InMemoryRunStore.create();
    const store = otelRunStore(inner, { tracerProvider: provider });
    expect(canPruneRuns(store)).toBe(true);
    expect(canReadOpenCalls(store)).toBe(true);
    expect(canReadToolCallTotals(store)).toBe(true);
    const run = await store.createRun({ configuration: 'wrapped', createdAt: 1_000 });
    await store.appendStep(run.id, {
      kind: 'tool_start',
      round: 0,
      durationMs: 0,
      createdAt: 1_001,
      payload: { kind: 'tool_start', toolName: 'mcp_a_x', toolCallId: 'c1' },
      toolServer: null,
      toolOutcome: null,
    });
    expect(await store.readOpenCalls!(run.id)).toEqual(await inner.readOpenCalls(run.id));
    expect((await store.readOpenCalls!(run.id))!.starts).toHaveLength(1);
    await store.appendStep(run.id, {
      kind: 'tool',
      round: 0,
      durationMs: 12,
      createdAt: 1_002,
      payload: { kind: 'tool', toolName: 'mcp_a_x', toolCallId: 'c1', toolOutcome: 'ok' },
      toolServer: 'a',
      toolOutcome: 'ok',
    });
    expect(await store.toolCallTotals!()).toEqual(await inner.toolCallTotals());
    expect((await store.toolCallTotals!()).map((t) => [t.server, t.tool, t.ok])).toEqual([['a', 'mcp_a_x', 1]]);
    await store.finishRun(run.id, { status: 'completed', finishedAt: 2_000 });
    expect(await store.pruneRuns!({ olderThan: 3_000 })).toEqual(expect.objectContaining({ runs: 1 }));
    expect(await inner.getRun(run.id)).toBeNull();
  });

  it('offers neither when the store has neither, so callers fall back as they would for the store itself', () => {
    const bare = InMemoryRunStore.create();
    // a store written before the optional members: the same store with them hidden
    const older = new Proxy(bare, {
      get(target, key) {
        if (key === 'pruneRuns' || key === 'readOpenCalls' || key === 'toolCallTotals') return undefined;
        const value: unknown = Reflect.get(target, key, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }) as RunStore;
    expect(canPruneRuns(older)).toBe(false);
    const store = otelRunStore(older, { tracerProvider: provider });
    expect(canPruneRuns(store)).toBe(false);
    expect(canReadOpenCalls(store)).toBe(false);
    expect(canReadToolCallTotals(store)).toBe(false);
    expect('pruneRuns' in store).toBe(false);
  });
});
