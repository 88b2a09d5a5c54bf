// measures: packages/core/src
// Cost of OpenTelemetry tracing on McpTool.execute: the same tool on the same in-memory fixture
// server (official server SDK), once from a registry without `tracing` and once from one with
// `tracing: { tracerProvider, propagateContext: true }` (OpenTelemetry SDK: BatchSpanProcessor,
// in-memory exporter, AsyncLocalStorage context manager, W3C propagator), each call under an
// active parent span. Fresh worker processes as in overhead.bench.mjs; the verdict is the median
// over the processes.
import { loadavg } from 'node:os';
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, BatchSpanProcessor, InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { InMemoryTransport } from '@modelcontextprotocol/client';
import { fmt, inFreshProcesses, median, percentile, table, verdict } from '../../../bench/lib.mjs';
import { McpServerRegistry, parseServerConfig } from '../dist/index.js';
import { createFixtureServer } from '../src/testing/fixture-server.mjs';

const PROCESSES = 3;
const ROUNDS = 200;
const CALLS_PER_ROUND = 40;
const ARGS = { text: 'hello, benchmark' };
const TARGET = 1.5;

const runs = await inFreshProcesses(import.meta.url, PROCESSES, measure);
if (runs !== null) report(runs);

async function measure() {
  if (typeof globalThis.gc !== 'function') throw new Error('run with --expose-gc: each batch starts after a full GC');
  const collect = globalThis.gc;
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const exporter = new InMemorySpanExporter();
  const processor = new BatchSpanProcessor(exporter);
  const provider = new BasicTracerProvider({ spanProcessors: [processor] });
  const parent = provider.getTracer('bench').startSpan('agent step');
  const active = trace.setSpan(context.active(), parent);

  const linkedServer = () => {
    const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
    void createFixtureServer().connect(serverEnd);
    return clientEnd;
  };
  const [config] = parseServerConfig({ servers: [{ id: 'bench', transport: { type: 'stdio', command: 'unused' } }] });
  const plain = McpServerRegistry.create([config], { transportFactory: () => linkedServer() });
  const traced = McpServerRegistry.create([config], {
    transportFactory: () => linkedServer(),
    tracing: { tracerProvider: provider, propagateContext: true },
  });
  await Promise.all([plain.tools(), traced.tools()]);
  const plainTool = plain.tool('mcp_bench_echo');
  const tracedTool = traced.tool('mcp_bench_echo');

  const cpuMs = (usage) => (usage.user + usage.system) / 1000;
  // Both sides run under the same active parent span; a full GC (and the exporter emptied) first.
  async function batch(tool) {
    await processor.forceFlush();
    exporter.reset();
    collect();
    const cpu = process.cpuUsage();
    const start = performance.now();
    await context.with(active, async () => {
      for (let i = 0; i < CALLS_PER_ROUND; i++) {
        if ((await tool.execute(ARGS)).outcome !== 'ok') throw new Error('the echo call did not end ok');
      }
    });
    return { wall: (performance.now() - start) / CALLS_PER_ROUND, cpu: cpuMs(process.cpuUsage(cpu)) };
  }
  for (let i = 0; i < 5; i++) {
    await batch(plainTool);
    await batch(tracedTool);
  }
  const plainWall = [];
  const tracedWall = [];
  let plainCpu = 0;
  let tracedCpu = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const plainFirst = round % 2 === 0;
    const first = await batch(plainFirst ? plainTool : tracedTool);
    const second = await batch(plainFirst ? tracedTool : plainTool);
    const [plainRun, tracedRun] = plainFirst ? [first, second] : [second, first];
    plainWall.push(plainRun.wall);
    tracedWall.push(tracedRun.wall);
    plainCpu += plainRun.cpu;
    tracedCpu += tracedRun.cpu;
  }
  // The traced side did make its spans: one more batch, counted.
  await batch(tracedTool);
  await processor.forceFlush();
  const spans = exporter.getFinishedSpans().filter((span) => span.name === 'tools/call echo').length;
  if (spans !== CALLS_PER_ROUND) throw new Error(`expected ${CALLS_PER_ROUND} spans from the last traced batch, got ${spans}`);
  await Promise.all([plain.close(), traced.close()]);
  await provider.shutdown();
  const calls = ROUNDS * CALLS_PER_ROUND;
  return { plainWall, tracedWall, plainCpuPerCall: plainCpu / calls, tracedCpuPerCall: tracedCpu / calls };
}

function report(runs) {
  const rows = runs.map((run, index) => {
    const plain = median(run.plainWall);
    const traced = median(run.tracedWall);
    return {
      index,
      plain,
      traced,
      ratio: traced / plain,
      addedUs: (traced - plain) * 1000,
      cpuRatio: run.tracedCpuPerCall / run.plainCpuPerCall,
    };
  });
  const ratios = rows.map((r) => r.ratio);
  const ratio = median(ratios);
  const allPlain = runs.flatMap((r) => r.plainWall);
  const allTraced = runs.flatMap((r) => r.tracedWall);
  console.log(`## @runledger/mcp — tracing on vs off (in memory)

McpTool.execute of the fixture's \`echo\` on the in-memory fixture server, from a registry without
\`tracing\` and from one with \`tracing: { tracerProvider, propagateContext: true }\` (OpenTelemetry
SDK: BatchSpanProcessor, in-memory exporter, AsyncLocalStorage context manager, W3C propagator),
every call under an active parent span. In each of ${PROCESSES} fresh processes: ${ROUNDS} interleaved
rounds of ${CALLS_PER_ROUND} sequential calls per side, a full GC before each batch. An in-memory call
is the cheapest a call gets; over stdio or HTTP the same added time is a smaller share. Load
average at the end: ${fmt(loadavg()[0], 1)}.

${table(
  ['process', 'untraced median ms/call', 'traced median ms/call', 'wall ratio', 'added µs/call', 'CPU ratio'],
  rows.map((r) => [String(r.index + 1), fmt(r.plain), fmt(r.traced), fmt(r.ratio), fmt(r.addedUs, 1), fmt(r.cpuRatio)]),
)}

All processes' batches together: untraced ${fmt(median(allPlain))} ms/call (p95 ${fmt(percentile(allPlain, 95))}),
traced ${fmt(median(allTraced))} ms/call (p95 ${fmt(percentile(allTraced, 95))}). Wall ratio over the processes:
median ${fmt(ratio)}, lowest ${fmt(Math.min(...ratios))}, highest ${fmt(Math.max(...ratios))}.

- ${verdict(ratio <= TARGET, `median ratio traced / untraced McpTool.execute ≤ ${TARGET.toFixed(2)} (wall time)`)} (measured ${fmt(ratio)})`);
}
