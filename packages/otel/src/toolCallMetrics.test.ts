// ToolCallMetrics against the way it recorded before it kept its attribute objects (issue 41,
// metrics on ≤ 1.2× off): each call's span plan (planStepAt at `metadata`), its metric attributes
// copied out of it, the MCP ones spread from those. Both record into real SDK MeterProviders, with
// and without a user's views; the collected histograms must be the same.
import type { Attributes, Meter } from '@opentelemetry/api';
import { ATTR_MCP_METHOD_NAME, MCP_METHOD_NAME_VALUE_TOOLS_CALL } from '@opentelemetry/semantic-conventions/incubating';
import {
  AggregationTemporality,
  AggregationType,
  createAllowListAttributesProcessor,
  MeterProvider,
  MetricReader,
  type ViewOptions,
} from '@opentelemetry/sdk-metrics';
import { TOOL_FAILURE_CAUSES } from '@runledger/core';
import { PrivacyLevel } from '@runledger/trace';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Attr, SCOPE_NAME } from './attributes.js';
import { planStepAt, type StepFields } from './mapping.js';
import { EXECUTE_TOOL_DURATION, ToolCallMetrics } from './toolCallMetrics.js';

/** A reader that collects when asked. */
class OnDemandReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
}

const METRIC_ATTRIBUTES = [Attr.OPERATION, Attr.TOOL_NAME, Attr.TOOL_TYPE, Attr.TOOL_SERVER, Attr.TOOL_OUTCOME, Attr.ERROR_TYPE] as const;

/** The recording before (commit fe79dc4): the span plan's attributes, copied per call. */
function recordTheOldWay(meter: Meter): (step: StepFields) => boolean {
  const advice = { explicitBucketBoundaries: [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300] };
  const tool = meter.createHistogram(EXECUTE_TOOL_DURATION, { unit: 's', advice });
  const mcp = meter.createHistogram('mcp.client.operation.duration', { unit: 's', advice });
  return (step) => {
    if (step.kind !== 'tool' || step.payload === null || !(step.durationMs >= 0)) return false;
    const plan = planStepAt(0, step, PrivacyLevel.METADATA);
    if (plan.type !== 'span') return false;
    const attributes: Attributes = {};
    for (const key of METRIC_ATTRIBUTES) {
      const value = plan.attributes[key];
      if (value !== undefined) attributes[key] = value;
    }
    const seconds = step.durationMs / 1000;
    tool.record(seconds, attributes);
    if (attributes[Attr.TOOL_SERVER] !== undefined)
      mcp.record(seconds, { ...attributes, [ATTR_MCP_METHOD_NAME]: MCP_METHOD_NAME_VALUE_TOOLS_CALL });
    return true;
  };
}

/** A provider with views (or none) and its reader. */
function provider(views: ViewOptions[]) {
  const reader = new OnDemandReader();
  return { reader, provider: new MeterProvider({ readers: [reader], views }) };
}

/** Attributes as text whatever their key order. */
const keyOf = (attributes: object) => JSON.stringify(Object.entries(attributes).sort(([a], [b]) => (a < b ? -1 : 1)));

/** Every point of every metric, comparable: name, attributes, and the value (count, sum, min, max, buckets) without times. */
async function collected(reader: MetricReader) {
  const { resourceMetrics, errors } = await reader.collect();
  expect(errors).toEqual([]);
  return resourceMetrics.scopeMetrics
    .flatMap((scope) => scope.metrics)
    .flatMap((metric) =>
      metric.dataPoints.map((point) => ({ metric: metric.descriptor.name, attributes: keyOf(point.attributes), value: point.value })),
    )
    .sort((a, b) => (`${a.metric} ${a.attributes}` < `${b.metric} ${b.attributes}` ? -1 : 1));
}

/** A payload field: absent, empty, not a string, or one of a few values (so that kinds of calls repeat). */
const field = (values: string[]) =>
  fc.oneof({ arbitrary: fc.constantFrom(...values), weight: 6 }, fc.constantFrom(undefined, '', 42, null));

/** A step as the store gets it (or reads it back): mostly tool steps, with every field the attributes depend on varied. */
const stepArb: fc.Arbitrary<StepFields> = fc.record({
  kind: fc.oneof({ arbitrary: fc.constant('tool'), weight: 9 }, fc.constantFrom('tool_start', 'llm')),
  round: fc.nat(5),
  durationMs: fc.oneof(
    { arbitrary: fc.integer({ min: 0, max: 40_000_000 }).map((h) => h / 100), weight: 9 },
    fc.constantFrom(-1, Number.NaN),
  ),
  createdAt: fc.constant(1_764_547_200_000),
  payload: fc.oneof(
    { arbitrary: fc.constant(null), weight: 1 },
    {
      weight: 12,
      arbitrary: fc
        .record(
          {
            toolName: field(['search', 'fetch', 'mcp_github_search']),
            toolServer: field(['github', 'flaky']),
            toolIsError: fc.constantFrom(true, false, 'yes'),
            toolOutcome: fc.constantFrom('ok', 'failed', 'cancelled', 'lost'),
            toolFailureCause: fc.constantFrom(...TOOL_FAILURE_CAUSES, 'mcp_cancelled', 7),
            toolCallId: fc.string(),
            toolArguments: fc.constant({ query: 'q' }),
            toolResult: fc.string(),
            toolWrites: fc.boolean(),
          },
          { requiredKeys: [] },
        )
        .map((payload) => ({ kind: 'tool', ...payload })),
    },
  ),
});

const VIEWS: Record<string, ViewOptions[]> = {
  'no view': [],
  'views: an allow-list on one instrument, exponential buckets on the other': [
    {
      instrumentName: EXECUTE_TOOL_DURATION,
      attributesProcessors: [createAllowListAttributesProcessor([Attr.TOOL_SERVER, Attr.TOOL_OUTCOME, Attr.ERROR_TYPE])],
    },
    { instrumentName: 'mcp.client.operation.duration', aggregation: { type: AggregationType.EXPONENTIAL_HISTOGRAM } },
  ],
};

describe('ToolCallMetrics', () => {
  for (const [name, views] of Object.entries(VIEWS)) {
    it(`collects the histograms the old recording collected (${name}): count, sum, min, max, buckets and attributes`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(stepArb, { maxLength: 60 }), async (steps) => {
          const now = provider(views);
          const old = provider(views);
          const metrics = ToolCallMetrics.of(now.provider);
          const recordOld = recordTheOldWay(old.provider.getMeter(SCOPE_NAME));
          for (const step of steps) expect(metrics.record(step)).toBe(recordOld(step));
          expect(await collected(now.reader)).toEqual(await collected(old.reader));
          // and again after a collection, with the same kinds of call
          for (const step of steps) {
            metrics.record(step);
            recordOld(step);
          }
          expect(await collected(now.reader)).toEqual(await collected(old.reader));
        }),
        { numRuns: 150 },
      );
    });
  }

  it('hands the SDK one attribute object per kind of call, its keys sorted as the SDK sorts them', () => {
    const handed: Attributes[] = [];
    const { provider: meterProvider } = provider([]);
    const real = meterProvider.getMeter(SCOPE_NAME);
    const meter = {
      createHistogram: (...args: Parameters<Meter['createHistogram']>) => {
        const histogram = real.createHistogram(...args);
        return { record: (value: number, attributes?: Attributes) => (handed.push(attributes!), histogram.record(value, attributes)) };
      },
    } as unknown as Meter;
    const metrics = new ToolCallMetrics(meter);
    const call = (i: number): StepFields => ({
      kind: 'tool',
      round: 0,
      durationMs: 10 + i,
      createdAt: 0,
      payload: {
        kind: 'tool',
        toolName: 'search',
        toolServer: 'github',
        toolIsError: i % 2 === 1,
        toolOutcome: i % 2 === 1 ? 'failed' : 'ok',
        toolCallId: `c${i}`,
      },
    });
    for (let i = 0; i < 6; i++) metrics.record(call(i));
    expect(handed).toHaveLength(12);
    // ok: tool, mcp; failed: tool, mcp; the same two objects for every ok call and every failed one
    const distinct = new Set(handed);
    expect(distinct.size).toBe(4);
    for (const attributes of distinct) {
      const keys = Object.keys(attributes);
      expect(keys).toEqual([...keys].sort());
      expect(Object.isFrozen(attributes)).toBe(true);
    }
  });

  it('keeps a bounded number of kinds and records every call past them', async () => {
    const now = provider([]);
    const old = provider([]);
    const metrics = ToolCallMetrics.of(now.provider);
    const recordOld = recordTheOldWay(old.provider.getMeter(SCOPE_NAME));
    for (let i = 0; i < 2_300; i++) {
      const step = {
        kind: 'tool',
        round: 0,
        durationMs: i % 97,
        createdAt: 0,
        payload: { toolName: `tool${i % 2_200}`, toolIsError: false },
      };
      metrics.record(step);
      recordOld(step);
    }
    expect(await collected(now.reader)).toEqual(await collected(old.reader));
  });
});
