// The hand-off of live export's execute_tool spans to the MCP instrumentation: offers are bounded
// (withdrawn when the call or the run ends) and a claimed span is the call's one span.
import { type Span, SpanKind } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ToolResult } from '@runledger/core';
import { InMemoryRunStore, startRun } from '@runledger/trace';
import { describe, expect, it } from 'vitest';
import { otelRunStore } from './otelRunStore.js';
import { recordSampleRuns, steppingClock } from './testing/sampleRuns.js';
import { type OpenToolSpan, TOOL_SPAN_HANDOFF } from '@runledger/core/internal';

const offers = () =>
  (globalThis as { [TOOL_SPAN_HANDOFF]?: Map<string, OpenToolSpan<Span>[]> })[TOOL_SPAN_HANDOFF] ?? new Map<string, OpenToolSpan<Span>[]>();

/**
 * The offers of this file's own servers (the sample runs' and `fx`): the registry is the process's,
 * and the test files share a process, so another file's runs left running (the store contract's)
 * keep their own calls offered there, as they should.
 */
const OWN_SERVERS = new Set(['github', 'flaky', 'slow', 'fx']);
const ownOffers = () => [...offers().keys()].filter((key) => OWN_SERVERS.has(key.split('\n')[0]!));

function live() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const clock = steppingClock();
  return { exporter, clock, store: otelRunStore(InMemoryRunStore.create({ clock }), { tracerProvider: provider }) };
}

describe('the execute_tool span hand-off', () => {
  it('leaves nothing offered once the calls ended, ended calls and a call the run left open alike', async () => {
    const { store, clock } = live();
    await recordSampleRuns(store, clock);
    expect(ownOffers()).toEqual([]);
  });

  it('offers each started call of a server tool; the claimed span is the call’s one execute_tool span', async () => {
    const { store, clock, exporter } = live();
    const run = await startRun(store, { configuration: 'handoff', heartbeatMs: 0, spoolDir: false, clock });
    const start = await run.trace.recordToolStart({ toolName: 'mcp_fx_echo', toolServer: 'fx', toolArguments: {} });
    const queue = offers().get('fx\nmcp_fx_echo')!;
    expect(queue).toHaveLength(1);
    const open = queue.shift()!;
    offers().delete('fx\nmcp_fx_echo');
    const span = open()!;
    expect(open()).toBeUndefined(); // one span per call
    span.setAttribute('mcp.method.name', 'tools/call');
    await run.trace.recordToolResult({
      toolCallId: start.toolCallId!,
      toolName: 'mcp_fx_echo',
      toolServer: 'fx',
      toolArguments: {},
      result: ToolResult.text('hi'),
    });
    await run.complete();
    const tools = exporter.getFinishedSpans().filter((s) => s.attributes['gen_ai.operation.name'] === 'execute_tool');
    expect(tools).toHaveLength(1);
    expect(tools[0]!.kind).toBe(SpanKind.INTERNAL);
    expect(tools[0]!.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'mcp_fx_echo',
      'gen_ai.tool.call.id': start.toolCallId,
      'gen_ai.tool.type': 'extension',
      'runledger.tool.outcome': 'ok',
    });
    expect(ownOffers()).toEqual([]);
  });

  it('opens no span for a call offered after its run ended', async () => {
    const { store, clock, exporter } = live();
    const run = await startRun(store, { configuration: 'late-claim', heartbeatMs: 0, spoolDir: false, clock });
    await run.trace.recordToolStart({ toolName: 'mcp_fx_echo', toolServer: 'fx', toolArguments: {} });
    const open = offers().get('fx\nmcp_fx_echo')![0]!;
    await run.complete();
    expect(ownOffers()).toEqual([]);
    expect(open()).toBeUndefined();
    expect(exporter.getFinishedSpans().filter((s) => s.attributes['gen_ai.operation.name'] === 'execute_tool')).toHaveLength(0);
  });
});
