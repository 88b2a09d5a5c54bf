// Live export cost: the per-step recording cost of @runledger/trace's recording benchmark
// (RunTrace.recordToolResult → startRun's hook → InMemoryRunStore.appendStep, 100 000 tool steps),
// with and without otelRunStore emitting every step as a span into a TracerProvider with a
// BatchSpanProcessor and an in-memory exporter. Measured alternately in the same process.
import { ToolResult } from '@runledger/core';
import { InMemoryRunStore, startRun } from '@runledger/trace';
import { BasicTracerProvider, BatchSpanProcessor, InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { fmt, median, rssMb, table, verdict } from '../../../bench/lib.mjs';
import { otelRunStore } from '../dist/index.js';

const RESULTS = [
  ToolResult.text('3 issues found'),
  ToolResult.error('HTTP 502 from server'),
  ToolResult.cancelled('the run was cancelled'),
];
const ARGS = { query: 'is:open label:bug', limit: 20 };
const TARGET = 1.5;

/** Records n tool steps (the trace benchmark's loop); with `live`, through otelRunStore. Returns ms. */
async function recordSteps(n, live) {
  const inner = InMemoryRunStore.create();
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter, { maxQueueSize: n + 16 })] });
  const store = live ? otelRunStore(inner, { tracerProvider: provider }) : inner;
  const run = await startRun(store, { configuration: 'bench', heartbeatMs: 0, spoolDir: false });
  globalThis.gc?.();
  const cpu = process.cpuUsage();
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
  const used = process.cpuUsage(cpu);
  const stored = await inner.getRun(run.id);
  if (stored.stepCount !== n) throw new Error(`expected ${n} stored steps, got ${stored.stepCount}`);
  await run.complete();
  await provider.forceFlush();
  const spans = exporter.getFinishedSpans().length;
  if (live && spans !== n + 1) throw new Error(`expected ${n + 1} exported spans, got ${spans}`);
  exporter.reset();
  await provider.shutdown();
  return { wall: elapsed, cpu: (used.user + used.system) / 1000 };
}

/**
 * Without and with live export, measured alternately (so machine load hits both alike): median µs
 * per step of each, and the median over the pairs of the added cost / the recording cost (wall and CPU time).
 */
async function measure(n, repeats) {
  const plain = [];
  const live = [];
  const ratios = [];
  const cpuRatios = [];
  for (let i = 0; i < repeats; i++) {
    const a = await recordSteps(n, false);
    const b = await recordSteps(n, true);
    plain.push(a.wall);
    live.push(b.wall);
    ratios.push((b.wall - a.wall) / a.wall);
    cpuRatios.push((b.cpu - a.cpu) / a.cpu);
  }
  return { plain: (median(plain) * 1000) / n, live: (median(live) * 1000) / n, ratio: median(ratios), cpuRatio: median(cpuRatios) };
}

await recordSteps(10_000, false); // warm up
await recordSteps(10_000, true);
const at10k = await measure(10_000, 15);
const at100k = await measure(100_000, 5);
const [plain10k, live10k, plain100k, live100k] = [at10k.plain, at10k.live, at100k.plain, at100k.live];
const ratio10k = at10k.ratio;
const ratio100k = at100k.ratio;
const load = os
  .loadavg()
  .map((l) => l.toFixed(1))
  .join(' / ');

console.log(`## otel: live export cost

The recording loop of \`trace: recording tool steps\` (RunTrace.recordToolResult, awaited, default \`metadata\` privacy → startRun's
hook → InMemoryRunStore.appendStep), once on the store itself and once through \`otelRunStore\` emitting every step as an
\`execute_tool\` span into a BasicTracerProvider with a BatchSpanProcessor and an InMemorySpanExporter (every span checked
to have arrived; the processor's queue is made large enough that none is dropped, since the loop never yields to its timer).
Measured alternately in the same process: 15 pairs at 10k, 5 at 100k. The target is the added cost: (with export − without) /
without, the median over the pairs, at most 1.5 — live export adds at most 1.5× the recording's own cost per step. (A total of
at most 1.5× is out of reach of any exporter that makes an SDK span per step: \`trace: recording tool steps\` shows a bare SDK
span costing about 1.5× a recorded step by itself.) CPU: the process's user + system time, GC threads included.
Load average at the end: ${load} on ${os.cpus().length} cores; RSS after: ${fmt(rssMb(), 0)} MB.

${table(
  ['measure', '10 000 steps', '100 000 steps'],
  [
    ['recording, µs per step', fmt(plain10k), fmt(plain100k)],
    ['recording + live export, µs per step', fmt(live10k), fmt(live100k)],
    ['added / recording (wall, median of pairs)', fmt(ratio10k, 2), fmt(ratio100k, 2)],
    ['added / recording (CPU time, median of pairs)', fmt(at10k.cpuRatio, 2), fmt(at100k.cpuRatio, 2)],
  ],
)}

- Live export at 100k adds ${fmt(ratio100k, 2)}× the recording cost (total ${fmt(1 + ratio100k, 2)}×) — ${verdict(ratio100k <= TARGET, `adds ≤ ${TARGET}×`)}
- Live export at 10k adds ${fmt(ratio10k, 2)}× (total ${fmt(1 + ratio10k, 2)}×) — ${verdict(ratio10k <= TARGET, `adds ≤ ${TARGET}×`)}
`);
