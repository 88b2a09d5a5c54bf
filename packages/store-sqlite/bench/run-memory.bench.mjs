// Flat memory per run: one run of tool steps recorded through startRun into a SQLite file, with
// the trace keeping a window of steps (StartRunOptions.keepSteps), at 100 000 and 1 000 000 steps;
// beside it the same run with today's unbounded trace (every step kept) at 100 000 steps. Each run
// is recorded in a fresh Node process, whose peak RSS (the kernel's high-water mark,
// process.resourceUsage().maxRSS, and RSS sampled every 1 000 steps) and per-step time are
// measured. The store is opened as SqliteRunStore.open configures it (WAL, synchronous = FULL:
// one fsync per step), on a file under the OS temp folder. The bench lives here, not in trace,
// because store-sqlite depends on trace.
// Knobs: BENCH_STEPS (the large size, default 1 000 000; the small one is a tenth of it),
// BENCH_KEEP (the window, default 1 000).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { fmt, ingestToolCall, table, verdict } from '../../../bench/lib.mjs';

const LARGE = Number(process.env.BENCH_STEPS ?? 1_000_000);
const SMALL = Math.max(1, Math.round(LARGE / 10));
const KEEP = Number(process.env.BENCH_KEEP ?? 1_000);
const SAMPLE_EVERY = 1_000;
const RSS_TARGET = 1.2;
const COST_TARGET = 1.2;

if (process.argv[2] === '--child') {
  // one run, in this fresh process; prints what it measured as JSON
  const [steps, keep, file] = [Number(process.argv[3]), process.argv[4] === 'all' ? Infinity : Number(process.argv[4]), process.argv[5]];
  const { ToolResult } = await import('@runledger/core');
  const { startRun } = await import('@runledger/trace');
  const { SqliteRunStore } = await import('../dist/index.js');
  const calls = Array.from({ length: 1_000 }, (_, i) => ingestToolCall(i, ToolResult));
  const store = await SqliteRunStore.open({ path: file });
  const run = await startRun(store, { configuration: 'bench-memory', heartbeatMs: 0, spoolDir: false, keepSteps: keep });
  globalThis.gc?.();
  const rssBefore = process.memoryUsage().rss;
  let rssPeak = rssBefore;
  const tenth = Math.max(1, Math.floor(steps / 10));
  let lastTenthStart = 0;
  const start = performance.now();
  for (let i = 0; i < steps; i++) {
    if (i === steps - tenth) lastTenthStart = performance.now();
    const call = calls[i % calls.length];
    await run.trace.recordToolResult({ ...call, round: Math.floor(i / 5) });
    if (i % SAMPLE_EVERY === 0) rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
  }
  await run.trace.flush();
  const end = performance.now();
  rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
  const maxRss = process.resourceUsage().maxRSS * 1024; // bytes; read before the read-back below
  const stored = await run.complete();
  // a windowed run is read back whole from the store (after the measurement): nothing was lost
  let readBack = null;
  if (keep !== Infinity) {
    readBack = 0;
    for await (const step of run.readSteps({ pageSize: 5_000 })) {
      if (step.sequence !== readBack) throw new Error(`read back sequence ${step.sequence} where ${readBack} was expected`);
      readBack++;
    }
  }
  await store.close();
  process.stdout.write(
    JSON.stringify({
      steps,
      kept: run.trace.steps.length,
      stepCount: run.trace.stepCount,
      storedSteps: stored.stepCount,
      readBack,
      rssBefore,
      rssPeak,
      maxRss,
      usPerStep: ((end - start) * 1000) / steps,
      usPerStepLastTenth: ((end - lastTenthStart) * 1000) / tenth,
    }),
  );
  process.exit(0);
}

/** Records one run in a fresh process, on a fresh file, and returns what it measured. */
function measure(steps, keep) {
  const dir = mkdtempSync(path.join(tmpdir(), 'runledger-bench-run-memory-'));
  try {
    const out = execFileSync(
      process.execPath,
      [
        '--expose-gc',
        fileURLToPath(import.meta.url),
        '--child',
        String(steps),
        keep === Infinity ? 'all' : String(keep),
        path.join(dir, 'run.db'),
      ],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1024 * 1024 },
    );
    return JSON.parse(out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const loadBefore = os.loadavg()[0];
const unbounded = measure(SMALL, Infinity);
const small = measure(SMALL, KEEP);
const large = measure(LARGE, KEEP);
const loadAfter = os.loadavg()[0];

const mb = (bytes) => fmt(bytes / 1024 / 1024, 1);
const row = (label, m) => [
  label,
  m.steps.toLocaleString('en'),
  m.kept.toLocaleString('en'),
  m.stepCount.toLocaleString('en'),
  m.readBack === null ? '—' : m.readBack.toLocaleString('en'),
  mb(m.rssBefore),
  mb(m.rssPeak),
  mb(m.maxRss),
  fmt(m.usPerStep, 1),
  fmt(m.usPerStepLastTenth, 1),
];
const rssRatio = large.maxRss / small.maxRss;
const costRatio = large.usPerStep / small.usPerStep;
const unboundedRatio = unbounded.maxRss / small.maxRss;
const complete = [small, large].every(
  (m) => m.storedSteps === m.steps && m.readBack === m.steps && m.stepCount === m.steps && m.kept === Math.min(KEEP, m.steps),
);

console.log(`## store-sqlite: memory of one long run recorded through startRun

One run of tool steps with small payloads (the ingest workload) recorded through \`startRun\` into a SQLite file (WAL, \`synchronous = FULL\` as \`SqliteRunStore.open\` sets it: one commit and one fsync per step), each size in a fresh Node process. "window" runs set \`keepSteps: ${KEEP.toLocaleString('en')}\` (\`run.trace.steps\` holds the last ${KEEP.toLocaleString('en')}); the baseline beside them is today's unbounded trace (every step kept in memory) at ${SMALL.toLocaleString('en')} steps. Peak RSS is the process's high-water mark (\`process.resourceUsage().maxRSS\`; RSS sampled every ${SAMPLE_EVERY.toLocaleString('en')} steps beside it), taken before the windowed runs are read back whole from the store with \`run.readSteps()\` (the "read back" column, checked gap-free). µs/step is the mean over the run and over its last tenth. Load average ${fmt(loadBefore, 1)} before, ${fmt(loadAfter, 1)} after, on ${os.cpus().length} cores (a shared, noisy machine).

${table(
  [
    'run',
    'steps',
    'kept in memory',
    'stepCount',
    'read back',
    'RSS at start MB',
    'peak RSS sampled MB',
    'peak RSS (maxRSS) MB',
    'µs/step',
    'µs/step, last tenth',
  ],
  [row('unbounded (today)', unbounded), row(`window ${KEEP}`, small), row(`window ${KEEP}`, large)],
)}

Peak RSS at ${LARGE.toLocaleString('en')} / at ${SMALL.toLocaleString('en')} steps (window): ${fmt(rssRatio, 2)}×. Per-step cost at ${LARGE.toLocaleString('en')} / at ${SMALL.toLocaleString('en')}: ${fmt(costRatio, 2)}×. The unbounded trace at ${SMALL.toLocaleString('en')} steps peaks at ${fmt(unboundedRatio, 2)}× the window's peak at the same size.

- ${verdict(rssRatio <= RSS_TARGET && complete, `peak RSS at ${LARGE.toLocaleString('en')} steps ≤ ${RSS_TARGET}× the peak at ${SMALL.toLocaleString('en')} (${fmt(rssRatio, 2)}×; every step stored and read back: ${complete ? 'yes' : 'NO'})`)}
- ${verdict(costRatio <= COST_TARGET, `per-step cost at ${LARGE.toLocaleString('en')} / at ${SMALL.toLocaleString('en')} ≤ ${COST_TARGET} (${fmt(costRatio, 2)})`)}
`);
