// MCP tracing and live export (@runledger/otel) both on: one span per tool call, the execute_tool
// span of the run, carrying the MCP attributes too, with one tool name; against the real fixture
// server over Streamable HTTP, spans in an in-memory exporter (issue 31, item 6).
import { context, propagation, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ToolOutcome } from '@runledger/core';
import { TOOL_SPAN_HANDOFF } from '@runledger/core/internal';
import { otelRunStore } from '@runledger/otel';
import { InMemoryRunStore, type RunStore, startRun } from '@runledger/trace';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { McpServerRegistry } from './McpServerRegistry.js';
import type { McpTool } from './McpTool.js';
import {
  type FixtureEvent,
  type HttpFixture,
  newEventsFile,
  readEvents,
  startHttpFixture,
  toolsOnceConnected,
  waitFor,
} from './testing/fixtures.js';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer('test');
const events = newEventsFile();
let http: HttpFixture;
let registry: McpServerRegistry;
let tools: readonly McpTool[];
const tool = (remote: string) => tools.find((t) => t.name === `mcp_fx_${remote}`) as McpTool;

beforeAll(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  http = await startHttpFixture({ eventsFile: events });
  registry = McpServerRegistry.create([http.config({ id: 'fx', deadlineMs: 15_000 })], { tracing: { tracer, propagateContext: true } });
  tools = await toolsOnceConnected(registry);
});
afterAll(async () => {
  await registry.close();
  await http.stop();
  context.disable();
  propagation.disable();
  await provider.shutdown();
});
beforeEach(() => exporter.reset());

/** One call as mcpToolSet makes it: tool_start recorded, the call, its tool step. */
async function recordedCall(
  run: Awaited<ReturnType<typeof startRun>>,
  mcpTool: McpTool,
  args: Record<string, unknown>,
  signal: AbortSignal = run.signal,
) {
  const start = await run.trace.recordToolStart({ toolName: mcpTool.name, toolServer: mcpTool.server, toolArguments: args });
  const started = performance.now();
  const result = await mcpTool.execute(args, { signal });
  await run.trace.recordToolResult({
    toolCallId: start.toolCallId!,
    toolName: mcpTool.name,
    toolServer: mcpTool.server,
    toolArguments: args,
    result,
    durationMs: performance.now() - started,
  });
  return { callId: start.toolCallId!, result };
}

const toolCalls = (spans: readonly ReadableSpan[]) =>
  spans.filter((s) => s.attributes['mcp.method.name'] === 'tools/call' || s.attributes['gen_ai.operation.name'] === 'execute_tool');

describe('MCP tracing with live export', () => {
  it('makes one span per tool call: the run’s execute_tool span, with the MCP attributes and one tool name', async () => {
    const store: RunStore = otelRunStore(InMemoryRunStore.create(), { tracerProvider: provider });
    const run = await startRun(store, { configuration: 'merged', heartbeatMs: 0, spoolDir: false });
    const ok = await recordedCall(run, tool('meta'), { tag: 'merged-ok' });
    const failed = await recordedCall(run, tool('fail'), {});
    const abort = new AbortController();
    const slow = recordedCall(run, tool('slow'), { ms: 10_000, tag: 'merged-cancel' }, abort.signal);
    expect(
      await waitFor(() => readEvents(events).some((e) => e.tool === 'slow' && e.tag === 'merged-cancel' && e.event === 'started')),
    ).toBe(true);
    abort.abort();
    const cancelled = await slow;
    await run.complete();
    expect([ok.result.outcome, failed.result.outcome, cancelled.result.outcome]).toEqual([
      ToolOutcome.OK,
      ToolOutcome.FAILED,
      ToolOutcome.CANCELLED,
    ]);
    // nothing is left offered once the calls ended
    expect((globalThis as Record<symbol, Map<string, unknown[]> | undefined>)[TOOL_SPAN_HANDOFF]?.size ?? 0).toBe(0);

    const spans = exporter.getFinishedSpans();
    const root = spans.find((s) => s.attributes['gen_ai.operation.name'] === 'invoke_agent')!;
    const calls = toolCalls(spans);
    // two calls, two spans: no `tools/call` span beside the execute_tool ones
    expect(calls.map((s) => s.name)).toEqual(['execute_tool mcp_fx_meta', 'execute_tool mcp_fx_fail', 'execute_tool mcp_fx_slow']);
    for (const span of calls) {
      expect(span.kind).toBe(SpanKind.INTERNAL);
      expect(span.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
      expect(span.attributes).toMatchObject({
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.type': 'extension',
        'mcp.method.name': 'tools/call',
        'network.transport': 'tcp',
        'network.protocol.name': 'http',
        'server.address': '127.0.0.1',
        'server.port': http.port,
        'runledger.tool.server': 'fx',
      });
      expect(span.attributes['jsonrpc.request.id']).toMatch(/^\d+$/);
      expect(typeof span.attributes['mcp.protocol.version']).toBe('string');
    }
    const [okSpan, failedSpan, cancelledSpan] = calls as [ReadableSpan, ReadableSpan, ReadableSpan];
    expect(cancelledSpan.attributes).toMatchObject({ 'gen_ai.tool.call.id': cancelled.callId, 'runledger.tool.outcome': 'cancelled' });
    expect(cancelledSpan.attributes['error.type']).toBeUndefined();
    expect(cancelledSpan.status.code).toBe(SpanStatusCode.UNSET);
    expect(okSpan.attributes).toMatchObject({
      'gen_ai.tool.name': 'mcp_fx_meta',
      'gen_ai.tool.call.id': ok.callId,
      'runledger.tool.outcome': 'ok',
    });
    expect(okSpan.status.code).toBe(SpanStatusCode.UNSET);
    expect(failedSpan.attributes).toMatchObject({
      'gen_ai.tool.name': 'mcp_fx_fail',
      'gen_ai.tool.call.id': failed.callId,
      'runledger.tool.outcome': 'failed',
      'error.type': 'server_error',
    });
    expect(failedSpan.status.code).toBe(SpanStatusCode.ERROR);

    // the server saw the execute_tool span as its parent, and the request id the span names
    expect(await waitFor(() => readEvents(events).some((e) => e.tool === 'meta' && e.tag === 'merged-ok'))).toBe(true);
    const seen = readEvents(events).find((e) => e.tool === 'meta' && e.tag === 'merged-ok') as FixtureEvent;
    expect(seen.meta).toMatchObject({ traceparent: `00-${okSpan.spanContext().traceId}-${okSpan.spanContext().spanId}-01` });
    expect(okSpan.attributes['jsonrpc.request.id']).toBe(String(seen.requestId));
    expect(okSpan.attributes['mcp.session.id']).toBe(seen.sessionId);
  });

  it('a call that names its toolCallId joins its own run’s span, never another run’s started call of the same tool', async () => {
    const store: RunStore = otelRunStore(InMemoryRunStore.create(), { tracerProvider: provider });
    const first = await startRun(store, { configuration: 'two-runs-a', heartbeatMs: 0, spoolDir: false });
    const second = await startRun(store, { configuration: 'two-runs-b', heartbeatMs: 0, spoolDir: false });
    const meta = tool('meta');
    const startFirst = await first.trace.recordToolStart({ toolName: meta.name, toolServer: meta.server, toolArguments: {} });
    const startSecond = await second.trace.recordToolStart({ toolName: meta.name, toolServer: meta.server, toolArguments: {} });
    // the second run's call goes out first: the oldest offer is the first run's
    for (const [run, start, tag] of [
      [second, startSecond, 'second-run'],
      [first, startFirst, 'first-run'],
    ] as const) {
      const result = await meta.execute({ tag }, { signal: run.signal, toolCallId: start.toolCallId! });
      await run.trace.recordToolResult({
        toolCallId: start.toolCallId!,
        toolName: meta.name,
        toolServer: meta.server,
        toolArguments: {},
        result,
      });
    }
    await first.complete();
    await second.complete();

    const spans = exporter.getFinishedSpans();
    const rootOf = (configuration: string) =>
      spans.find((s) => s.attributes['gen_ai.operation.name'] === 'invoke_agent' && s.attributes['gen_ai.agent.name'] === configuration);
    const traceOf = (configuration: string) => rootOf(configuration)?.spanContext().traceId;
    expect(traceOf('two-runs-a')).toBeDefined();
    expect(traceOf('two-runs-b')).toBeDefined();
    expect(await waitFor(() => readEvents(events).filter((e) => e.tool === 'meta' && /-run$/.test(String(e.tag))).length === 2)).toBe(true);
    const calls = toolCalls(spans);
    expect(calls).toHaveLength(2);
    for (const [configuration, start, tag] of [
      ['two-runs-a', startFirst, 'first-run'],
      ['two-runs-b', startSecond, 'second-run'],
    ] as const) {
      const span = calls.find((s) => s.attributes['gen_ai.tool.call.id'] === start.toolCallId)!;
      expect(span.spanContext().traceId).toBe(traceOf(configuration));
      const seen = readEvents(events).find((e) => e.tool === 'meta' && e.tag === tag) as FixtureEvent;
      // the server's parent is this run's span, and the span names this request
      expect(seen.meta).toMatchObject({ traceparent: `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01` });
      expect(span.attributes['jsonrpc.request.id']).toBe(String(seen.requestId));
    }
  });

  it('names the tool the same with MCP tracing alone and with live export alone', async () => {
    const alone = await tool('echo').execute({ text: 'x' });
    expect(alone.outcome).toBe(ToolOutcome.OK);
    const mcpOnly = toolCalls(exporter.getFinishedSpans());
    expect(mcpOnly.map((s) => [s.name, s.kind, s.attributes['gen_ai.tool.name']])).toEqual([
      ['tools/call echo', SpanKind.CLIENT, 'mcp_fx_echo'],
    ]);

    exporter.reset();
    const store: RunStore = otelRunStore(InMemoryRunStore.create(), { tracerProvider: provider });
    const run = await startRun(store, { configuration: 'export-only', heartbeatMs: 0, spoolDir: false });
    // a step recorded without an MCP call (no claim): the export's own span
    const start = await run.trace.recordToolStart({ toolName: 'mcp_fx_echo', toolServer: 'fx', toolArguments: {} });
    await run.trace.recordToolResult({
      toolCallId: start.toolCallId!,
      toolName: 'mcp_fx_echo',
      toolServer: 'fx',
      toolArguments: {},
      result: alone,
    });
    await run.complete();
    const exportOnly = toolCalls(exporter.getFinishedSpans());
    expect(exportOnly.map((s) => [s.name, s.attributes['gen_ai.tool.name'], s.attributes['mcp.method.name']])).toEqual([
      ['execute_tool mcp_fx_echo', 'mcp_fx_echo', undefined],
    ]);
  });
});
