// measures: packages/core/src
// Recording cost: 100 000 tool steps through RunTrace (wired to InMemoryRunStore by startRun),
// against starting and ending an OpenTelemetry SDK span with the same attributes (in-memory
// exporter, simple processor). Linear: the per-step cost at 100k vs 10k. In fresh processes (one
// process's JIT and GC decisions move the ratio); the verdicts take the median over the processes.
import { ToolResult } from '@runledger/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { performance } from 'node:perf_hooks';
import { loadavg } from 'node:os';
import { fmt, inFreshProcesses, median, rssMb, table, verdict } from '../../../bench/lib.mjs';
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

const PROCESSES = 3;
const runs = await inFreshProcesses(import.meta.url, PROCESSES, measure);
if (runs !== null) report(runs);

async function measure() {
  await recordSteps(10_000); // warm up
  otelSpans(10_000);
  const [ours10k, otel10k] = await perStepPair(10_000, 9);
  const [ours100k, otel100k] = await perStepPair(100_000, 3);
  return { ours10k, otel10k, ours100k, otel100k, rss: rssMb() };
}

function report(runs) {
  const linears = runs.map((r) => r.ours100k / r.ours10k);
  const vsOtel100k = runs.map((r) => r.ours100k / r.otel100k);
  const vsOtel10k = runs.map((r) => r.ours10k / r.otel10k);
  const linear = median(linears);
  const vsOtel = median(vsOtel100k);
  const vsOtelSmall = median(vsOtel10k);
  const spread = (values) => `${fmt(Math.min(...values), 2)}–${fmt(Math.max(...values), 2)}`;
  console.log(`## trace: recording tool steps

RunTrace.recordToolResult (awaited, default \`metadata\` privacy) → startRun's hook → InMemoryRunStore.appendStep,
against an OpenTelemetry SDK span (BasicTracerProvider, SimpleSpanProcessor, InMemorySpanExporter) started and ended with the
same attributes. Measured alternately, median of repeated runs (9 at 10k, 3 at 100k), in each of ${PROCESSES} fresh processes;
the verdicts take the median over the processes. Largest RSS after a process: ${fmt(Math.max(...runs.map((r) => r.rss)), 0)} MB. Load average
at the end: ${fmt(loadavg()[0], 1)} on 2 cores shared with other work.

${table(
  [
    'process',
    'runledger µs/step 10k',
    'OTel span µs/step 10k',
    'ours / OTel 10k',
    'runledger µs/step 100k',
    'OTel span µs/step 100k',
    'ours / OTel 100k',
  ],
  runs.map((r, i) => [
    String(i + 1),
    fmt(r.ours10k),
    fmt(r.otel10k),
    fmt(r.ours10k / r.otel10k, 2),
    fmt(r.ours100k),
    fmt(r.otel100k),
    fmt(r.ours100k / r.otel100k, 2),
  ]),
)}

- Linear: per-step cost at 100k / at 10k = ${fmt(linear, 2)} (processes ${spread(linears)}) — ${verdict(linear <= 1.5, '≤ 1.5')}
- Not slower than an OpenTelemetry span: ours / OTel at 100k = ${fmt(vsOtel, 2)} (processes ${spread(vsOtel100k)}) — ${verdict(vsOtel <= 1, '≤ 1.0')}
- Not slower than an OpenTelemetry span: ours / OTel at 10k = ${fmt(vsOtelSmall, 2)} (processes ${spread(vsOtel10k)}) — ${verdict(vsOtelSmall <= 1, '≤ 1.0')}

What a tool step's \`toolSends\` (issue 38) adds to this path — one more schema field (null here, a number from McpTool),
a RunStep rule and a payload key — measured no cost beside the noise (process CPU per step, alternating builds with and
without it, on a loaded machine). What did cost: the in-memory store parsed each appended step's JSON text again, just
after writing it, for the tool's name (about 6 % of a step's CPU, same measure); a tool step whose payload is plain data
now takes the name from it, the very string its text holds.

What round three added to the hot path and was cut at ed2f3cc: RunStep.of checked every step with the zod schema (its
generated object parser, the per-field checks and transforms), 10–19 % of a step's CPU (CPU profile of 120 000 recorded
steps, node inspector at 100 µs: zod's parse frames gone after, \`fastToolStepData\` 4.5 % in their place). A well-formed
tool step, as RunTrace's one tool builder makes it, is now accepted by a hand-written check of the same rules; anything
else (another kind, a value at a rule's edge, failure facts) goes to the schema, which accepts or refuses it as before
with its own error. A fast-check property (RunStep.fastPath.test.ts) gives both paths the same generated valid and
invalid fields and requires the same data or the same error.

Why this section read 1.21 / 1.31 at b748324 (quiet) and where the time went (issue 42 item 2, f2667b8 and c3c3eca): a
CPU profile of 400 000 recorded steps (node --cpu-prof, 50 µs) put the garbage collector at 27–31 % and, among our frames,
the RunStep constructor (11 %), the payload's JSON text (9 %), the in-memory store's append and call list (7 % each) and
the payload copy (6 %). What each step made only to throw away: applyPrivacy at \`metadata\` built about 18 small arrays
per tool step (Object.entries, mapped pairs, a spread list per content key); RunTrace copied the step's content into a
payload (toPayload) only for applyPrivacy to replace it by sizes — now one pass over the step (stepPayloadAt; a
property over every kind × privacy level requires it equal, key for key and in order); the ledger made three promises
per append and RunTrace two per hook — now one each; the store ran the UUID regex on every append. And the constructor
set its 31 fields through keyed loads and stores (self[key] = …), which V8 does not specialise: a setter generated from
RUN_STEP_KEYS at load makes them named (the loop stays where code may not be made from strings). Scavenges over 300 000
steps 205 → 111; CPU per step, old and new builds alternating, 10.4–10.6 → 7.3–8.0 µs.
`);
}
