import {
  AggregationTemporality,
  type HistogramMetricData,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { canPruneRuns, canReadOpenCalls, InMemoryRunStore } from '@runledger/trace';
import { describe, expect, it } from 'vitest';
import { otelMetricsRunStore } from './otelMetricsRunStore.js';
import { otelRunStore } from './otelRunStore.js';
import { recordSampleRuns, steppingClock } from './testing/sampleRuns.js';

/** A meter provider whose metrics are collected on demand into memory. */
function collectingProvider() {
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
  const provider = new MeterProvider({ readers: [reader] });
  const collect = async (name: string) => {
    await reader.forceFlush();
    const metrics =
      exporter
        .getMetrics()
        .at(-1)
        ?.scopeMetrics.flatMap((scope) => scope.metrics) ?? [];
    const metric = metrics.find((m) => m.descriptor.name === name) as HistogramMetricData | undefined;
    return metric;
  };
  return { provider, collect };
}

/** Attributes as text whatever their order, for sorting. */
const keyOf = (attributes: object) => JSON.stringify(Object.entries(attributes).sort(([a], [b]) => a.localeCompare(b)));

/** A data point as [attributes, count, sum] for comparing. */
const points = (metric: HistogramMetricData | undefined) =>
  (metric?.dataPoints ?? [])
    .map((p) => ({ attributes: p.attributes, count: p.value.count, sum: Math.round((p.value.sum ?? 0) * 1e6) / 1e6 }))
    .sort((a, b) => keyOf(a.attributes).localeCompare(keyOf(b.attributes)));

describe('otelMetricsRunStore', () => {
  it('records every ended tool call into the duration histograms, in seconds, with the outcome and error.type on failures only', async () => {
    const { provider, collect } = collectingProvider();
    const clock = steppingClock();
    const store = otelMetricsRunStore(InMemoryRunStore.create({ clock }), { meterProvider: provider });
    await recordSampleRuns(store, clock);

    const tool = await collect('gen_ai.execute_tool.duration');
    expect(tool?.descriptor.unit).toBe('s');
    const base = { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.type': 'extension' };
    expect(points(tool)).toEqual(
      [
        {
          attributes: {
            ...base,
            'gen_ai.tool.name': 'mcp_github_search',
            'runledger.tool.server': 'github',
            'runledger.tool.outcome': 'ok',
          },
          count: 1,
          sum: 0.1205,
        },
        {
          attributes: {
            ...base,
            'gen_ai.tool.name': 'mcp_flaky_fetch',
            'runledger.tool.server': 'flaky',
            'runledger.tool.outcome': 'failed',
            'error.type': 'mcp_timeout',
          },
          count: 1,
          sum: 3,
        },
        {
          attributes: {
            ...base,
            'gen_ai.tool.name': 'mcp_slow_export',
            'runledger.tool.server': 'slow',
            'runledger.tool.outcome': 'cancelled',
          },
          count: 2,
          sum: 0.65025,
        },
        {
          attributes: {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.type': 'function',
            'gen_ai.tool.name': 'lookup',
            'runledger.tool.outcome': 'failed',
            'error.type': 'recorder_error',
          },
          count: 1,
          sum: 0.005,
        },
        {
          attributes: {
            ...base,
            'gen_ai.tool.name': 'mcp_flaky_fetch',
            'runledger.tool.server': 'flaky',
            'runledger.tool.outcome': 'failed',
            'error.type': 'server_error',
          },
          count: 1,
          sum: 0.0333,
        },
      ].sort((a, b) => keyOf(a.attributes).localeCompare(keyOf(b.attributes))),
    );
    // a cancel is never an error
    for (const point of tool!.dataPoints) {
      if (point.attributes['runledger.tool.outcome'] !== 'failed') expect(point.attributes['error.type']).toBeUndefined();
    }

    // the MCP operation histogram: the same calls of MCP servers' tools, as tools/call
    const mcp = await collect('mcp.client.operation.duration');
    expect(mcp?.descriptor.unit).toBe('s');
    expect(points(mcp)).toEqual(
      points(tool)
        .filter((p) => p.attributes['runledger.tool.server'] !== undefined)
        .map((p) => ({ ...p, attributes: { ...p.attributes, 'mcp.method.name': 'tools/call' } })),
    );
  });

  it('keeps the store as it is and composes with otelRunStore', async () => {
    const { provider, collect } = collectingProvider();
    const spans = new InMemorySpanExporter();
    const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
    const clock = steppingClock();
    const inner = InMemoryRunStore.create({ clock });
    const store = otelRunStore(otelMetricsRunStore(inner, { meterProvider: provider }), { tracerProvider });
    expect(canPruneRuns(store)).toBe(true);
    expect(canReadOpenCalls(store)).toBe(true);
    const runs = await recordSampleRuns(store, clock);
    expect((await store.getRun(runs.cancelled))?.status).toBe('cancelled');
    expect((await collect('gen_ai.execute_tool.duration'))?.dataPoints.reduce((n, p) => n + p.value.count, 0)).toBe(6);
    expect(spans.getFinishedSpans().filter((s) => s.name.startsWith('execute_tool'))).toHaveLength(6);
  });

  it('keeps a failing meter away from the run and reports it', async () => {
    const errors: unknown[] = [];
    const broken = {
      getMeter: () => {
        throw new Error('meter down');
      },
    };
    const clock = steppingClock();
    const store = otelMetricsRunStore(InMemoryRunStore.create({ clock }), { meterProvider: broken, onError: (e) => errors.push(e) });
    const runs = await recordSampleRuns(store, clock);
    expect((await store.readSteps(runs.completed)).length).toBeGreaterThan(5);
    expect(errors.length).toBeGreaterThan(0);
    expect(String(errors[0])).toContain('meter down');
    expect(() => otelMetricsRunStore(InMemoryRunStore.create(), { meterProvider: {} as never })).toThrow(
      'OtelMetricsRunStoreOptions.meterProvider must be an OpenTelemetry MeterProvider',
    );
  });
});
