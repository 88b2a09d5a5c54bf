// OpenTelemetry spans of McpTool calls, after the semantic conventions for MCP, over stdio and
// Streamable HTTP against the real fixture server: what the spans say for ok, failed and cancelled
// calls, and the trace context the server receives in params._meta.
import { context, propagation, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ToolOutcome } from '@runledger/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { McpConfigError } from './McpConfigError.js';
import type { McpServerConfig } from './McpServerConfig.js';
import { McpServerRegistry, type McpServerRegistryOptions } from './McpServerRegistry.js';
import type { McpTool } from './McpTool.js';
import { parseServerConfig } from './parseServerConfig.js';
import {
  type FixtureEvent,
  type HttpFixture,
  newEventsFile,
  readEvents,
  startHttpFixture,
  stdioFixtureConfig,
  toolsOnceConnected,
  waitFor,
} from './testing/fixtures.js';

const SHORT_DEADLINE_MS = 300;
const LONG_DEADLINE_MS = 15_000;

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer('test');

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
});
afterAll(async () => {
  context.disable();
  propagation.disable();
  await provider.shutdown();
});
beforeEach(() => exporter.reset());

interface Fixture {
  readonly transport: 'pipe' | 'tcp';
  readonly events: string;
  /** Server configurations for one registry: `fx` (long deadline) and `fast` (short). */
  configs(): McpServerConfig[];
  readonly port: number | undefined;
  stop(): Promise<void>;
}

const fixtures: Record<string, () => Promise<Fixture>> = {
  stdio: async () => {
    const events = newEventsFile();
    return {
      transport: 'pipe',
      events,
      configs: () => [
        stdioFixtureConfig({ id: 'fx', eventsFile: events, deadlineMs: LONG_DEADLINE_MS }),
        stdioFixtureConfig({ id: 'fast', eventsFile: events, deadlineMs: SHORT_DEADLINE_MS }),
      ],
      port: undefined,
      stop: async () => {},
    };
  },
  http: async () => {
    const events = newEventsFile();
    const http: HttpFixture = await startHttpFixture({ eventsFile: events });
    return {
      transport: 'tcp',
      events,
      configs: () => [http.config({ id: 'fx', deadlineMs: LONG_DEADLINE_MS }), http.config({ id: 'fast', deadlineMs: SHORT_DEADLINE_MS })],
      port: http.port,
      stop: () => http.stop(),
    };
  },
};

function spanNamed(name: string): ReadableSpan {
  const spans = exporter.getFinishedSpans().filter((s) => s.name === name);
  expect(spans).toHaveLength(1);
  return spans[0] as ReadableSpan;
}

function metaEvent(events: string, tag: string): FixtureEvent | undefined {
  return readEvents(events).find((e) => e.tool === 'meta' && e.tag === tag);
}

/** Runs `body` with a span of the test's own as the active one, and ends it. */
async function underParent<T>(body: (parent: Span) => Promise<T>): Promise<T> {
  const parent = tracer.startSpan('agent step');
  try {
    return await context.with(trace.setSpan(context.active(), parent), () => body(parent));
  } finally {
    parent.end();
  }
}

describe.each(Object.keys(fixtures))('tracing over %s', (kind) => {
  let fixture: Fixture;
  let registry: McpServerRegistry;
  let tools: readonly McpTool[];
  const open: McpServerRegistry[] = [];
  const tool = (server: string, remote: string) => tools.find((t) => t.name === `mcp_${server}_${remote}`) as McpTool;
  const registryWith = async (options: McpServerRegistryOptions) => {
    const made = McpServerRegistry.create(fixture.configs(), options);
    open.push(made);
    return { registry: made, tools: await toolsOnceConnected(made) };
  };

  beforeAll(async () => {
    fixture = await (fixtures[kind] as () => Promise<Fixture>)();
    ({ registry, tools } = await registryWith({ tracing: { tracer, propagateContext: true } }));
  });
  afterAll(async () => {
    await Promise.all(open.map((r) => r.close()));
    await fixture.stop();
  });

  it('ok: one CLIENT span per call, a child of the active context, and the server sees it as parent', async () => {
    const { parent, result } = await underParent(async (parent) => ({ parent, result: await tool('fx', 'meta').execute({ tag: 'ok' }) }));
    expect(result.outcome).toBe(ToolOutcome.OK);
    const span = spanNamed('tools/call meta');
    expect(span.kind).toBe(SpanKind.CLIENT);
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(span.spanContext().traceId).toBe(parent.spanContext().traceId);
    expect(span.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);

    expect(await waitFor(() => metaEvent(fixture.events, 'ok') !== undefined)).toBe(true);
    const seen = metaEvent(fixture.events, 'ok') as FixtureEvent;
    const { traceId, spanId } = span.spanContext();
    expect(seen.meta).toMatchObject({ traceparent: `00-${traceId}-${spanId}-01` });

    const expected: Record<string, unknown> = {
      'mcp.method.name': 'tools/call',
      // the tool's local name, as the run records it (and live export names it)
      'gen_ai.tool.name': 'mcp_fx_meta',
      'gen_ai.tool.type': 'extension',
      'gen_ai.operation.name': 'execute_tool',
      'jsonrpc.request.id': String(seen.requestId),
      'network.transport': fixture.transport,
      'runledger.tool.server': 'fx',
      'runledger.tool.outcome': 'ok',
    };
    if (kind === 'http') {
      Object.assign(expected, {
        'mcp.session.id': seen.sessionId,
        'server.address': '127.0.0.1',
        'server.port': fixture.port,
        'network.protocol.name': 'http',
      });
      expect(typeof seen.sessionId).toBe('string');
    }
    expect(span.attributes).toMatchObject(expected);
    expect(typeof span.attributes['mcp.protocol.version']).toBe('string');
    expect(span.attributes['error.type']).toBeUndefined();
    if (kind === 'stdio') {
      expect(span.attributes['mcp.session.id']).toBeUndefined();
      expect(span.attributes['server.address']).toBeUndefined();
    }
    // No argument or answer text on the span.
    expect(JSON.stringify(span.attributes)).not.toContain('reported');
  });

  it('failed, the server answered isError: status ERROR, error.type server_error', async () => {
    const result = await tool('fx', 'fail').execute({});
    expect(result.outcome).toBe(ToolOutcome.FAILED);
    const span = spanNamed('tools/call fail');
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes).toMatchObject({ 'runledger.tool.outcome': 'failed', 'error.type': 'server_error' });
    expect(span.attributes['jsonrpc.request.id']).toMatch(/^\d+$/);
  });

  it('failed, the server answered a JSON-RPC error: error.type is the cause, the code is rpc.response.status_code', async () => {
    const result = await tool('fx', 'throws').execute({});
    expect(result.failureCause).toBe('mcp_json_rpc_error');
    const span = spanNamed('tools/call throws');
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes).toMatchObject({
      'runledger.tool.outcome': 'failed',
      'error.type': 'mcp_json_rpc_error',
      'rpc.response.status_code': '-32001',
    });
  });

  it('failed, the server did not answer within the deadline: error.type mcp_timeout', async () => {
    const result = await tool('fast', 'hang').execute({ tag: 'timeout' });
    expect(result.outcome).toBe(ToolOutcome.FAILED);
    const span = spanNamed('tools/call hang');
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes).toMatchObject({
      'runledger.tool.outcome': 'failed',
      'error.type': 'mcp_timeout',
      'runledger.tool.server': 'fast',
    });
  });

  it('cancelled by our own abort: never ERROR, no error.type, the outcome says cancelled', async () => {
    const controller = new AbortController();
    const call = tool('fx', 'slow').execute({ ms: 10_000, tag: 'cancel' }, { signal: controller.signal });
    expect(
      await waitFor(() => readEvents(fixture.events).some((e) => e.tool === 'slow' && e.tag === 'cancel' && e.event === 'started')),
    ).toBe(true);
    controller.abort();
    const result = await call;
    expect(result.outcome).toBe(ToolOutcome.CANCELLED);
    const span = spanNamed('tools/call slow');
    expect(span.kind).toBe(SpanKind.CLIENT);
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(span.attributes['runledger.tool.outcome']).toBe('cancelled');
    expect(span.attributes['error.type']).toBeUndefined();
    expect(span.attributes['jsonrpc.request.id']).toMatch(/^\d+$/);
  });

  it('cancelled before sending: a span with the outcome and no request id', async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await tool('fx', 'echo').execute({ text: 'x' }, { signal: controller.signal });
    expect(result.outcome).toBe(ToolOutcome.CANCELLED);
    const span = spanNamed('tools/call echo');
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(span.attributes['runledger.tool.outcome']).toBe('cancelled');
    expect(span.attributes['jsonrpc.request.id']).toBeUndefined();
  });

  it('concurrent calls each get the request id the server saw', async () => {
    const tags = ['c0', 'c1', 'c2', 'c3', 'c4'];
    await Promise.all(tags.map((tag) => underParent(() => tool('fx', 'meta').execute({ tag }))));
    const spans = exporter.getFinishedSpans().filter((s) => s.name === 'tools/call meta');
    expect(spans).toHaveLength(tags.length);
    expect(await waitFor(() => tags.every((tag) => metaEvent(fixture.events, tag) !== undefined))).toBe(true);
    for (const tag of tags) {
      const seen = metaEvent(fixture.events, tag) as FixtureEvent;
      const traceparent = (seen.meta as { traceparent: string }).traceparent;
      const span = spans.find((s) => traceparent === `00-${s.spanContext().traceId}-${s.spanContext().spanId}-01`);
      expect(span?.attributes['jsonrpc.request.id']).toBe(String(seen.requestId));
    }
  });

  it('tracing without propagateContext sends no trace context', async () => {
    const quiet = await registryWith({ tracing: { tracerProvider: provider } });
    const meta = quiet.tools.find((t) => t.name === 'mcp_fx_meta') as McpTool;
    await underParent(() => meta.execute({ tag: 'no-propagation' }));
    expect(await waitFor(() => metaEvent(fixture.events, 'no-propagation') !== undefined)).toBe(true);
    expect(metaEvent(fixture.events, 'no-propagation')?.meta).toBeNull();
    expect(spanNamed('tools/call meta').instrumentationScope.name).toBe('@runledger/mcp');
  });

  it('tools/list: one CLIENT span per server listing, a child of the active context', async () => {
    const parent = await underParent(async (step) => {
      await registry.tools({ refresh: true });
      return step;
    });
    const spans = exporter.getFinishedSpans().filter((s) => s.name === 'tools/list');
    expect(spans.map((s) => s.attributes['runledger.tool.server']).sort()).toEqual(['fast', 'fx']);
    for (const span of spans) {
      expect(span.kind).toBe(SpanKind.CLIENT);
      expect(span.status.code).toBe(SpanStatusCode.UNSET);
      expect(span.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
      expect(span.attributes).toMatchObject({ 'mcp.method.name': 'tools/list', 'network.transport': fixture.transport });
      expect(typeof span.attributes['mcp.protocol.version']).toBe('string');
      expect(span.attributes['gen_ai.tool.name']).toBeUndefined();
      expect(span.attributes['runledger.tool.outcome']).toBeUndefined();
    }
  });

  it('propagateContext with no propagator configured: the span, and no _meta', async () => {
    propagation.disable();
    try {
      expect((await underParent(() => tool('fx', 'meta').execute({ tag: 'no-propagator' }))).outcome).toBe(ToolOutcome.OK);
    } finally {
      propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    }
    expect(await waitFor(() => metaEvent(fixture.events, 'no-propagator') !== undefined)).toBe(true);
    expect(metaEvent(fixture.events, 'no-propagator')?.meta).toBeNull();
    expect(spanNamed('tools/call meta').attributes['runledger.tool.outcome']).toBe('ok');
  });

  it('tracing off: no span and no _meta', async () => {
    const off = await registryWith({});
    const meta = off.tools.find((t) => t.name === 'mcp_fx_meta') as McpTool;
    expect((await underParent(() => meta.execute({ tag: 'off' }))).outcome).toBe(ToolOutcome.OK);
    expect(await waitFor(() => metaEvent(fixture.events, 'off') !== undefined)).toBe(true);
    expect(metaEvent(fixture.events, 'off')?.meta).toBeNull();
    expect(exporter.getFinishedSpans().map((s) => s.name)).toEqual(['agent step']);
  });
});

describe('tools/list of a server that cannot be reached', () => {
  it('is an ERROR span with the failure class as error.type', async () => {
    const [gone] = parseServerConfig({
      servers: [{ id: 'gone', transport: { type: 'stdio', command: '/nonexistent/runledger-no-such-server' } }],
    });
    const unreachable = McpServerRegistry.create([gone as McpServerConfig], { tracing: { tracer } });
    try {
      expect(await unreachable.tools()).toEqual([]);
      expect(unreachable.serverProblems.map((p) => p.server)).toEqual(['gone']);
    } finally {
      await unreachable.close();
    }
    const span = spanNamed('tools/list');
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes).toMatchObject({
      'runledger.tool.server': 'gone',
      'error.type': 'mcp_transport_failure',
      'network.transport': 'pipe',
    });
  });
});

describe('a broken tracer never changes a call', () => {
  const fail = (what: string) => () => {
    throw new Error(what);
  };
  const brokenSpan = new Proxy({}, { get: () => fail('broken span') });
  it.each([
    ['startSpan throws', { startSpan: fail('broken tracer') }],
    ['every method of the span throws', { startSpan: () => brokenSpan }],
  ])('%s', async (_label, broken) => {
    const events = newEventsFile();
    const faulty = McpServerRegistry.create([stdioFixtureConfig({ eventsFile: events })], {
      tracing: { tracer: broken as never, propagateContext: true },
    });
    try {
      const tools = await toolsOnceConnected(faulty);
      const named = (remote: string) => tools.find((t) => t.remoteName === remote) as McpTool;
      expect(await named('echo').execute({ text: 'still here' })).toMatchObject({ outcome: ToolOutcome.OK, content: 'still here' });
      expect((await named('fail').execute({})).outcome).toBe(ToolOutcome.FAILED);
    } finally {
      await faulty.close();
    }
  });
});

describe('tracing options', () => {
  it.each([
    ['no tracer', {}, 'options.tracing must have exactly one of tracer and tracerProvider'],
    ['both', { tracer, tracerProvider: provider }, 'options.tracing must have exactly one of tracer and tracerProvider'],
    ['a tracer without startSpan', { tracer: {} }, 'options.tracing.tracer must be an OpenTelemetry Tracer (an object with startSpan)'],
    [
      'a string provider',
      { tracerProvider: 'x' },
      'options.tracing.tracerProvider must be an OpenTelemetry TracerProvider (an object with getTracer)',
    ],
    ['a string flag', { tracer, propagateContext: 'yes' }, 'options.tracing.propagateContext must be a boolean'],
    ['null', null, 'options.tracing must be an object with a tracer or a tracerProvider'],
  ])('refuses %s', (_label, tracing, problem) => {
    const attempt = () => McpServerRegistry.create([stdioFixtureConfig()], { tracing: tracing as never });
    expect(attempt).toThrow(McpConfigError);
    expect(attempt).toThrow(problem);
  });
});
