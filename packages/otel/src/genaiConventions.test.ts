// The mapping against the GenAI semantic conventions of open-telemetry/semantic-conventions-genai
// (v0.1.0): success leaves the status UNSET, gen_ai.provider.name is on every chat and invoke_agent
// span, gen_ai.tool.type on every execute_tool span (issue 31, item 6).
import { SpanStatusCode } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { InMemoryRunStore, PrivacyLevel, type RunStore, startRun } from '@runledger/trace';
import { describe, expect, it } from 'vitest';
import { exportRuns } from './exportRuns.js';
import { planStep, type SpanPlan } from './mapping.js';
import { otelRunStore } from './otelRunStore.js';
import { recordSampleRuns, steppingClock } from './testing/sampleRuns.js';

function liveExport(): { exporter: InMemorySpanExporter; store: RunStore; inner: RunStore; clock: () => number } {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const clock = steppingClock();
  const inner = InMemoryRunStore.create({ clock });
  return { exporter, store: otelRunStore(inner, { tracerProvider: provider }), inner, clock };
}

const rootOf = (spans: readonly ReadableSpan[], runId: string) =>
  spans.find((s) => s.parentSpanContext === undefined && s.attributes['runledger.run.id'] === runId)!;

function chatPlan(payload: Record<string, unknown>): SpanPlan {
  const plan = planStep(
    { sequence: 0, kind: 'llm', round: 0, durationMs: 5, createdAt: 1_000, payload: { kind: 'llm', ...payload } },
    PrivacyLevel.METADATA,
  );
  if (plan.type !== 'span') throw new Error(`an llm step must be a span, got ${plan.type}`);
  return plan;
}

describe('GenAI semantic conventions (semantic-conventions-genai v0.1.0)', () => {
  it('leaves success UNSET: an ok tool call and a completed run have no status, a failure still has ERROR', async () => {
    const { exporter, store, inner, clock } = liveExport();
    const runs = await recordSampleRuns(store, clock);
    const spans = exporter.getFinishedSpans();
    const steps = await inner.readSteps(runs.completed);
    const okStep = steps.find((s) => s.kind === 'tool' && s.toolOutcome === 'ok')!;
    const ok = spans.find(
      (s) => s.attributes['runledger.step.sequence'] === okStep.sequence && s.attributes['runledger.tool.outcome'] === 'ok',
    )!;
    expect(ok.attributes['runledger.tool.outcome']).toBe('ok');
    expect(ok.status).toEqual({ code: SpanStatusCode.UNSET });
    expect(rootOf(spans, runs.completed).status).toEqual({ code: SpanStatusCode.UNSET });
    expect(rootOf(spans, runs.failed).status.code).toBe(SpanStatusCode.ERROR);
    // nothing the export writes is OK
    for (const span of spans) expect(span.status.code).not.toBe(SpanStatusCode.OK);
    // batch export maps the same way
    const batch = new InMemorySpanExporter();
    await exportRuns(inner, batch, { runIds: [runs.completed], privacy: PrivacyLevel.METADATA, serviceName: 'test' });
    for (const span of batch.getFinishedSpans()) expect(span.status.code).not.toBe(SpanStatusCode.OK);
  });

  it('puts gen_ai.provider.name on every chat span: the well-known value, else the provider named, else "unknown"', () => {
    const cases: [unknown, string][] = [
      ['openai.chat', 'openai'],
      ['openai.responses', 'openai'],
      ['anthropic.messages', 'anthropic'],
      ['google.generative-ai', 'gcp.gemini'],
      ['google.vertex.chat', 'gcp.vertex_ai'],
      ['amazon-bedrock', 'aws.bedrock'],
      ['azure.chat', 'azure.ai.openai'],
      ['mistral.chat', 'mistral_ai'],
      ['xai.chat', 'x_ai'],
      ['groq.chat', 'groq'],
      ['deepseek.chat', 'deepseek'],
      ['aws.bedrock', 'aws.bedrock'],
      ['gcp.vertex_ai', 'gcp.vertex_ai'],
      ['ollama.chat', 'ollama'],
      ['Acme', 'acme'],
      ['x'.repeat(300), 'x'.repeat(64)],
      [undefined, 'unknown'],
      ['', 'unknown'],
      ['  ', 'unknown'],
      ['.chat', 'unknown'],
      [42, 'unknown'],
      [null, 'unknown'],
    ];
    for (const [provider, expected] of cases) {
      const plan = chatPlan(provider === undefined ? { model: 'm' } : { model: 'm', provider });
      expect([provider, plan.attributes['gen_ai.provider.name']]).toEqual([provider, expected]);
    }
  });

  it('puts gen_ai.provider.name on the invoke_agent span: the first provider its chat spans name, else "unknown"', async () => {
    const { exporter, store, inner, clock } = liveExport();
    const base = { heartbeatMs: 0, spoolDir: false as const, clock };
    const named = await startRun(store, { ...base, configuration: 'named' });
    const append = (runId: string, sequence: number, payload: Record<string, unknown>) =>
      store.appendStep(runId, {
        kind: 'llm',
        round: 0,
        durationMs: 3,
        createdAt: clock(),
        payload: { kind: 'llm', round: 0, durationMs: 3, ...payload },
        toolServer: null,
        toolOutcome: null,
        sequence,
      });
    await append(named.id, 0, { model: 'gpt-x' });
    await append(named.id, 1, { model: 'claude-x', provider: 'anthropic.messages' });
    await append(named.id, 2, { model: 'gpt-x', provider: 'openai.chat' });
    await named.complete();
    const unnamed = await startRun(store, { ...base, configuration: 'unnamed' });
    await unnamed.trace.recordLlmCall({ model: 'gpt-x' });
    await unnamed.complete();
    const spans = exporter.getFinishedSpans();
    expect(rootOf(spans, named.id).attributes['gen_ai.provider.name']).toBe('anthropic');
    expect(rootOf(spans, unnamed.id).attributes['gen_ai.provider.name']).toBe('unknown');
    const chats = spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'chat');
    expect(chats.map((s) => s.attributes['gen_ai.provider.name'])).toEqual(['unknown', 'anthropic', 'openai', 'unknown']);
    // batch export: the same
    const batch = new InMemorySpanExporter();
    await exportRuns(inner, batch, { runIds: [named.id, unnamed.id], privacy: PrivacyLevel.METADATA, serviceName: 'test' });
    expect(rootOf(batch.getFinishedSpans(), named.id).attributes['gen_ai.provider.name']).toBe('anthropic');
    expect(rootOf(batch.getFinishedSpans(), unnamed.id).attributes['gen_ai.provider.name']).toBe('unknown');
  });

  it('takes gen_ai.provider.name from the provider a recorder gives recordLlmCall, live and in batch', async () => {
    const { exporter, store, inner, clock } = liveExport();
    const run = await startRun(store, { heartbeatMs: 0, spoolDir: false, clock, configuration: 'recorded-provider' });
    await run.trace.recordLlmCall({ model: 'gpt-x', provider: 'openai.chat' });
    await run.complete();
    const [step] = await inner.readSteps(run.id);
    expect(JSON.parse(step!.payload)).toMatchObject({ provider: 'openai.chat' }); // kept at the default privacy level
    const chat = exporter.getFinishedSpans().find((s) => s.attributes['gen_ai.operation.name'] === 'chat')!;
    expect(chat.attributes['gen_ai.provider.name']).toBe('openai');
    expect(rootOf(exporter.getFinishedSpans(), run.id).attributes['gen_ai.provider.name']).toBe('openai');
    const batch = new InMemorySpanExporter();
    await exportRuns(inner, batch, { runIds: [run.id], privacy: PrivacyLevel.METADATA, serviceName: 'test' });
    expect(rootOf(batch.getFinishedSpans(), run.id).attributes['gen_ai.provider.name']).toBe('openai');
  });

  it('puts gen_ai.tool.type on every execute_tool span: extension for an MCP server tool, function without a server', async () => {
    const { exporter, store, clock } = liveExport();
    const runs = await recordSampleRuns(store, clock);
    const tools = exporter.getFinishedSpans().filter((s) => s.attributes['gen_ai.operation.name'] === 'execute_tool');
    expect(tools.length).toBeGreaterThan(3);
    for (const span of tools) {
      const expected = span.attributes['runledger.tool.server'] === undefined ? 'function' : 'extension';
      expect([span.name, span.attributes['gen_ai.tool.type']]).toEqual([span.name, expected]);
    }
    const ofCompleted = tools.filter(
      (s) => s.spanContext().traceId === rootOf(exporter.getFinishedSpans(), runs.completed).spanContext().traceId,
    );
    expect(ofCompleted.map((s) => s.attributes['gen_ai.tool.type'])).toEqual(['extension', 'extension', 'extension', 'function']);
  });
});
