// Server health over 1 000 000 tool steps across 20 servers, read from the rollup that each append
// maintains in its own transaction; windows of 1 %, 10 %, 50 % and 100 % of the data must cost the
// same. The same steps are spread over a week, then over a year: a year window reads about 11
// rows of 32 days per server and up to 31 days at each edge, where a week window reads 7 days.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { DURATION_HISTOGRAM_MAX_RELATIVE_ERROR, ROLLUP_LEVEL_SIZES } from '@runledger/trace/store';
import { fmt, median, percentile, sample, storedToolStep, table, verdict } from '../../../bench/lib.mjs';
import { SqliteRunStore } from '../dist/index.js';

const STEPS = Number(process.env.BENCH_STEPS ?? 1_000_000);
const SERVERS = 20;
const RUNS = 100;
const DAY = 86_400_000;
const SPANS = [
  { name: 'one week', ms: 7 * DAY },
  { name: 'one year', ms: 365 * DAY },
];
const T0 = Date.UTC(2026, 0, 5, 3, 17, 41, 123);
const TARGET_MS = 20;
const FRACTIONS = [0.01, 0.1, 0.5, 1];

const dir = mkdtempSync(path.join(tmpdir(), 'runledger-bench-health-'));
const keep = process.env.BENCH_KEEP === '1';

/** One completed run of `steps` as importRun takes it. */
function importedRun(id, createdAt, steps) {
  return {
    id,
    status: 'completed',
    configuration: 'bench',
    actor: null,
    createdAt,
    startedAt: createdAt,
    finishedAt: createdAt + 1,
    terminationReason: null,
    cancelRequestedAt: null,
    heartbeatAt: null,
    stepCount: steps.length,
    outcomeCounts: { ok: 0, failed: 0, cancelled: 0 },
  };
}

/** Loads STEPS steps spread over `span` ms into a fresh store file; returns the store and the setup time. */
async function loaded(span) {
  const file = path.join(dir, `health-${span}.db`);
  const store = await SqliteRunStore.open({ path: file });
  let seed = 1;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const perRun = STEPS / RUNS;
  const setupStart = performance.now();
  for (let r = 0; r < RUNS; r++) {
    const id = randomUUID();
    // runs follow each other through the span; a run's steps are in time order, as recorded
    const createdAt = T0 + Math.floor((r / RUNS) * span);
    const slice = span / RUNS;
    const steps = [];
    for (let i = 0; i < perRun; i++) {
      const server = `server-${String(Math.floor(random() * SERVERS)).padStart(2, '0')}`;
      const x = random();
      const outcome = x < 0.9 ? 'ok' : x < 0.97 ? 'failed' : 'cancelled';
      const durationMs = Math.round((5 + random() ** 3 * 3000) * 100) / 100;
      steps.push(storedToolStep(id, i, createdAt + Math.floor((i / perRun) * slice), server, outcome, durationMs));
    }
    await store.importRun(importedRun(id, createdAt, steps), steps);
  }
  return { store, file, setupMs: performance.now() - setupStart };
}

/** The windows ending at the end of the data, with edges that fall mid-minute on purpose. */
function windowOf(span, fraction) {
  const until = T0 + span + 1;
  return { since: Math.floor(until - fraction * span) + 7_777, until };
}

const rows = [];
const results = [];
let churn = null;
try {
  for (const span of SPANS) {
    const { store, file, setupMs } = await loaded(span.ms);
    const medians = new Map();
    let check = null;
    for (const fraction of FRACTIONS) {
      const window = windowOf(span.ms, fraction);
      const cpuStart = process.cpuUsage();
      const times = await sample(() => store.serverHealth(window), { iterations: 40, warmup: 5 });
      const cpu = process.cpuUsage(cpuStart);
      const cpuMs = (cpu.user + cpu.system) / 1000 / 45;
      const health = await store.serverHealth(window);
      const calls = health.reduce((sum, h) => sum + h.calls, 0);
      if (fraction === 1) check = health;
      medians.set(fraction, median(times));
      rows.push([
        span.name,
        `${fraction * 100} %`,
        String(calls),
        String(health.length),
        fmt(median(times)),
        fmt(percentile(times, 95)),
        fmt(cpuMs),
      ]);
    }

    // for scale: the same question answered by scanning the steps (what the rollup avoids)
    const db = new Database(file, { readonly: true });
    const whole = windowOf(span.ms, 1);
    const scanStart = performance.now();
    const scanned = db
      .prepare(
        'SELECT call_server, count(*) AS calls FROM steps WHERE created_at >= ? AND created_at < ? AND call_server IS NOT NULL GROUP BY call_server',
      )
      .all(whole.since, whole.until);
    const scanMs = performance.now() - scanStart;
    db.close();
    const agrees = scanned.reduce((sum, r) => sum + r.calls, 0) === check.reduce((sum, h) => sum + h.calls, 0);

    if (span === SPANS[0]) churn = await serverChurn(store, span.ms, medians.get(0.01));
    await store.close();
    results.push({ span, setupMs, medians, scanMs, agrees });
  }
} finally {
  if (keep) console.error(`kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}

/**
 * Server churn: 3 000 more servers, each called once in the 60 days before the data (a long-lived
 * deployment with per-tenant or short-lived servers). A window must cost what its own servers
 * cost, not what every server ever seen costs.
 */
async function serverChurn(store, span, baseMedian) {
  const HISTORY_SERVERS = 3_000;
  const HISTORY_DAYS = 60;
  for (let day = 0; day < HISTORY_DAYS; day++) {
    const id = randomUUID();
    const createdAt = T0 - (HISTORY_DAYS - day) * DAY;
    const steps = [];
    for (let k = day; k < HISTORY_SERVERS; k += HISTORY_DAYS) {
      steps.push(storedToolStep(id, steps.length, createdAt + steps.length * 1_000, `old-${String(k).padStart(4, '0')}`, 'ok', 42));
    }
    await store.importRun(importedRun(id, createdAt, steps), steps);
  }
  const window = windowOf(span, 0.01);
  const times = await sample(() => store.serverHealth(window), { iterations: 40, warmup: 5 });
  const health = await store.serverHealth(window);
  return { median: median(times), p95: percentile(times, 95), servers: health.length, growth: median(times) / baseMedian };
}

const levels = ROLLUP_LEVEL_SIZES.map((ms) =>
  ms >= DAY ? `${ms / DAY} d` : ms >= 3_600_000 ? `${ms / 3_600_000} h` : `${ms / 60_000} min`,
).join(' / ');
const worst = Math.max(...results.flatMap((r) => [...r.medians.values()]));
const [week, year] = results;
const growthLines = results.map(
  (r) =>
    `- ${verdict(r.medians.get(1) / r.medians.get(0.1) <= 2, `over ${r.span.name}, time does not grow with the steps in the window: the 100 % window (10× the steps of the 10 % one) takes ${fmt(r.medians.get(1) / r.medians.get(0.1), 2)}× its median, at most 2×`)}`,
);
const yearRatio = year.medians.get(1) / week.medians.get(1);

console.log(`## store-sqlite: server health over ${STEPS.toLocaleString('en')} steps, ${SERVERS} servers

The same ${STEPS.toLocaleString('en')} steps, in ${RUNS} runs, spread over one week and then over one year, written with \`importRun\` (which maintains the rollup like \`appendStep\`; setup took ${results.map((r) => `${fmt(r.setupMs / 1000, 1)} s`).join(' and ')}).
Each query reads whole rollup buckets (levels ${levels}, at most two ranges per level) plus the steps of the two sub-minute edges of the window; the coarsest level is 32 days, so a year window reads about 11 of those rows per server and at most 31 day rows at each edge.
Percentiles come from a fixed log-scale histogram (quarter-octave buckets): within ${fmt(DURATION_HISTOGRAM_MAX_RELATIVE_ERROR * 100, 2)} % of the exact nearest-rank value.

${table(['span', 'window', 'calls in window', 'servers', 'median ms', 'p95 ms', 'CPU ms / query'], rows)}

(CPU ms is the process CPU time per query, all threads: it does not grow with what else the machine runs, wall time does; load average while measuring: ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores.)

Full scan of the steps for the 100 % window (counts only, no percentiles), for scale: ${results.map((r) => `${fmt(r.scanMs, 1)} ms over ${r.span.name}`).join(', ')}; rollup and scan agree on the call count: ${results.every((r) => r.agrees) ? 'yes' : 'NO'}.

- ${verdict(worst <= TARGET_MS && results.every((r) => r.agrees), `median ≤ ${TARGET_MS} ms for every window (worst median ${fmt(worst)} ms)`)}
${growthLines.join('\n')}
- ${verdict(yearRatio <= 2, `a year of history costs about what a week does: the 100 % window over one year takes ${fmt(yearRatio, 2)}× the 100 % window over one week (52× the span), at most 2×`)}

Then ${(3_000).toLocaleString('en')} more servers, each called once in the 60 days before the week's data, and its 1 % window again:
median ${fmt(churn.median)} ms, p95 ${fmt(churn.p95)} ms, ${churn.servers} servers in the answer (the same ${SERVERS} as before).

- ${verdict(churn.growth <= 2 && churn.servers === SERVERS, `servers outside the window cost nothing: the 1 % window with 3 000 servers of history takes ${fmt(churn.growth, 2)}× its median without them, at most 2×`)}
`);
