import { context, trace, type Tracer, type TracerProvider } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { ExportResultCode } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { ToolResult } from '@runledger/core';
import { InMemoryRunStore, type PrivacyLevel, startRun } from '@runledger/trace';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { otelRunStore } from './otelRunStore.js';
import { recordSampleRuns, steppingClock } from './testing/sampleRuns.js';

afterEach(() => {
  context.disable();
});

/** Records the sample runs through the wrapper and returns what the store holds. */
async function recordThrough(provider: TracerProvider, onError?: (error: unknown) => void) {
  const clock = steppingClock();
  const inner = InMemoryRunStore.create({ clock });
  const store = otelRunStore(inner, { tracerProvider: provider, ...(onError === undefined ? {} : { onError }) });
  const runs = await recordSampleRuns(store, clock);
  const held = await Promise.all(
    Object.values(runs).map(async (id) => ({ run: await inner.getRun(id), steps: await inner.readSteps(id) })),
  );
  return { runs, held };
}

describe('otelRunStore', () => {
  it('emits each step as the store takes it, before the run ends, with the step’s own times', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const store = otelRunStore(InMemoryRunStore.create(), { tracerProvider: provider });
    const run = await startRun(store, { configuration: 'live', heartbeatMs: 0, spoolDir: false });
    expect(exporter.getFinishedSpans()).toEqual([]);
    await run.trace.recordToolResult({ toolName: 'mcp_docs_search', durationMs: 12.5, result: ToolResult.text('found') });
    const [span] = exporter.getFinishedSpans();
    expect(span?.name).toBe('execute_tool mcp_docs_search');
    const [step] = await store.readSteps(run.id);
    expect(span!.endTime).toEqual([Math.floor(step!.createdAt / 1000), (step!.createdAt % 1000) * 1_000_000]);
    await run.complete();
    expect(exporter.getFinishedSpans().map((s) => s.name)).toEqual(['execute_tool mcp_docs_search', 'invoke_agent live']);
  });

  it('makes the run a child of the span active when it starts', async () => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const store = otelRunStore(InMemoryRunStore.create(), { tracerProvider: provider });
    const request = provider.getTracer('app').startSpan('POST /ask');
    const run = await context.with(trace.setSpan(context.active(), request), () =>
      startRun(store, { configuration: 'nested', heartbeatMs: 0, spoolDir: false }),
    );
    await run.complete();
    request.end();
    const root = exporter.getFinishedSpans().find((s) => s.name === 'invoke_agent nested')!;
    expect(root.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    expect(root.spanContext().traceId).toBe(request.spanContext().traceId);
  });

  it('never lets a throwing tracer reach the run or its recording', async () => {
    const throwing: Tracer = {
      startSpan: () => {
        throw new Error('tracer broke');
      },
      startActiveSpan: () => {
        throw new Error('tracer broke');
      },
    } as unknown as Tracer;
    const onError = vi.fn();
    const recorded = await recordThrough({ getTracer: () => throwing }, onError);
    const clean = await recordThrough(new BasicTracerProvider());
    expect(onError).toHaveBeenCalled();
    expect(onError.mock.calls[0]![0]).toEqual(new Error('tracer broke'));
    // the same runs, the same steps, as without OpenTelemetry
    expect(recorded.held.map((h) => [h.run?.status, h.run?.stepCount, h.run?.outcomeCounts])).toEqual(
      clean.held.map((h) => [h.run?.status, h.run?.stepCount, h.run?.outcomeCounts]),
    );
    const payloads = (held: typeof clean.held) =>
      held.map((h) => h.steps.map((s) => s.payload.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '<uuid>')));
    expect(payloads(recorded.held)).toEqual(payloads(clean.held));
  });

  it('never lets a failing or throwing exporter reach the run or its recording', async () => {
    const failing: SpanExporter = {
      export: (_spans: ReadableSpan[], done) => done({ code: ExportResultCode.FAILED, error: new Error('collector down') }),
      shutdown: () => Promise.resolve(),
    };
    const throwing: SpanExporter = {
      export: () => {
        throw new Error('exporter threw');
      },
      shutdown: () => Promise.resolve(),
    };
    const clean = await recordThrough(new BasicTracerProvider());
    for (const exporter of [failing, throwing]) {
      for (const processor of [
        new SimpleSpanProcessor(exporter),
        new BatchSpanProcessor(exporter, { scheduledDelayMillis: 1, maxExportBatchSize: 2 }),
      ]) {
        const provider = new BasicTracerProvider({ spanProcessors: [processor] });
        const recorded = await recordThrough(provider);
        await provider.forceFlush().catch(() => undefined);
        expect(recorded.held.map((h) => [h.run?.status, h.run?.stepCount, h.run?.outcomeCounts])).toEqual(
          clean.held.map((h) => [h.run?.status, h.run?.stepCount, h.run?.outcomeCounts]),
        );
      }
    }
  });

  it('refuses a privacy level or a provider it does not know, naming the option', () => {
    const store = InMemoryRunStore.create();
    expect(() => otelRunStore(store, { privacy: 'secret' as PrivacyLevel })).toThrow(
      'OtelRunStoreOptions.privacy must be one of "none", "metadata", "redacted", "full", got "secret"',
    );
    expect(() => otelRunStore(store, { tracerProvider: {} as TracerProvider })).toThrow(
      'OtelRunStoreOptions.tracerProvider must be an OpenTelemetry TracerProvider',
    );
  });
});
