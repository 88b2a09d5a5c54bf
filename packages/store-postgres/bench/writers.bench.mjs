// Many processes, one PostgreSQL: 1, 2 and 4 writer processes (this file forked with
// RUNLEDGER_BENCH_ROLE=writer), each writing 16 runs concurrently (16 connections), every append
// awaited (durable: one transaction per step, synchronous_commit on), on a fresh schema.
// Two paths, side by side in the same run:
// - store: PostgresRunStore.appendStep with groupCommit: false (run counter, step row, the call
//   noted as pending for the health rollup, in one statement; the moves into the rollup every
//   4 096 calls); group commit is measured in group-commit.bench.mjs;
// - bare: the bare pg driver sending the store's own append statement with its pending call cut
//   out (run counter + step row, same values, one commit per step): if it does not grow either,
//   the limit is not the health rollup's upkeep.
// While each window runs, this process measures the database and the machine (databaseLoad.mjs):
// CPU of every postgres process and of the writers and the time they waited for a core
// (/proc/<pid>/task/*/schedstat), machine idle (/proc/stat), the bench backends' wait events
// (pg_stat_activity every 10 ms) and WAL written and flushed (pg_stat_wal; the bench's sessions
// time their WAL syncs with track_wal_io_timing when the role may set it).
// Each configuration is measured in 2 windows, counts in the order 1, 2, 4 then 4, 2, 1, so that
// other work's drift falls on every count alike; a window starts once every writer process has
// appended WARM_STEPS steps (its JIT warmed up, however little CPU it gets).
// BENCH_SECONDS is a window's length (default 6), BENCH_ROUNDS the windows per configuration (2).
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { isDeepStrictEqual } from 'node:util';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { BENCH_SERVERS, fmt, percentile, storedToolStep, table, verdict } from '../../../bench/lib.mjs';
import { PostgresRunStore } from '../dist/index.js';
import { cpuSnapshot, cpuUse, SAMPLE_MS, sampleWaits, walStats } from './databaseLoad.mjs';

const URL = process.env.RUNLEDGER_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const WARM_STEPS = Number(process.env.BENCH_WARM_STEPS ?? 2_000);
const PROCESSES = [1, 2, 4];
const RUNS = 16;
const TARGET = 2.5;
/** The second verdict: a resource of the database's machine is full at 4 writers … */
const IDLE_MAX = 0.1;
const FLUSH_BUSY_MIN = 0.8;
/** … the writers hardly wait on row locks, and without the pending call the growth is no better. */
const LOCK_MAX = 0.05;
const BARE_MARGIN = 1.25;
const CORES = os.cpus().length;
/** The application_name of the writers' connections: the main process's pid. */
const tag = process.env.BENCH_TAG ?? `rl-bench-writers-${process.pid}`;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Step `i` of run `r` of writer `w`: 20 servers, every 11th call fails. */
function stepOf(runId, w, r, i) {
  const server = BENCH_SERVERS[(i * 3 + r + w * RUNS) % BENCH_SERVERS.length];
  return storedToolStep(runId, i, Date.now(), server, i % 11 === 0 ? 'failed' : 'ok', 10 + (i % 300));
}

const appendInput = ({ runId: _run, sequence: _sequence, ...step }) => ({ ...step, payload: JSON.parse(step.payload) });

/** The values of the store's append for `step`, from the values it sent for a step of the same outcome. */
function bareValues(templates, runId, step) {
  const v = [...templates[step.toolOutcome]];
  v[0] = runId;
  v[2] = step.round;
  v[3] = step.durationMs;
  v[4] = step.createdAt;
  v[5] = step.payload;
  v[6] = step.toolServer;
  v[9] = step.toolServer;
  return v;
}

// ---- the writer process ---------------------------------------------------------------------

async function writer() {
  const { path, schema, url, w, bare } = JSON.parse(process.env.BENCH_WRITER);
  let runs;
  let append;
  let close;
  if (path === 'store') {
    const store = await PostgresRunStore.connect({
      connectionString: url,
      schema,
      poolSize: RUNS,
      applicationName: tag,
      groupCommit: false,
    });
    runs = [];
    for (let r = 0; r < RUNS; r++) runs.push((await store.createRun({ configuration: `writer-${w}-${r}` })).id);
    append = (r, i) => store.appendStep(runs[r], appendInput(stepOf(runs[r], w, r, i)));
    close = () => store.close();
  } else {
    const pool = new pg.Pool({ connectionString: url, max: RUNS, application_name: tag });
    runs = Array.from({ length: RUNS }, () => randomUUID());
    await pool.query(
      `INSERT INTO "${schema}".runs (id, status, configuration, created_at, started_at) SELECT id, 'running', 'bench', $2, $2 FROM unnest($1::uuid[]) id`,
      [runs, Date.now()],
    );
    const text = bare.text.replaceAll(bare.quoted, `"${schema}"`);
    append = (r, i) => {
      const values = bareValues(bare.templates, runs[r], stepOf(runs[r], w, r, i));
      return pool.query({ name: 'bench_bare_append', text, values: bare.kept.map((k) => values[k]) });
    };
    close = () => pool.end();
  }
  let phase = 'idle';
  const marks = {};
  let appended = 0;
  const latencies = [];
  const go = new Promise((resolve) => {
    process.on('message', ({ phase: next }) => {
      phase = next;
      marks[next] = { at: performance.now(), appended };
      if (next === 'go') resolve();
    });
  });
  process.send({ ready: true });
  await go;
  await Promise.all(
    runs.map(async (_id, r) => {
      for (let i = 0; phase !== 'stop'; i++) {
        const start = performance.now();
        await append(r, i);
        if (phase === 'start') latencies.push(performance.now() - start);
        if (++appended === WARM_STEPS) process.send({ warm: true });
      }
    }),
  );
  await close();
  const { start, stop } = marks;
  const report = { steps: stop.appended - start.appended, ms: stop.at - start.at, total: appended, latencies };
  process.send(report, () => process.disconnect());
}

// ---- the main process -----------------------------------------------------------------------

/** The store's append statement and the values it sends for a failed and an ok step; the statement without its pending call. */
async function captureAppend(admin, schema) {
  const seen = [];
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function (config, ...rest) {
    if (config !== null && typeof config === 'object' && config.name === 'runledger_append_step') seen.push(config);
    return original.call(this, config, ...rest);
  };
  let runId;
  const steps = [];
  try {
    const store = await PostgresRunStore.connect({ connectionString: URL, schema });
    runId = (await store.createRun({ configuration: 'capture' })).id;
    for (const i of [0, 1]) {
      steps.push(stepOf(runId, 0, 0, i));
      await store.appendStep(runId, appendInput(steps[i]));
    }
    await store.close();
  } finally {
    pg.Client.prototype.query = original;
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  }
  const templates = { failed: seen[0].values, ok: seen[1].values };
  for (const i of [0, 1]) {
    if (!isDeepStrictEqual(bareValues(templates, runId, steps[i]), seen[i].values))
      throw new Error('the bare path would not send the values the store sends');
  }
  const { text } = seen[0];
  const cut = text.indexOf('), pending AS (');
  if (cut < 0 || !text.trimEnd().endsWith('SELECT sequence FROM step'))
    throw new Error('the store’s append statement changed: cannot cut its pending call');
  return { ...keptParameters(`${text.slice(0, cut)})\nSELECT sequence FROM step`), templates, quoted: `"${schema}"` };
}

/**
 * The cut statement numbered again over the parameters it still uses (`kept`: their old 0-based
 * indexes, in their new order): a parameter only the pending call used would leave PostgreSQL
 * unable to tell its type ("could not determine data type of parameter $15").
 */
function keptParameters(cutText) {
  const used = [...new Set([...cutText.matchAll(/\$(\d+)\b/g)].map((m) => Number(m[1])))].sort((a, b) => a - b);
  const renumbered = new Map(used.map((old, i) => [old, i + 1]));
  return { text: cutText.replace(/\$(\d+)\b/g, (_, n) => `$${renumbered.get(Number(n))}`), kept: used.map((n) => n - 1) };
}

/** One window: `processes` writers on a fresh schema, on `path`; what they did and what it cost. */
async function measure(admin, sampler, path, processes, bare, url) {
  const schema = `rl_bench_writers_${path}_${processes}_${process.pid}`;
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await (await PostgresRunStore.connect({ connectionString: URL, schema })).close();
  try {
    const children = Array.from({ length: processes }, (_, w) =>
      fork(fileURLToPath(import.meta.url), [], {
        env: {
          ...process.env,
          RUNLEDGER_BENCH_ROLE: 'writer',
          BENCH_TAG: tag,
          BENCH_WRITER: JSON.stringify({ path, schema, url, w, bare }),
        },
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      }),
    );
    const reports = children.map(
      (child) =>
        new Promise((resolve, reject) => {
          child.on('message', (message) => {
            if (message.steps !== undefined) resolve(message);
          });
          child.on('exit', (code) => reject(new Error(`a writer process exited with ${code} before reporting`)));
        }),
    );
    for (const report of reports) report.catch(() => undefined);
    const signal = (key) =>
      Promise.all(
        children.map(
          (child) =>
            new Promise((resolve, reject) => {
              child.on('message', (message) => message[key] === true && resolve());
              child.once('exit', reject);
            }),
        ),
      );
    const warm = signal('warm');
    warm.catch(() => undefined);
    await signal('ready');
    const tell = (phase) => children.forEach((child) => child.send({ phase }));
    const wal0 = await walStats(admin);
    const goAt = performance.now();
    tell('go');
    await warm;
    const warmS = (performance.now() - goAt) / 1000;
    const activity = (await admin.query('SELECT pid, backend_type, application_name FROM pg_stat_activity')).rows;
    const pids = {
      bench: new Set(activity.filter((a) => a.application_name?.startsWith(tag)).map((a) => a.pid)),
      sampler: new Set([admin.processID, sampler.processID]),
      clients: new Set(activity.filter((a) => a.backend_type === 'client backend').map((a) => a.pid)),
      writers: children.map((child) => child.pid),
    };
    const writerPids = pids.writers;
    const cpu0 = cpuSnapshot(writerPids);
    const stopSampling = sampleWaits(sampler, tag);
    tell('start');
    await sleep(SECONDS * 1000);
    tell('stop');
    const cpu1 = cpuSnapshot(writerPids);
    const lifeMs = performance.now() - goAt;
    const waits = await stopSampling();
    const done = await Promise.all(reports);
    // the backends flush their WAL statistics when they exit
    for (let k = 0; k < 200; k++) {
      const left = (await admin.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name LIKE $1', [`${tag}%`]))
        .rows[0].n;
      if (left === 0) break;
      await sleep(50);
    }
    const wal1 = await walStats(admin);
    const total = done.reduce((sum, r) => sum + r.total, 0);
    const stored = (await admin.query(`SELECT count(*)::int AS n FROM "${schema}".steps`)).rows[0].n;
    if (stored !== total) throw new Error(`${path} × ${processes}: ${total} appends resolved but ${stored} steps stored`);
    if (path === 'store') {
      const counted = // every call once: moved into the rollup, or still pending for it
        (
          await admin.query(
            `SELECT (SELECT coalesce(sum(ok + failed + cancelled), 0) FROM "${schema}".health_rollup WHERE level = 0)::int
             + (SELECT count(*) FROM "${schema}".health_pending)::int AS n`,
          )
        ).rows[0].n;
      if (counted !== total) throw new Error(`store × ${processes}: ${total} steps but ${counted} calls in the rollup and pending`);
    }
    const steps = done.reduce((sum, r) => sum + r.steps, 0);
    const use = cpuUse(cpu0, cpu1, pids);
    return {
      path,
      processes,
      rate: done.reduce((sum, r) => sum + (r.steps / r.ms) * 1000, 0),
      latencies: done.flatMap((r) => r.latencies),
      warmS,
      use,
      serverUs: (use.serverCpu * 1e6) / steps,
      writerUs: (use.writerCpu * 1e6) / steps,
      waits,
      walBytes: (wal1.bytes - wal0.bytes) / total,
      syncsPerS: ((wal1.syncs - wal0.syncs) * 1000) / lifeMs,
      stepsPerSync: total / Math.max(1, wal1.syncs - wal0.syncs),
      flushBusy: (wal1.sync_ms - wal0.sync_ms) / lifeMs,
    };
  } finally {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  }
}

async function main() {
  const load = os.loadavg()[0];
  const admin = new pg.Client({ connectionString: URL });
  await admin.connect();
  const sampler = new pg.Client({ connectionString: URL });
  await sampler.connect();
  const results = [];
  let timed;
  try {
    // the bench's sessions time their WAL syncs, when the role may set that
    timed = (await admin.query('SELECT rolsuper FROM pg_roles WHERE rolname = current_user')).rows[0]?.rolsuper === true;
    const url = timed ? `${URL}${URL.includes('?') ? '&' : '?'}options=${encodeURIComponent('-c track_wal_io_timing=on')}` : URL;
    const bare = await captureAppend(admin, `rl_bench_writers_capture_${process.pid}`);
    for (let round = 0; round < ROUNDS; round++) {
      for (const processes of round % 2 === 0 ? PROCESSES : [...PROCESSES].reverse()) {
        for (const path of ['store', 'bare']) {
          const result = await measure(admin, sampler, path, processes, bare, url);
          process.stderr.write(`writers bench: ${path} × ${processes}: ${fmt(result.rate, 0)} steps/s\n`);
          const same = results.findIndex((r) => r.path === path && r.processes === processes);
          if (same < 0) results.push(result);
          else results[same] = merge(results[same], result, round);
        }
      }
    }
  } finally {
    await sampler.end();
    await admin.end();
  }
  report(results, load, timed);
}

/** The mean of the windows of one configuration (`a` the mean of `n` windows, `b` one more); latencies pooled, texts joined. */
function merge(a, b, n) {
  if (typeof a === 'number' || typeof b === 'number') return ((a ?? 0) * n + (b ?? 0)) / (n + 1);
  if (typeof a === 'string') return a === b ? a : `${a} / ${b}`;
  if (Array.isArray(a)) return [...a, ...b];
  return Object.fromEntries([...new Set([...Object.keys(a), ...Object.keys(b)])].map((key) => [key, merge(a[key], b[key], n)]));
}

function report(results, load, timed) {
  const at = (path, processes) => results.find((r) => r.path === path && r.processes === processes);
  const growth = (path) => at(path, 4).rate / at(path, 1).rate;
  const pct = (x) => fmt(100 * x, 1);
  const name = (r) => (r.path === 'store' ? 'store (step + pending call)' : 'bare (step only)');
  const rows1 = results.map((r) => [
    name(r),
    String(r.processes),
    fmt(r.rate, 0),
    `${fmt(r.rate / at(r.path, 1).rate, 2)}×`,
    `${fmt(percentile(r.latencies, 50), 1)} / ${fmt(percentile(r.latencies, 99), 1)}`,
    fmt(r.use.server, 2),
    fmt(r.use.writers, 2),
    fmt(r.use.others, 2),
    pct(r.use.idle),
    fmt(r.use.runQueue, 2),
    `${fmt(r.serverUs, 0)} (${fmt(100 * r.use.serverSys, 0)} % kernel)`,
    fmt(r.writerUs, 0),
  ]);
  const rows2 = results.map((r) => [
    name(r),
    String(r.processes),
    pct(r.waits.share.lock),
    pct(r.waits.share.wal),
    pct(r.waits.share.cpu),
    pct(r.waits.share.client),
    pct(r.waits.share.other),
    fmt(r.walBytes, 0),
    fmt(r.syncsPerS, 0),
    fmt(r.stepsPerSync, 2),
    timed ? pct(r.flushBusy) : 'n/a',
  ]);
  const store4 = at('store', 4);
  const gs = growth('store');
  const gb = growth('bare');
  const lockMax = Math.max(...PROCESSES.map((p) => at('store', p).waits.share.lock));
  const idle4 = store4.use.idle;
  // CPU: even with both cores to itself at 1 writer's CPU per step (it only grows with more), the target's rate does not fit
  const ceiling = (path) => (CORES * 1e6) / (at(path, 1).serverUs + at(path, 1).writerUs);
  const cpuFull = idle4 < IDLE_MAX && ceiling('store') < TARGET * at('store', 1).rate;
  const walFull = timed && store4.flushBusy >= FLUSH_BUSY_MIN;
  const limitOk = gs < TARGET && (cpuFull || walFull) && lockMax < LOCK_MAX && gb < TARGET && gb <= gs * BARE_MARGIN;
  const s1 = at('store', 1);
  const b1 = at('bare', 1);
  const sampling = results.reduce((sum, r) => sum + r.use.sampler, 0) / results.length;
  /** The 3 biggest of a map of numbers, formatted. */
  const top = (map, format) =>
    Object.entries(map)
      .filter(([, x]) => x >= 0.0005)
      .sort((x, y) => y[1] - x[1])
      .slice(0, 3)
      .map(([k, x]) => `${k} ${format(x)}`)
      .join(', ') || 'none';
  const others = results
    .map((r) => `${r.path} × ${r.processes}: ${fmt(r.use.others, 2)} (${top(r.use.otherBy, (x) => fmt(x, 2))})`)
    .join('; ');
  const warmups = results.map((r) => `${r.path} × ${r.processes} ${fmt(r.warmS, 1)} s`).join(', ');
  console.log(`## store-postgres: 1, 2 and 4 writer processes on one PostgreSQL

Each writer process writes ${RUNS} runs at once (${RUNS} connections), tool steps over ${BENCH_SERVERS.length} servers, every append awaited: one transaction per step, durable when it resolves (synchronous_commit on). Every window gets a fresh schema of one PostgreSQL on this machine, a warm-up until each writer process has appended ${WARM_STEPS.toLocaleString('en')} steps, then ${SECONDS} s measured; each configuration is the mean of ${ROUNDS} windows, counts in the order 1, 2, 4 then 4, 2, 1 (so other work's drift falls on each count alike). **store**: \`PostgresRunStore.appendStep\` with \`groupCommit: false\` (run counter, step row and the call noted as pending for the health rollup in one statement; the moves of pending calls into the rollup every 4,096 calls; group commit is measured in its own bench). **bare**: the bare pg driver sending the store's own append statement with the pending call cut out (run counter and step row, the same values, one commit per step). Measured from a separate process during the window: CPU of all postgres processes (the bench's backends plus PostgreSQL's own: WAL writer, checkpointer, …) and of the writer processes in cores (CPU-seconds per second, of ${CORES}), from schedstat (kernel share from /proc/<pid>/stat); "other" is the rest of the busy machine (other work, this process's sampling: ${fmt(sampling, 2)} cores on average); run-queue wait is the time the bench's processes were runnable but had no core (schedstat), in cores; wait events of the bench's backends sampled from pg_stat_activity every ${SAMPLE_MS} ms (share of backend samples: Lock = row locks; WAL flush = LWLock WALWrite, IO WALSync/WALWrite; on CPU = active without a wait event, running or waiting for a core; Client = idle, waiting for the writer's next statement); WAL bytes, syncs and sync time from pg_stat_wal over warm-up plus window (cluster-wide; flush busy = the bench sessions' fdatasync time per second of wall time, WAL flushes being serial${timed ? '' : ' — not measured: the role may not set track_wal_io_timing'}). Load average ${fmt(load, 1)} before, ${fmt(os.loadavg()[0], 1)} after, on ${CORES} cores; the machine is shared.

${table(
  [
    'path',
    'writers',
    'steps/s',
    '× 1 writer',
    'append p50 / p99 ms',
    'server cores',
    'writer cores',
    'other cores',
    'machine idle %',
    'run-queue wait (cores)',
    'server µs CPU / step (kernel share)',
    'writer µs CPU / step',
  ],
  rows1,
)}

${table(
  [
    'path',
    'writers',
    'Lock %',
    'WAL flush %',
    'on CPU %',
    'Client %',
    'other %',
    'WAL bytes / step',
    'WAL syncs / s',
    'steps / sync',
    'flush busy %',
  ],
  rows2,
)}

Most frequent Lock and other waits at 4 writers: store ${top(store4.waits.events, (x) => `${pct(x)} %`)}; bare ${top(at('bare', 4).waits.events, (x) => `${pct(x)} %`)}. Warm-up (until each writer process had appended ${WARM_STEPS.toLocaleString('en')} steps): ${warmups}. Other cores (mean of the windows) and the biggest users among them (irq: interrupts; steal: taken by the host): ${others}.
CPU ceiling at 1 writer's CPU per step (server + writer), if the bench had all ${CORES} cores: store ${CORES} / (${fmt(s1.serverUs, 0)} + ${fmt(s1.writerUs, 0)}) µs = ${fmt(ceiling('store'), 0)} steps/s, where ${TARGET}× 1 writer is ${fmt(TARGET * s1.rate, 0)}; bare ${fmt(ceiling('bare'), 0)} steps/s, where ${TARGET}× is ${fmt(TARGET * b1.rate, 0)}.

- ${verdict(gs >= TARGET, `store throughput grows ≥ ${TARGET}× from 1 to 4 writer processes (got ${fmt(gs, 2)}×: ${fmt(s1.rate, 0)} → ${fmt(store4.rate, 0)} steps/s)`)}
- ${verdict(limitOk, `otherwise the limit is PostgreSQL's machine (its CPU, shared with the writers, or its WAL flush), not the health rollup's upkeep: the CPU is full (idle at 4 writers < ${pct(IDLE_MAX)} %: ${pct(idle4)} %, and the CPU ceiling < ${TARGET}× 1 writer: ${fmt(ceiling('store'), 0)} vs ${fmt(TARGET * s1.rate, 0)} steps/s) or WAL flushing is (flush busy at 4 writers ≥ ${pct(FLUSH_BUSY_MIN)} %: ${timed ? pct(store4.flushBusy) : 'n/a'} %), the store's writers wait on row locks < ${pct(LOCK_MAX)} % of the time at every count (most: ${pct(lockMax)} %), and without the pending call growth is no better (bare ${fmt(gb, 2)}× < ${TARGET}× and ≤ ${BARE_MARGIN} × store's ${fmt(gs, 2)}×)`)}
`);
}

if (process.env.RUNLEDGER_BENCH_ROLE === 'writer') await writer();
else await main();
