// Retention benchmark shared by the stores: pruning old runs while agents record. A store holds
// STEPS old steps (runs that ended over 30 days ago, a fifth of the steps in runs bigger than one
// prune batch) and 4 runs record tool steps continuously in ANOTHER process (as agents do while
// `runledger prune` runs), each append durable before the next. Measured: the recorders' append
// latency while this process prunes every old run (`pruneRuns`, batch size left to the store),
// against the same 4 recorders for the same time without a prune (half just before the prune, half
// just after it), in the same run; the prune's throughput and, where the store lets it be observed,
// its transactions; and the per-step prune cost at 10× fewer steps.
// A store's bench file (packages/store-*/bench/prune.bench.mjs) calls pruneWhileRecording with how
// to make, open and drop its store; the same file runs again as the recorders' process.
// BENCH_STEPS=20000 for a smoke run; BENCH_PAUSE_MS is a recorder's pause between two appends.
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fmt, largest, percentile, storedToolStep, table, verdict } from './lib.mjs';

const STEPS = Number(process.env.BENCH_STEPS ?? 1_000_000);
const RECORDERS = 4;
const PAUSE_MS = Number(process.env.BENCH_PAUSE_MS ?? 5);
const SERVERS = 20;
const DAY = 86_400_000;
const TARGET_P99 = 2;
const TARGET_FLAT = 1.5;
/** Steps per block of old runs: one run bigger than a prune batch (2000) and 12 small ones. */
const BLOCK = { big: 4_000, small: 500, smallRuns: 12 };
const BLOCK_STEPS = BLOCK.big + BLOCK.small * BLOCK.smallRuns;
/** The steps a store's log census prunes (whole blocks, at the same density). */
const CENSUS_STEPS = BLOCK_STEPS * Math.max(1, Math.round(STEPS / 50 / BLOCK_STEPS));

/**
 * Runs the benchmark on one store and prints its section, or, in the recorders' process (the same
 * bench file forked), records.
 *
 * @param store `{ name, heading, fresh(dir, label), open(location), drop(location), transactions?(), logCensus?(dir, loadOld, steps, batchSize) }`:
 *   `fresh` makes a new empty location, `open` opens a store on it (in both processes),
 *   `transactions()` observes the prune's write transactions when the store can (`{ durations, stop() }`),
 *   `logCensus` prunes `steps` old steps (loaded by `loadOld(store, steps, now)`) alone, `batchSize` steps a
 *   transaction (as many as the prune beside the recorders deleted on average), and says where its
 *   log writes went (a paragraph of the section; SQLite).
 * @param benchFile the store's bench file, forked as the recorders' process.
 */
export async function pruneWhileRecording(store, benchFile) {
  STORE = store;
  BENCH_FILE = benchFile;
  if (process.env.RUNLEDGER_BENCH_ROLE === 'recorder') await record();
  else await main();
}

let STORE;
let BENCH_FILE;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The recorders' process: 4 runs appending until told to stop, then their latencies reported. */
async function record() {
  const store = await STORE.open(process.env.BENCH_LOCATION);
  const runs = [];
  for (let r = 0; r < RECORDERS; r++) runs.push(await store.createRun({ configuration: `recorder-${r}` }));
  let phase = 'warmup';
  let stopping = false;
  const samples = { warmup: [], baseline: [], prune: [] };
  const appended = runs.map(() => 0);
  process.on('message', (message) => {
    if (message.phase === 'stop') stopping = true;
    else phase = message.phase;
  });
  const loops = runs.map(async (run, r) => {
    for (let i = 0; !stopping; i++) {
      const at = phase;
      const server = `server-${String((i * RECORDERS + r) % SERVERS).padStart(2, '0')}`;
      const {
        runId: _run,
        sequence: _sequence,
        ...step
      } = storedToolStep(run.id, i, Date.now(), server, i % 11 === 0 ? 'failed' : 'ok', 10 + (i % 300));
      const start = performance.now();
      await store.appendStep(run.id, { ...step, payload: JSON.parse(step.payload) });
      samples[at].push(performance.now() - start);
      appended[r]++;
      await sleep(PAUSE_MS);
    }
  });
  process.send({ ready: true });
  await Promise.all(loops);
  for (const run of runs) await store.finishRun(run.id, { status: 'completed' });
  await store.close();
  // the report can be large: the channel closes only once it is sent
  process.send({ samples, runs: runs.map((run, r) => ({ id: run.id, appended: appended[r] })) }, () => process.disconnect());
}

/**
 * Writes `steps` old steps (rounded up to whole blocks: a smoke run's small size loads one block),
 * in blocks of one big run and 12 small ones, that ended over 30 days
 * before `now`: 29 days of them per tenth of STEPS, so both sizes have the same steps per minute
 * (the rollup buckets a prune rebuilds hold as many calls) and differ only in how many there are.
 * Returns the runs and the steps written.
 */
async function loadOld(store, steps, now) {
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const sizes = [];
  for (let b = 0; b < steps / BLOCK_STEPS; b++) sizes.push(BLOCK.big, ...Array.from({ length: BLOCK.smallRuns }, () => BLOCK.small));
  const span = (29 * DAY * steps) / (STEPS / 10);
  const start = now - 31 * DAY - span;
  const slot = span / sizes.length;
  for (const [n, size] of sizes.entries()) {
    const id = randomUUID();
    const createdAt = Math.floor(start + n * slot);
    const stepRows = [];
    for (let i = 0; i < size; i++) {
      const server = `server-${String(Math.floor(random() * SERVERS)).padStart(2, '0')}`;
      const x = random();
      const outcome = x < 0.9 ? 'ok' : x < 0.97 ? 'failed' : 'cancelled';
      const durationMs = Math.round((5 + random() ** 3 * 3000) * 100) / 100;
      stepRows.push(storedToolStep(id, i, createdAt + Math.floor((i / size) * slot * 0.9), server, outcome, durationMs));
    }
    const run = {
      id,
      status: 'completed',
      configuration: 'old',
      actor: null,
      createdAt,
      startedAt: createdAt,
      finishedAt: createdAt + Math.floor(slot * 0.95),
      terminationReason: null,
      cancelRequestedAt: null,
      heartbeatAt: null,
      stepCount: size,
      outcomeCounts: { ok: 0, failed: 0, cancelled: 0 },
    };
    if (!(await store.importRun(run, stepRows))) throw new Error(`import of old run ${id} refused`);
  }
  return { runs: sizes.length, steps: sizes.reduce((sum, size) => sum + size, 0) };
}

/** Starts the recorders' process on `location`; resolves once its 4 runs are recording. */
async function startRecorders(location) {
  const child = fork(BENCH_FILE, [], {
    env: { ...process.env, RUNLEDGER_BENCH_ROLE: 'recorder', BENCH_LOCATION: location },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const report = new Promise((resolve, reject) => {
    child.on('message', (message) => {
      if (message.samples !== undefined) resolve(message);
    });
    child.on('exit', (code) => reject(new Error(`the recorders' process exited with ${code} before reporting`)));
  });
  report.catch(() => undefined);
  await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', reject);
  });
  return { phase: (phase) => child.send({ phase }), report };
}

/** One size: load, then baseline / prune / baseline with the recorders going; returns what was measured. */
async function measure(dir, size, beforeMs) {
  const location = STORE.fresh(dir, `prune-${size}`);
  const now = Date.now();
  const store = await STORE.open(location);
  const loadStart = performance.now();
  const { runs: oldRuns, steps } = await loadOld(store, size, now);
  const loadMs = performance.now() - loadStart;
  const recorders = await startRecorders(location);
  await sleep(1_000);
  recorders.phase('baseline');
  await sleep(beforeMs);
  recorders.phase('prune');
  const observed = STORE.transactions?.() ?? null;
  const start = performance.now();
  const result = await store.pruneRuns({ olderThan: now - 30 * DAY });
  const pruneMs = performance.now() - start;
  observed?.stop();
  recorders.phase('baseline');
  await sleep(Math.max(1_000, pruneMs - beforeMs));
  recorders.phase('stop');
  const report = await recorders.report;
  // every old run gone, every recorder step stored
  const left = await store.listRuns({ limit: 100 });
  let stored = true;
  for (const run of report.runs) stored &&= (await store.getRun(run.id))?.stepCount === run.appended;
  const ok = result.complete && result.runs === oldRuns && result.steps === steps && left.runs.length === RECORDERS && stored;
  await store.close();
  await STORE.drop(location);
  const tx = observed?.durations ?? null;
  return {
    steps,
    loadMs,
    pruneMs,
    result,
    ok,
    prune: report.samples.prune,
    baseline: report.samples.baseline,
    longestTxMs: tx === null ? null : largest(tx),
    p99TxMs: tx === null ? null : percentile(tx, 99),
    transactions: tx?.length ?? null,
  };
}

async function main() {
  const dir = mkdtempSync(path.join(tmpdir(), 'runledger-bench-prune-'));
  try {
    const small = await measure(dir, STEPS / 10, 1_000);
    process.stderr.write(`prune bench: ${STEPS / 10} steps pruned in ${fmt(small.pruneMs, 0)} ms\n`);
    // the baseline before the big prune: about half of its expected time (10× the small one's)
    const big = await measure(dir, STEPS, Math.max(1_000, (small.pruneMs * 10) / 2));
    const batchSize = big.transactions === null ? undefined : Math.max(1, Math.round(big.steps / big.transactions));
    const census = (await STORE.logCensus?.(dir, loadOld, CENSUS_STEPS, batchSize)) ?? null;
    report(small, big, census);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function report(small, big, census) {
  const stat = (m) => {
    const p99 = percentile(m.prune, 99);
    const base99 = percentile(m.baseline, 99);
    return { p99, base99, ratio: p99 / base99, usPerStep: (m.pruneMs * 1000) / m.steps };
  };
  const s = stat(small);
  const b = stat(big);
  const rows = [small, big].map((m) => {
    const x = stat(m);
    return [
      m.steps.toLocaleString('en'),
      String(m.result.runs),
      fmt(m.pruneMs / 1000, 2),
      fmt(m.steps / (m.pruneMs / 1000), 0),
      fmt(x.usPerStep, 1),
      m.transactions === null ? 'n/a' : `${m.transactions} / ${fmt(m.p99TxMs, 1)} / ${fmt(m.longestTxMs, 1)}`,
      `${m.prune.length} / ${m.baseline.length}`,
      `${fmt(percentile(m.prune, 50), 2)} / ${fmt(percentile(m.baseline, 50), 2)}`,
      `${fmt(x.p99, 2)} / ${fmt(x.base99, 2)}`,
      `${fmt(largest(m.prune), 1)} / ${fmt(largest(m.baseline), 1)}`,
      fmt(x.ratio, 2),
    ];
  });
  const flat = b.usPerStep / s.usPerStep;
  const ok = small.ok && big.ok;
  console.log(`## ${STORE.heading}: pruning ${STEPS.toLocaleString('en')} old steps while ${RECORDERS} runs record

A ${STORE.name} store holds old runs that ended over 30 days ago, at the same density for both sizes (${(STEPS / 10).toLocaleString('en')} steps per 29 days; blocks of one ${BLOCK.big.toLocaleString('en')}-step run, bigger than a prune batch, and ${BLOCK.smallRuns} runs of ${BLOCK.small}; 20 servers; written with \`importRun\`, setup ${fmt(small.loadMs / 1000, 1)} s and ${fmt(big.loadMs / 1000, 1)} s). Another process records ${RECORDERS} runs, each \`appendStep\` awaited (durable) and followed by a ${PAUSE_MS} ms pause, as agents do while \`runledger prune\` runs; this process prunes every old run (\`pruneRuns({ olderThan: 30 days ago })\`, batch size left to the store: at most 2000 steps a transaction). Baseline: the same recorders, same process and store, for the same time without a prune (half just before the prune, half just after it). Latencies are per append, as the recorder awaited it. Transactions (where the store lets them be observed): the prune's write transactions, from the write lock taken to the commit. Load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores; the machine is shared.

${table(
  [
    'old steps',
    'runs',
    'prune s',
    'steps deleted / s',
    'µs / step',
    'transactions / p99 ms / longest ms',
    'appends (prune / baseline)',
    'p50 ms (prune / baseline)',
    'p99 ms (prune / baseline)',
    'max ms (prune / baseline)',
    'p99 × baseline',
  ],
  rows,
)}
${census === null ? '' : `\n${census}\n`}
- ${verdict(b.ratio <= TARGET_P99 && ok, `recorders' append p99 during the prune of ${big.steps.toLocaleString('en')} steps ≤ ${TARGET_P99}× their p99 without it (got ${fmt(b.ratio, 2)}×; at ${small.steps.toLocaleString('en')} steps ${fmt(s.ratio, 2)}×; every old run deleted whole and every recorder step stored: ${ok ? 'yes' : 'NO'})`)}
- ${verdict(flat <= TARGET_FLAT, `per-step prune cost flat: µs / step pruning ${big.steps.toLocaleString('en')} steps within ${TARGET_FLAT}× of pruning ${small.steps.toLocaleString('en')} (got ${fmt(flat, 2)}×)`)}
`);
}
