// measures: packages/core/src
// Recording cost: 100 000 tool steps through RunTrace (wired to InMemoryRunStore by startRun),
// against starting and ending an OpenTelemetry SDK span with the same attributes (in-memory
// exporter, simple processor). Linear: the per-step cost at 100k vs 10k.
import { ToolResult } from '@runledger/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { performance } from 'node:perf_hooks';
import { fmt, median, rssMb, table, verdict } from '../../../bench/lib.mjs';
import { InMemoryRunStore, startRun } from '../dist/index.js';

const RESULTS = [
  ToolResult.text('3 issues found'),
  ToolResult.error('HTTP 502 from server'),
  ToolResult.cancelled('the run was cancelled'),
];
const ARGS = { query: 'is:open label:bug', limit: 20 };

async function recordSteps(n) {
  const store = InMemoryRunStore.create();
  const run = await startRun(store, { configuration: 'bench', heartbeatMs: 0 });
  globalThis.gc?.();
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    await run.trace.recordToolResult({
      toolName: 'mcp_github_search_issues',
      toolServer: 'github',
      toolArguments: ARGS,
      result: RESULTS[i % 3],
      round: i % 8,
      durationMs: 12.345,
    });
  }
  await run.trace.flush();
  const elapsed = performance.now() - start;
  const stored = await store.getRun(run.id);
  if (stored.stepCount !== n) throw new Error(`expected ${n} stored steps, got ${stored.stepCount}`);
  await run.complete();
  return elapsed;
}

function otelSpans(n) {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer('bench');
  globalThis.gc?.();
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    const result = RESULTS[i % 3];
    const span = tracer.startSpan('tool', {
      attributes: {
        'tool.name': 'mcp_github_search_issues',
        'tool.server': 'github',
        'tool.arguments': JSON.stringify(ARGS),
        'tool.result': result.content,
        'tool.is_error': result.isError,
        'tool.outcome': result.outcome,
        'run.round': i % 8,
        'tool.duration_ms': 12.345,
      },
    });
    span.end();
  }
  const elapsed = performance.now() - start;
  if (exporter.getFinishedSpans().length !== n) throw new Error('the exporter lost spans');
  return elapsed;
}

/** Times ours and OTel alternately (so machine load hits both alike); median µs per step of each. */
async function perStepPair(n, repeats) {
  const ours = [];
  const otel = [];
  for (let i = 0; i < repeats; i++) {
    ours.push(await recordSteps(n));
    otel.push(otelSpans(n));
  }
  return [(median(ours) * 1000) / n, (median(otel) * 1000) / n];
}

await recordSteps(10_000); // warm up
otelSpans(10_000);
const [ours10k, otel10k] = await perStepPair(10_000, 9);
const [ours100k, otel100k] = await perStepPair(100_000, 3);
const linear = ours100k / ours10k;
const vsOtel = ours100k / otel100k;

console.log(`## trace: recording tool steps

RunTrace.recordToolResult (awaited, default \`metadata\` privacy) → startRun's hook → InMemoryRunStore.appendStep,
against an OpenTelemetry SDK span (BasicTracerProvider, SimpleSpanProcessor, InMemorySpanExporter) started and ended with the
same attributes. Measured alternately, median of repeated runs; RSS after: ${fmt(rssMb(), 0)} MB.

${table(
  ['measure', '10 000 steps', '100 000 steps'],
  [
    ['runledger µs per step', fmt(ours10k), fmt(ours100k)],
    ['OpenTelemetry span µs per step', fmt(otel10k), fmt(otel100k)],
  ],
)}

- Linear: per-step cost at 100k / at 10k = ${fmt(linear, 2)} — ${verdict(linear <= 1.5, '≤ 1.5')}
- Not slower than an OpenTelemetry span: ours / OTel at 100k = ${fmt(vsOtel, 2)} — ${verdict(vsOtel <= 1, '≤ 1.0')}
`);
