// exportRunMetricsOtlp over the real wire: the stored runs' tool calls as OTLP/HTTP protobuf
// histograms, sent to a receiver on 127.0.0.1 that decodes each body with the official OTLP
// protobuf definitions, and compared point by point with what the live path (otelMetricsRunStore
// into an SDK MeterProvider with the official exporter) sends for the same calls.
import { InMemoryRunStore, type RunStore, startRun } from '@runledger/trace';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exportRunMetricsOtlp } from './exportRunMetricsOtlp.js';
import { sendLiveSampleMetrics } from './testing/liveSampleMetrics.js';
import { type OtlpReceiver, type ReceivedHistogramPoint, startOtlpReceiver } from './testing/otlpReceiver.js';
import { recordSampleRuns, type SampleRuns, steppingClock } from './testing/sampleRuns.js';

let receiver: OtlpReceiver;
let store: RunStore;
let runs: SampleRuns;
let runningId: string;

beforeEach(async () => {
  receiver = await startOtlpReceiver();
  const clock = steppingClock();
  store = InMemoryRunStore.create({ clock });
  runs = await recordSampleRuns(store, clock);
  runningId = (await startRun(store, { configuration: 'still-running', heartbeatMs: 0, spoolDir: false, clock })).id;
});
afterEach(async () => {
  await receiver.close();
});

const ns = (ms: number): bigint => BigInt(ms) * 1_000_000n;
const sumOf = (points: readonly ReceivedHistogramPoint[], metric: string, outcome: string, key: 'count' | 'sum') =>
  points.filter((p) => p.metric === metric && p.attributes['runledger.tool.outcome'] === outcome).reduce((n, p) => n + p[key], 0);
/** A point without its times, keyed by metric and attributes: what the live and the stored path must agree on. */
const shape = (points: readonly ReceivedHistogramPoint[]) =>
  points
    .map((p) => ({
      key: `${p.metric} ${JSON.stringify(Object.entries(p.attributes).sort())}`,
      unit: p.unit,
      temporality: p.temporality,
      scope: p.scope,
      count: p.count,
      sum: Number(p.sum.toFixed(9)),
      bucketCounts: p.bucketCounts,
      explicitBounds: p.explicitBounds,
    }))
    .sort((a, b) => (a.key < b.key ? -1 : 1));

/** The tool steps the store holds: their end times, as the store gives them. */
async function toolStepTimes(): Promise<number[]> {
  const times: number[] = [];
  for (const id of [runs.completed, runs.cancelled, runs.failed]) {
    for (const step of await store.readSteps(id, { limit: 1000 })) if (step.kind === 'tool') times.push(step.createdAt);
  }
  return times;
}

describe('exportRunMetricsOtlp: stored calls as OTLP/HTTP protobuf histograms', () => {
  it('sends the live path’s histograms for the stored calls: counts and sums per outcome, error.type on failed calls only', async () => {
    const result = await exportRunMetricsOtlp(store, { endpoint: receiver.url, headers: { 'x-tenant': 'acme' }, pointEveryMs: 0 });
    expect(result).toEqual({
      url: `${receiver.url}/v1/metrics`,
      runsSeen: 4,
      runsExported: 3,
      runsSkipped: 1,
      callsExported: 6,
      requests: 3,
    });
    expect(receiver.requests).toHaveLength(3); // pointEveryMs 0: one per run that ended a call
    for (const request of receiver.requests) {
      expect(request.path).toBe('/v1/metrics');
      expect(request.headers['content-type']).toBe('application/x-protobuf');
      expect(request.headers['x-tenant']).toBe('acme');
    }
    const points = receiver.requests.at(-1)!.points;
    for (const p of points) {
      expect(p.unit).toBe('s');
      expect(p.temporality).toBe(2); // cumulative
      expect(p.scope).toBe('@runledger/otel');
      expect(p.resource['service.name']).toBe('runledger');
      expect(p.explicitBounds).toEqual([0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300]);
      expect(p.bucketCounts.reduce((a, b) => a + b, 0)).toBe(p.count);
      const outcome = p.attributes['runledger.tool.outcome'];
      expect(['ok', 'failed', 'cancelled']).toContain(outcome);
      // a cancel is never an error: error.type on failed calls only, and on every one of them
      expect(p.attributes['error.type'] !== undefined, JSON.stringify(p.attributes)).toBe(outcome === 'failed');
    }
    // the stored calls: ok 120.5 ms; failed 3000 (timeout), 5 (a function tool's), 33.3 (HTTP 502); cancelled 400.25 and 250 ms
    const tool = 'gen_ai.execute_tool.duration';
    const mcp = 'mcp.client.operation.duration';
    expect(['ok', 'failed', 'cancelled'].map((o) => sumOf(points, tool, o, 'count'))).toEqual([1, 3, 2]);
    expect(['ok', 'failed', 'cancelled'].map((o) => sumOf(points, mcp, o, 'count'))).toEqual([1, 2, 2]);
    expect(sumOf(points, tool, 'ok', 'sum')).toBeCloseTo(0.1205, 9);
    expect(sumOf(points, tool, 'failed', 'sum')).toBeCloseTo(3.0383, 9);
    expect(sumOf(points, tool, 'cancelled', 'sum')).toBeCloseTo(0.65025, 9);
    expect(sumOf(points, mcp, 'failed', 'sum')).toBeCloseTo(3.0333, 9);
    const cancelled = points.filter((p) => p.attributes['runledger.tool.outcome'] === 'cancelled');
    expect(cancelled.length).toBeGreaterThan(0);
    expect(cancelled.every((p) => !('error.type' in p.attributes))).toBe(true);
    expect(points.find((p) => p.metric === tool && p.attributes['error.type'] === 'mcp_timeout')?.sum).toBeCloseTo(3, 9);
    expect(points.filter((p) => p.metric === mcp).every((p) => p.attributes['mcp.method.name'] === 'tools/call')).toBe(true);
  });

  it('sends exactly what the live path records for the same calls (instruments, attributes, buckets, counts, sums)', async () => {
    const live = await startOtlpReceiver();
    try {
      await sendLiveSampleMetrics(`${live.url}/v1/metrics`);
      await exportRunMetricsOtlp(store, { endpoint: receiver.url });
      expect(shape(receiver.requests.at(-1)!.points)).toEqual(shape(live.requests.at(-1)!.points));
      expect(shape(receiver.requests.at(-1)!.points)).toHaveLength(9);
    } finally {
      await live.close();
    }
  });

  it('timestamps every point within the range, cumulative and rising run by run; a repeat sends the same points', async () => {
    await exportRunMetricsOtlp(store, { endpoint: receiver.url, pointEveryMs: 0 });
    const first = (await store.getRun(runs.completed))!.createdAt;
    const ends = await toolStepTimes();
    const all = receiver.points();
    expect(all.every((p) => p.startTimeUnixNano === ns(first))).toBe(true);
    expect(all.every((p) => p.timeUnixNano >= ns(first) && p.timeUnixNano <= ns(Math.max(...ends)))).toBe(true);
    // each request is cut at the last call of its run: the completed run's, then the cancelled's, then the failed's
    const times = receiver.requests.map((r) => new Set(r.points.map((p) => p.timeUnixNano)));
    expect(times.every((t) => t.size === 1)).toBe(true);
    const cut = times.map((t) => [...t][0]!);
    expect(cut).toEqual([...cut].sort((a, b) => (a < b ? -1 : 1)));
    expect(cut.at(-1)).toBe(ns(Math.max(...ends)));
    // cumulative: the total never falls from one request to the next
    const totals = receiver.requests.map((r) =>
      r.points.filter((p) => p.metric === 'gen_ai.execute_tool.duration').reduce((n, p) => n + p.count, 0),
    );
    expect(totals).toEqual([4, 5, 6]);

    const before = receiver.requests.map((r) => r.points);
    receiver.requests.length = 0;
    await exportRunMetricsOtlp(store, { endpoint: receiver.url, pointEveryMs: 0 });
    const strip = (points: readonly ReceivedHistogramPoint[]) =>
      points
        .map((p) => ({ ...p }))
        .sort((a, b) =>
          JSON.stringify(a, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)) <
          JSON.stringify(b, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))
            ? -1
            : 1,
        );
    expect(receiver.requests.map((r) => strip(r.points))).toEqual(before.map(strip));
  });

  it('exports one run with runId, and the runs created since a time with since', async () => {
    const one = await exportRunMetricsOtlp(store, { endpoint: `${receiver.url}/custom/metrics`, runId: runs.cancelled });
    expect(one).toMatchObject({ url: `${receiver.url}/custom/metrics`, runsSeen: 1, runsExported: 1, callsExported: 1, requests: 1 });
    expect(receiver.requests[0]!.path).toBe('/custom/metrics');
    const points = receiver.points();
    expect(
      points.map((p) => [p.metric, p.attributes['runledger.tool.outcome'], p.attributes['error.type'] ?? null, p.count]).sort(),
    ).toEqual([
      ['gen_ai.execute_tool.duration', 'cancelled', null, 1],
      ['mcp.client.operation.duration', 'cancelled', null, 1],
    ]);
    const created = (await store.getRun(runs.cancelled))!.createdAt;
    expect(points.every((p) => p.startTimeUnixNano === ns(created))).toBe(true);

    receiver.requests.length = 0;
    const since = await exportRunMetricsOtlp(store, { endpoint: receiver.url, since: created, pointEveryMs: 0 });
    expect(since).toMatchObject({ runsSeen: 3, runsExported: 2, runsSkipped: 1, callsExported: 2, requests: 2 });
    const progress: string[] = [];
    await exportRunMetricsOtlp(store, {
      endpoint: receiver.url,
      runIds: [runningId, runs.failed],
      pointEveryMs: 0,
      onProgress: (p) => progress.push(`${p.runId}:${p.exported}:${p.calls}`),
    });
    expect(progress).toEqual([`${runs.failed}:true:1`, `${runningId}:false:0`]); // oldest first
  });

  it('sends a point per pointEveryMs of call time, not one per run: by default the sample range (under a second) is one request', async () => {
    const ends = await toolStepTimes();
    const result = await exportRunMetricsOtlp(store, { endpoint: receiver.url });
    expect(result).toMatchObject({ runsExported: 3, callsExported: 6, requests: 1 });
    const [only] = receiver.requests;
    expect(new Set(only!.points.map((p) => p.timeUnixNano))).toEqual(new Set([ns(Math.max(...ends))]));
    expect(only!.points.filter((p) => p.metric === 'gen_ai.execute_tool.duration').reduce((n, p) => n + p.count, 0)).toBe(6);

    // a point per 10 ms of call time: each at least 10 ms after the one before (the last excepted), the last at the range's end
    receiver.requests.length = 0;
    const spaced = await exportRunMetricsOtlp(store, { endpoint: receiver.url, pointEveryMs: 10 });
    const cuts = receiver.requests.map((r) => Number([...new Set(r.points.map((p) => p.timeUnixNano))][0]! / 1_000_000n));
    expect(spaced.requests).toBe(cuts.length);
    expect(cuts.at(-1)).toBe(Math.max(...ends));
    for (let i = 1; i < cuts.length - 1; i++) expect(cuts[i]! - cuts[i - 1]!).toBeGreaterThanOrEqual(10);
    await expect(exportRunMetricsOtlp(store, { endpoint: receiver.url, pointEveryMs: -1 })).rejects.toThrow(
      'ExportRunMetricsOtlpOptions.pointEveryMs must be a whole number of ms from 0 to 2147483647, got -1',
    );
  });

  it('refuses bad options naming the option and the rule, and names the status of a refusing endpoint', async () => {
    await expect(exportRunMetricsOtlp(store, { endpoint: 'localhost:4318' })).rejects.toThrow(
      'ExportRunMetricsOtlpOptions.endpoint must be an http(s) URL, got "localhost:4318"',
    );
    await expect(exportRunMetricsOtlp(store, { endpoint: receiver.url, runId: runs.failed, since: 0 })).rejects.toThrow(
      'ExportRunMetricsOtlpOptions: give at most one of runId, runIds and since, got runId and since',
    );
    await expect(exportRunMetricsOtlp(store, { endpoint: receiver.url, timeoutMs: 0 })).rejects.toThrow(
      'ExportRunMetricsOtlpOptions.timeoutMs must be an integer from 1 to 2147483647 (ms), got 0',
    );
    await expect(exportRunMetricsOtlp(store, { endpoint: receiver.url, runId: 'nope' })).rejects.toThrow(
      'there is no run "nope" in the store',
    );
    expect(receiver.requests).toHaveLength(0);
    receiver.failNext(1, 400);
    await expect(exportRunMetricsOtlp(store, { endpoint: receiver.url })).rejects.toThrow(
      'the endpoint answered HTTP 400 Bad Request (1 attempt)',
    );
  });
});
