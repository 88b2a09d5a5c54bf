// Live and batch export over the real wire: the official OTLP/HTTP protobuf exporter sends to a
// receiver on 127.0.0.1 that decodes each request with the official OTLP protobuf definitions.
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { InMemoryRunStore, type RunStore, startRun } from '@runledger/trace';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exportRunsOtlp } from './exportRunsOtlp.js';
import { otelRunStore } from './otelRunStore.js';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from './testing/otlpReceiver.js';
import { recordSampleRuns, type SampleRuns, steppingClock } from './testing/sampleRuns.js';
import { spanIdOf } from './traceIds.js';

let live: OtlpReceiver;
let batch: OtlpReceiver;
let store: RunStore;
let runs: SampleRuns;

beforeEach(async () => {
  [live, batch] = await Promise.all([startOtlpReceiver(), startOtlpReceiver()]);
  const provider = new BasicTracerProvider({
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: `${live.url}/v1/traces` }))],
  });
  const clock = steppingClock();
  store = InMemoryRunStore.create({ clock });
  runs = await recordSampleRuns(otelRunStore(store, { tracerProvider: provider }), clock);
  await provider.forceFlush();
  await provider.shutdown();
});

afterEach(async () => {
  await Promise.all([live.close(), batch.close()]);
});

/** A span without its ids: its place (run, name, sequence) and its parent's place instead. */
function normalized(spans: readonly ReceivedSpan[]) {
  const runOf = new Map(spans.filter((s) => s.parentSpanId === '').map((s) => [s.traceId, String(s.attributes['runledger.run.id'])]));
  const place = (s: ReceivedSpan) => `${runOf.get(s.traceId)}/${s.name}/${String(s.attributes['runledger.step.sequence'] ?? 'run')}`;
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  return spans
    .map((s) => ({
      place: place(s),
      parent: s.parentSpanId === '' ? null : place(byId.get(s.parentSpanId)!),
      sameTraceAsParent: s.parentSpanId === '' || byId.get(s.parentSpanId)!.traceId === s.traceId,
      kind: s.kind,
      start: s.startTimeUnixNano,
      end: s.endTimeUnixNano,
      attributes: s.attributes,
      events: s.events,
      status: s.status,
      scope: s.scope,
    }))
    .sort((a, b) => a.place.localeCompare(b.place));
}

const ns = (ms: number, minusMs = 0) => BigInt(ms) * 1_000_000n - BigInt(Math.round(minusMs * 100)) * 10_000n;

describe('OTLP/HTTP on the wire', () => {
  it('batch export sends each run as a trace whose ids come from the run id and the sequence', async () => {
    const result = await exportRunsOtlp(store, { endpoint: batch.url, headers: { 'x-tenant': 'acme' } });
    expect(result).toEqual({ url: `${batch.url}/v1/traces`, runsSeen: 3, runsExported: 3, runsSkipped: 0, spansExported: 11 });
    expect(
      batch.requests.every(
        (r) => r.path === '/v1/traces' && r.headers['x-tenant'] === 'acme' && r.headers['content-type'] === 'application/x-protobuf',
      ),
    ).toBe(true);
    const spans = batch.spans();
    for (const runId of Object.values(runs)) {
      const run = (await store.getRun(runId))!;
      const steps = await store.readSteps(runId);
      const own = spans.filter((s) => s.traceId === runId.replaceAll('-', ''));
      const root = own.find((s) => s.parentSpanId === '')!;
      expect(root.attributes['runledger.run.id']).toBe(runId);
      expect(root.traceId).toBe(runId.replaceAll('-', ''));
      expect(root.spanId).toBe(spanIdOf(runId, 'run'));
      expect(root.name).toBe(`invoke_agent ${run.configuration}`);
      expect(root.kind).toBe(1);
      expect(root.startTimeUnixNano).toBe(ns(run.startedAt ?? run.createdAt));
      expect(root.endTimeUnixNano).toBe(ns(run.finishedAt!));
      expect(root.resource['service.name']).toBe('runledger');
      expect(root.scope).toBe('@runledger/otel');
      for (const child of own.filter((s) => s !== root)) {
        const sequence = child.attributes['runledger.step.sequence'] as number;
        const step = steps[sequence]!;
        expect(child.traceId).toBe(root.traceId);
        expect(child.parentSpanId).toBe(root.spanId);
        expect(child.spanId).toBe(spanIdOf(runId, sequence));
        expect(child.startTimeUnixNano).toBe(ns(step.createdAt, step.durationMs));
        expect(child.endTimeUnixNano).toBe(ns(step.createdAt));
      }
    }
    const tools = spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'execute_tool');
    const outcome = (o: string) => tools.filter((s) => s.attributes['runledger.tool.outcome'] === o);
    // success leaves the status UNSET on the wire too (code 0)
    expect(outcome('ok').map((s) => s.status)).toEqual([{ code: 0, message: '' }]);
    expect(
      outcome('failed')
        .map((s) => [s.status.code, s.attributes['error.type']])
        .sort(),
    ).toEqual([
      [2, 'mcp_timeout'],
      [2, 'recorder_error'],
      [2, 'server_error'],
    ]);
    expect(outcome('cancelled').map((s) => [s.status.code, s.attributes['error.type']])).toEqual([
      [0, undefined],
      [0, undefined],
    ]);
    const roots = spans.filter((s) => s.parentSpanId === '');
    expect(roots.map((s) => [s.attributes['runledger.run.status'], s.status.code]).sort()).toEqual([
      ['cancelled', 0],
      ['completed', 0],
      ['failed', 2],
    ]);
  });

  it('live and batch export give the same spans', async () => {
    await exportRunsOtlp(store, { endpoint: batch.url });
    expect(live.spans()).toHaveLength(11);
    expect(normalized(live.spans())).toEqual(normalized(batch.spans()));
    expect(normalized(batch.spans()).every((s) => s.sameTraceAsParent)).toBe(true);
  });

  it('is safe to repeat: a second export sends the same trace and span ids and the same spans', async () => {
    await exportRunsOtlp(store, { endpoint: batch.url });
    const first = batch.spans();
    batch.requests.length = 0;
    await exportRunsOtlp(store, { endpoint: `${batch.url}/v1/traces` });
    expect(batch.spans()).toEqual(first);
  });

  it('exports one run, or the runs since a time, and skips a run still running', async () => {
    const one = await exportRunsOtlp(store, { endpoint: batch.url, runId: runs.failed });
    expect(one).toMatchObject({ runsSeen: 1, runsExported: 1, spansExported: 2 });
    const running = await startRun(store, {
      configuration: 'still-running',
      heartbeatMs: 0,
      spoolDir: false,
      clock: () => 4_000_000_000_000,
    });
    const progress: unknown[] = [];
    const since = await exportRunsOtlp(store, { endpoint: batch.url, since: 4_000_000_000_000, onProgress: (p) => progress.push(p) });
    expect(since).toMatchObject({ runsSeen: 1, runsExported: 0, runsSkipped: 1, spansExported: 0 });
    expect(progress).toEqual([
      { runId: running.id, exported: false, spans: 0, runsSeen: 1, runsExported: 0, runsSkipped: 1, spansExported: 0 },
    ]);
    await expect(exportRunsOtlp(store, { endpoint: batch.url, runId: '00000000-0000-4000-8000-000000000000' })).rejects.toThrow(
      'there is no run "00000000-0000-4000-8000-000000000000" in the store',
    );
  });

  it('stops with the endpoint’s error when a request is refused', async () => {
    batch.failNext(1, 400);
    await expect(exportRunsOtlp(store, { endpoint: batch.url })).rejects.toThrow();
    expect(batch.requests).toHaveLength(0);
  });

  it('refuses bad options, naming the option', async () => {
    await expect(exportRunsOtlp(store, { endpoint: 'ftp://x' })).rejects.toThrow(
      'ExportRunsOtlpOptions.endpoint must be an http(s) URL, got "ftp://x"',
    );
    await expect(exportRunsOtlp(store, { endpoint: batch.url, runId: runs.failed, since: 0 })).rejects.toThrow(
      'ExportRunsOtlpOptions: give at most one of runId, runIds and since, got runId and since',
    );
  });
});
