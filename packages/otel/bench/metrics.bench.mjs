// measures: packages/core/src packages/trace/src
// Recording with metrics on vs off: tool steps recorded through startRun/RunTrace into an
// InMemoryRunStore, once as it is and once wrapped by otelMetricsRunStore feeding a real
// MeterProvider (a PeriodicExportingMetricReader into an InMemoryMetricExporter: no network).
// Slices of each alternate in fresh processes (one process's JIT and GC decisions move a ratio);
// the verdict takes the median over the processes.
// Env (a shorter check): BENCH_PROCESSES (default 5), BENCH_PAIRS (slices of each per process,
// default 12), BENCH_STEPS (tool steps per slice, default 10 000).
import { ToolResult } from '@runledger/core';
import { InMemoryRunStore, startRun } from '@runledger/trace';
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { fmt, inFreshProcesses, ingestToolCall, median, rssMb, table, verdict } from '../../../bench/lib.mjs';
import { otelMetricsRunStore } from '../dist/index.js';

const PROCESSES = Number(process.env.BENCH_PROCESSES ?? 5);
const PAIRS = Number(process.env.BENCH_PAIRS ?? 12);
const STEPS = Number(process.env.BENCH_STEPS ?? 10_000);
const TARGET = 1.2;

/** The histograms' data points' counts summed: how many calls the provider recorded. */
async function recordedCalls(reader, exporter) {
  await reader.forceFlush();
  const metric = exporter
    .getMetrics()
    .at(-1)
    ?.scopeMetrics.flatMap((scope) => scope.metrics)
    .find((m) => m.descriptor.name === 'gen_ai.execute_tool.duration');
  return (metric?.dataPoints ?? []).reduce((sum, point) => sum + point.value.count, 0);
}

/** Records n tool steps (the ingest workload: 20 servers, every 11th call failed) with or without metrics; returns ms (wall, CPU). */
async function recordSlice(n, withMetrics) {
  const inner = InMemoryRunStore.create();
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
  const provider = new MeterProvider({ readers: [reader] });
  const store = withMetrics ? otelMetricsRunStore(inner, { meterProvider: provider }) : inner;
  const run = await startRun(store, { configuration: 'bench', heartbeatMs: 0, spoolDir: false });
  globalThis.gc?.();
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < n; i++) await run.trace.recordToolResult(ingestToolCall(i, ToolResult));
  await run.trace.flush();
  const wall = performance.now() - start;
  const used = process.cpuUsage(cpu);
  const stored = await inner.getRun(run.id);
  if (stored.stepCount !== n) throw new Error(`expected ${n} stored steps, got ${stored.stepCount}`);
  await run.complete();
  const recorded = await recordedCalls(reader, exporter);
  if (recorded !== (withMetrics ? n : 0)) throw new Error(`expected ${withMetrics ? n : 0} calls in the histogram, got ${recorded}`);
  await provider.shutdown();
  return { wall, cpu: (used.user + used.system) / 1000 };
}

async function measure() {
  await recordSlice(STEPS, false); // warm up both paths
  await recordSlice(STEPS, true);
  const off = [];
  const on = [];
  const ratios = [];
  const cpuRatios = [];
  for (let i = 0; i < PAIRS; i++) {
    // the order alternates too, so that neither side always follows the other's garbage
    let a;
    let b;
    if (i % 2 === 0) {
      a = await recordSlice(STEPS, false);
      b = await recordSlice(STEPS, true);
    } else {
      b = await recordSlice(STEPS, true);
      a = await recordSlice(STEPS, false);
    }
    off.push(a.wall);
    on.push(b.wall);
    ratios.push(b.wall / a.wall);
    cpuRatios.push(b.cpu / a.cpu);
  }
  return {
    off: (median(off) * 1000) / STEPS,
    on: (median(on) * 1000) / STEPS,
    ratio: median(ratios),
    cpuRatio: median(cpuRatios),
    rss: rssMb(),
  };
}

const runs = await inFreshProcesses(import.meta.url, PROCESSES, measure);
if (runs !== null) report(runs);

function report(runs) {
  const ratios = runs.map((r) => r.ratio);
  const cpuRatios = runs.map((r) => r.cpuRatio);
  const ratio = median(ratios);
  const cpuRatio = median(cpuRatios);
  const spread = (values) => `${fmt(Math.min(...values), 2)}–${fmt(Math.max(...values), 2)}`;
  const load = os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ');
  console.log(`## otel: recording with metrics on vs off

Tool steps recorded through \`startRun\` / \`RunTrace.recordToolResult\` (awaited, default \`metadata\` privacy; the ingest
workload of the store benchmarks: 20 servers, every 11th call failed) into an InMemoryRunStore, once as it is (off) and once
wrapped by \`otelMetricsRunStore\` (on) recording every call into \`gen_ai.execute_tool.duration\` and
\`mcp.client.operation.duration\` of a real MeterProvider (a PeriodicExportingMetricReader into an InMemoryMetricExporter,
collected after each slice: every call checked to be in the histogram; no network). Slices of ${STEPS.toLocaleString('en-US')} steps,
${PAIRS} of each per process, alternating (and alternating which goes first), after one warm-up slice of each; in each of
${PROCESSES} fresh processes the median per-step cost of each and the median over the pairs of on / off; the verdict takes
the median over the processes. The in-memory store is the cheapest store there is, so this is the largest share metrics can
take of a step; a SQLite or PostgreSQL write adds to "off" alone. CPU: the process's user + system time, GC threads
included. Largest RSS after a process: ${fmt(Math.max(...runs.map((r) => r.rss)), 0)} MB. Load average at the end: ${load} on
${os.cpus().length} cores shared with other work.

${table(
  ['process', 'off µs/step', 'on µs/step', 'on / off (wall, median of pairs)', 'on / off (CPU time, median of pairs)'],
  runs.map((r, i) => [String(i + 1), fmt(r.off), fmt(r.on), fmt(r.ratio, 2), fmt(r.cpuRatio, 2)]),
)}

- Recording with metrics on costs ${fmt(ratio, 2)}× recording without (processes ${spread(ratios)}; CPU time ${fmt(cpuRatio, 2)}×, processes ${spread(cpuRatios)}) — ${verdict(ratio <= TARGET, `on / off ≤ ${TARGET}×`)}
`);
}
