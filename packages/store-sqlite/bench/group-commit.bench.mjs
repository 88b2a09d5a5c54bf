// Group commit: 16 concurrent runs recording tool steps through RunTrace → SqliteRunStore (group
// commit on, the default) against the bare driver committing the same statements one transaction
// per step; the store's own per-step path (`groupCommit: false`) beside them; and one run alone,
// each append awaited before the next, grouped against per-step. Every statement a grouped store
// runs inside an append (between its savepoint and release) is captured with its values, in an
// untimed pass of the same workload on a store of its own, and replayed by better-sqlite3 on a
// bare file, one BEGIN IMMEDIATE … COMMIT per step, the same pragmas (WAL, synchronous = FULL,
// 4 MiB page cache); and once more with synchronous = OFF (no fsync at all: the ceiling any
// grouping of these statements can reach). Interleaved in slices. Then the grouped 16-run path at
// 10× fewer, the default and 10× more steps, interleaved in rounds (per-step cost growth).
// BENCH_STEPS=2000 for a smoke run; BENCH_SCALE=0 skips the 10× larger size.
import { mkdtempSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { ToolResult } from '@runledger/core';
import { startRun } from '@runledger/trace';
import Database from 'better-sqlite3';
import { fmt, ingestToolCall, table, verdict } from '../../../bench/lib.mjs';
import { SqliteRunStore } from '../dist/index.js';
import { statementPrototype } from './statementPrototype.mjs';

const STEPS = Number(process.env.BENCH_STEPS ?? 100_000);
const SCALE = process.env.BENCH_SCALE !== '0';
const RUNS = 16;
const SLICES = 5;
const TARGET_CONCURRENT = 5;
const TARGET_SINGLE = 1.2;
const TARGET_FLAT = 1.5;

const call = (i) => ingestToolCall(i, ToolResult);
const pragmas = (db, synchronous) => {
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${synchronous}`);
  db.pragma('cache_size = -4096');
};

// Capture every statement execution inside an append of the grouped store: GroupCommit runs each
// append in a savepoint of the batch's transaction (better-sqlite3's `SAVEPOINT` … `RELEASE`).
// Also captured, where they happened among the appends: the store's moves of pending calls into
// the health rollup (a transaction of their own every few thousand calls, SqliteHealthPending),
// so that the baseline does the same work per step.
const StatementProto = statementPrototype();
const METHODS = ['run', 'get', 'all', 'iterate'];
const original = Object.fromEntries(METHODS.map((method) => [method, StatementProto[method]]));
/** `{ roll: false, ops }` per append, `{ roll: true, ops }` per move of pending calls, in the order they ran. */
const captured = [];
/** The open transaction's statements (an append alone, or a move), and the open savepoint's (an append of a batch). */
let tx = null;
let savepoint = null;
/** The values as they were at the call: a writer may reuse an array of parameters for its next call. */
const copied = (args) => args.map((arg) => (Array.isArray(arg) ? [...arg] : arg));
const wrappers = Object.fromEntries(
  METHODS.map((method) => [
    method,
    function (...args) {
      const sql = this.source;
      if (sql.startsWith('BEGIN')) tx = { ops: [], batch: false };
      else if (sql.startsWith('SAVEPOINT')) {
        savepoint = [];
        if (tx !== null) tx.batch = true;
      } else if (sql.startsWith('RELEASE')) {
        if (savepoint !== null) captured.push({ roll: false, ops: savepoint });
        savepoint = null;
      } else if (sql.startsWith('ROLLBACK')) {
        savepoint = null;
        if (!sql.startsWith('ROLLBACK TO')) tx = null;
      } else if (sql.startsWith('COMMIT')) {
        // a transaction without savepoints: one append alone, or a move of the pending calls
        if (tx !== null && !tx.batch && tx.ops.length > 0)
          captured.push({ roll: tx.ops.some(([statement]) => statement.source.includes('FROM health_pending')), ops: tx.ops });
        tx = null;
      } else if (savepoint !== null) savepoint.push([this, method, copied(args)]);
      else if (tx !== null) tx.ops.push([this, method, copied(args)]);
      return original[method].apply(this, args);
    },
  ]),
);
const capture = (on) => {
  for (const method of METHODS) StatementProto[method] = on ? wrappers[method] : original[method];
};

const cpuNow = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

const dir = mkdtempSync(path.join(tmpdir(), 'runledger-bench-group-'));
let fileNo = 0;
const newFile = () => path.join(dir, `f${fileNo++}.db`);

/** A store with `runs` runs started the way an agent starts them. */
async function openRuns(options, runs) {
  const store = await SqliteRunStore.open({ path: newFile(), ...options });
  const active = [];
  for (let r = 0; r < runs; r++) active.push(await startRun(store, { configuration: `bench-${r}`, heartbeatMs: 0 }));
  return { store, active };
}

/** Records steps [from, to) of each run, the runs concurrently, each append awaited before its next. */
const record = (active, from, to) =>
  Promise.all(
    active.map(async (run, r) => {
      for (let i = from; i < to; i++) await run.trace.recordToolResult(call(i * RUNS + r));
    }),
  );

/** A bare file with the store's schema and the same run rows (ids, run numbers) as `source`. */
async function bareLike(source, synchronous) {
  const file = newFile();
  await (await SqliteRunStore.open({ path: file })).close();
  const db = new Database(file);
  pragmas(db, synchronous);
  const src = new Database(source, { readonly: true });
  const rows = src.prepare('SELECT id, configuration, run_no, created_at, started_at FROM runs').all();
  src.close();
  const insert = db.prepare(
    "INSERT INTO runs (id, status, configuration, created_at, started_at, run_no) VALUES (?, 'running', ?, ?, ?, ?)",
  );
  for (const row of rows) insert.run(row.id, row.configuration, row.created_at, row.started_at, row.run_no);
  return db;
}

/** A replayer of captured appends on `db`: the same statements, one immediate transaction per step (and per move of pending calls). */
function replayer(db) {
  const statements = new Map();
  const bare = (statement) => {
    let prepared = statements.get(statement);
    if (prepared === undefined) {
      prepared = db.prepare(statement.source);
      if (prepared.reader) prepared.raw();
      statements.set(statement, prepared);
    }
    return prepared;
  };
  const commitOne = db.transaction((ops) => {
    for (let k = 0; k < ops.length; k++) {
      const result = ops[k][0][ops[k][1]](...ops[k][2]);
      if (ops[k][1] === 'iterate') for (const _ of result); // read every row, as the store does
    }
  }).immediate;
  return {
    prepare: (entries) => entries.map(({ ops }) => ops.map(([statement, method, args]) => [bare(statement), method, args])),
    run: (prepared) => {
      for (let k = 0; k < prepared.length; k++) commitOne(prepared[k]);
    },
  };
}

const fingerprint = (db) =>
  [
    db.prepare('SELECT count(*), sum(length(payload)), sum(id), sum(duration_ms) FROM steps').raw().get().join(','),
    db.prepare('SELECT sum(step_count), sum(ok_count), sum(failed_count) FROM runs').raw().get().join(','),
    // every call once: in the rollup (its minute level) or still pending for it
    db
      .prepare(
        `SELECT (SELECT coalesce(sum(ok), 0) FROM health_rollup WHERE level = 0) + (SELECT count(*) FROM health_pending WHERE outcome = 'ok'),
                (SELECT coalesce(sum(failed), 0) FROM health_rollup WHERE level = 0) + (SELECT count(*) FROM health_pending WHERE outcome = 'failed')`,
      )
      .raw()
      .get()
      .join(','),
  ].join(' / ');

/** Steps per run with no gap: sequences 0 … n-1 for every run of the file. */
const gapFree = (file) => {
  const db = new Database(file, { readonly: true });
  const bad = db
    .prepare(
      'SELECT count(*) FROM (SELECT run_id, count(*) AS n, min(sequence) AS lo, max(sequence) AS hi FROM steps GROUP BY run_id) WHERE lo <> 0 OR hi <> n - 1',
    )
    .pluck()
    .get();
  db.close();
  return bad === 0;
};

try {
  // --- 16 concurrent runs --------------------------------------------------------------------
  const perRun = Math.floor(STEPS / RUNS);
  const total = perRun * RUNS;
  const sliceSize = Math.ceil(perRun / SLICES);
  const captureStore = await openRuns({}, RUNS);
  const grouped = await openRuns({}, RUNS);
  const perStep = await openRuns({ groupCommit: false }, RUNS);
  const same = await bareLike(captureStore.store.path, 'FULL');
  const ceiling = await bareLike(captureStore.store.path, 'OFF');
  const sameReplay = replayer(same);
  const ceilingReplay = replayer(ceiling);
  const times = { grouped: 0, perStep: 0, same: 0, ceiling: 0 };
  const cpu = { grouped: 0, perStep: 0, same: 0, ceiling: 0 };
  const measure = async (side, fn) => {
    const start = performance.now();
    const startCpu = cpuNow();
    await fn();
    times[side] += performance.now() - start;
    cpu[side] += cpuNow() - startCpu;
  };
  let statementsPerStep = 0;
  let rolls = 0;
  for (let slice = 0; slice < SLICES; slice++) {
    const from = slice * sliceSize;
    const to = Math.min(perRun, from + sliceSize);
    if (from >= to) break;
    // untimed: the statements of this slice's appends, from the same workload on the capture store
    capture(true);
    await record(captureStore.active, from, to);
    capture(false);
    const appends = captured.splice(0);
    const appendCount = appends.filter((entry) => !entry.roll).length;
    if (appendCount !== (to - from) * RUNS) throw new Error(`captured ${appendCount} appends, expected ${(to - from) * RUNS}`);
    statementsPerStep = appends.find((entry) => !entry.roll).ops.length;
    rolls += appends.length - appendCount;
    const sameOps = sameReplay.prepare(appends);
    const ceilingOps = ceilingReplay.prepare(appends);
    const sides = [
      ['grouped', () => record(grouped.active, from, to)],
      ['perStep', () => record(perStep.active, from, to)],
      ['same', () => sameReplay.run(sameOps)],
      ['ceiling', () => ceilingReplay.run(ceilingOps)],
    ];
    // a different side first in each slice, so that none always runs right after the capture
    for (let k = 0; k < sides.length; k++) {
      const [side, fn] = sides[(slice + k) % sides.length];
      await measure(side, fn);
    }
  }
  for (const { store, active } of [captureStore, grouped, perStep]) {
    for (const run of active) await run.complete();
    await store.close();
  }
  const prints = [captureStore, grouped, perStep].map(({ store }) => {
    const check = new Database(store.path, { readonly: true });
    const print = fingerprint(check);
    check.close();
    return print;
  });
  const oursPrint = prints[1];
  const identical = prints.every((print) => print === oursPrint) && oursPrint === fingerprint(same) && oursPrint === fingerprint(ceiling);
  const stored = oursPrint.startsWith(`${total},`) && gapFree(grouped.store.path) && gapFree(perStep.store.path);
  same.close();
  ceiling.close();
  const rate = (side) => total / (times[side] / 1000);
  const concurrentRatio = rate('grouped') / rate('same');

  // --- where the grouped path's time goes: an instrumented pass (not in the table above) timing
  // each batch's COMMIT — the log pages written and fsynced, on the main thread — against the rest
  const commitTime = { ms: 0, count: 0 };
  const originalRun = StatementProto.run;
  StatementProto.run = function (...args) {
    if (this.source !== 'COMMIT') return originalRun.apply(this, args);
    const start = performance.now();
    try {
      return originalRun.apply(this, args);
    } finally {
      commitTime.ms += performance.now() - start;
      commitTime.count++;
    }
  };
  const probed = await openRuns({}, RUNS);
  const probeSteps = sliceSize * RUNS;
  const probeStart = performance.now();
  await record(probed.active, 0, sliceSize);
  const probeMs = performance.now() - probeStart;
  StatementProto.run = originalRun;
  for (const run of probed.active) await run.complete();
  await probed.store.close();
  const commitUs = (commitTime.ms * 1000) / commitTime.count;
  const restUsPerStep = ((probeMs - commitTime.ms) * 1000) / probeSteps;
  const baselineUsPerStep = (times.same * 1000) / total;
  const todayRatio = rate('grouped') / rate('perStep');
  const ceilingRatio = rate('ceiling') / rate('same');

  // --- more runs at once: each batch holds up to one append per run, so one fsync serves more steps
  const wider = [];
  for (const runs of [32, 64]) {
    const { store, active } = await openRuns({}, runs);
    const each = Math.max(50, Math.floor(STEPS / 4 / runs));
    const start = performance.now();
    await Promise.all(
      active.map(async (run, r) => {
        for (let i = 0; i < each; i++) await run.trace.recordToolResult(call(i * runs + r));
      }),
    );
    const ms = performance.now() - start;
    for (const run of active) await run.complete();
    await store.close();
    wider.push({ runs, steps: each * runs, rate: (each * runs) / (ms / 1000), ok: gapFree(store.path) });
    rmSync(store.path, { force: true });
  }

  // --- one run alone ---------------------------------------------------------------------------
  const single = { grouped: 0, perStep: 0 };
  const alone = { grouped: await openRuns({}, 1), perStep: await openRuns({ groupCommit: false }, 1) };
  const singleSteps = STEPS;
  const singleSlice = Math.ceil(singleSteps / (2 * SLICES));
  for (let slice = 0; slice < 2 * SLICES; slice++) {
    const from = slice * singleSlice;
    const to = Math.min(singleSteps, from + singleSlice);
    if (from >= to) break;
    const order = slice % 2 === 0 ? ['grouped', 'perStep'] : ['perStep', 'grouped'];
    for (const side of order) {
      const run = alone[side].active[0];
      const start = performance.now();
      for (let i = from; i < to; i++) await run.trace.recordToolResult(call(i));
      single[side] += performance.now() - start;
    }
  }
  for (const { store, active } of Object.values(alone)) {
    await active[0].complete();
    await store.close();
  }
  const singleRatio = single.grouped / single.perStep;

  // --- per-step cost at 10× fewer, the default and 10× more steps (grouped, 16 runs) ------------
  const ROUNDS = 10;
  const sizes = [];
  for (const steps of SCALE ? [STEPS / 10, STEPS, STEPS * 10] : [STEPS / 10, STEPS]) {
    const perRunAt = Math.max(ROUNDS, Math.floor(steps / RUNS / ROUNDS) * ROUNDS);
    sizes.push({ ...(await openRuns({}, RUNS)), steps: perRunAt * RUNS, chunk: perRunAt / ROUNDS, ms: 0 });
  }
  // every size gets a chunk in every round, so that machine load hits them alike
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < sizes.length; k++) {
      const size = sizes[(round + k) % sizes.length];
      const start = performance.now();
      await record(size.active, round * size.chunk, (round + 1) * size.chunk);
      size.ms += performance.now() - start;
    }
  }
  for (const size of sizes) {
    for (const run of size.active) await run.complete();
    await size.store.close();
    size.usPerStep = (size.ms * 1000) / size.steps;
    size.ok = gapFree(size.store.path);
    rmSync(size.store.path, { force: true });
  }
  const base = sizes[1];

  const row = (name, side) => [
    name,
    fmt(times[side] / 1000, 2),
    fmt((times[side] * 1000) / total, 1),
    fmt(rate(side), 0),
    fmt((cpu[side] * 1000) / total, 1),
    fmt(rate(side) / rate('same'), 2),
  ];
  const growth = sizes.map((size) => [size.steps.toLocaleString('en'), fmt(size.usPerStep, 1), fmt(size.usPerStep / base.usPerStep, 2)]);
  const larger = sizes[2];
  const smaller = sizes[0];
  console.log(`## store-sqlite: group commit, ${RUNS} concurrent runs and one run alone

${RUNS} runs started with \`startRun\` in one process record ${total.toLocaleString('en')} tool steps in all (${perRun.toLocaleString('en')} each, all runs at once, each run awaiting its append before the next) through \`RunTrace.recordToolResult\` → \`SqliteRunStore.appendStep\` with group commit (the default): the appends that arrive in one turn of the event loop share one \`BEGIN IMMEDIATE … COMMIT\` (one WAL fsync, \`synchronous = FULL\`), each in its own savepoint, each resolving only after that commit. Baseline, bare better-sqlite3 with one commit per step: the ${statementsPerStep} statements and values a grouped store ran inside each append (captured in an untimed pass of the same workload on a store of its own), replayed as prepared statements on a file of its own, one \`BEGIN IMMEDIATE … COMMIT\` per step, same pragmas — with the ${rolls} moves of pending calls into the health rollup the store made in that pass (one transaction each, every few thousand calls), replayed where they happened. Also: today's store path (\`groupCommit: false\`, ${RUNS} runs through RunTrace, one commit per step), and the same bare replay with \`synchronous = OFF\` — no fsync at all, the ceiling no grouping of these statements can pass. Interleaved in ${SLICES} slices (the capture pass, then the four paths, a different one first in each slice). Load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores; the machine is shared.

${table(
  ['path', 'total s', 'µs / step', 'steps / s', 'CPU µs / step', '× baseline'],
  [
    row(`RunTrace → SqliteRunStore, group commit, ${RUNS} runs`, 'grouped'),
    row(`RunTrace → SqliteRunStore, \`groupCommit: false\`, ${RUNS} runs`, 'perStep'),
    row('bare better-sqlite3, same statements, one commit per step (baseline)', 'same'),
    row('bare better-sqlite3, same statements, synchronous = OFF (ceiling, no fsync)', 'ceiling'),
  ],
)}

More runs at once, grouped (each batch holds at most one append per run, so one fsync serves more steps): ${wider
    .map(
      (w) =>
        `${w.runs} runs, ${w.steps.toLocaleString('en')} steps: ${fmt(w.rate, 0)} steps/s, ${fmt(w.rate / rate('same'), 2)}× the baseline${w.ok ? '' : ' (NOT gap-free)'}`,
    )
    .join('; ')}.

Where the grouped path's time goes (an instrumented pass of ${probeSteps.toLocaleString('en')} steps, ${RUNS} runs, not in the table): ${commitTime.count.toLocaleString('en')} commits, ${fmt(probeSteps / commitTime.count, 1)} steps each; a batch's \`COMMIT\` — its pages written to the log and fsynced, on the main thread — took ${fmt(commitUs, 0)} µs (${fmt((commitTime.ms * 1000) / probeSteps, 1)} µs per step), everything else ${fmt(restUsPerStep, 1)} µs per step (${fmt((probeMs * 1000) / probeSteps, 1)} in all). The baseline's one commit per step costs ${fmt(baselineUsPerStep, 1)} µs per step, so even with the commit's wait hidden entirely behind other work the grouped path could reach ${fmt(baselineUsPerStep / restUsPerStep, 2)}× the baseline; ${TARGET_CONCURRENT}× needs ${fmt(baselineUsPerStep / TARGET_CONCURRENT, 1)} µs per step in all. A batch's fsync costs more than one step's because it flushes more log: each run's steps are one range of the table, so the ${RUNS} appends of a batch write ${RUNS} different leaf pages (and the splits and rebalancing of those leaves), where one append alone writes one.

One run alone, ${singleSteps.toLocaleString('en')} steps, each awaited before the next, through RunTrace → SqliteRunStore, grouped and \`groupCommit: false\` in alternating slices: ${fmt((single.grouped * 1000) / singleSteps, 1)} µs / step grouped, ${fmt((single.perStep * 1000) / singleSteps, 1)} µs / step per-step.

Per-step cost of the grouped ${RUNS}-run path at 10× fewer${SCALE ? ', the default and 10× more' : ' and the default'} steps, each on a fresh file, interleaved in ${ROUNDS} rounds (each size records a tenth of its steps per round):

${table(['steps', 'µs / step', `× at ${base.steps.toLocaleString('en')}`], growth)}

- ${verdict(concurrentRatio >= TARGET_CONCURRENT && stored && identical, `${RUNS} concurrent runs: steps/s grouped ≥ ${TARGET_CONCURRENT}× one commit per step on the bare driver, same statements (got ${fmt(concurrentRatio, 2)}×; ${fmt(todayRatio, 2)}× today's store path; the no-fsync ceiling of these statements is ${fmt(ceilingRatio, 2)}×; every step stored, gap-free: ${stored ? 'yes' : 'NO'}; the bare files hold the same steps, counters and rollup: ${identical ? 'yes' : 'NO'})`)}
- ${verdict(singleRatio <= TARGET_SINGLE, `one run alone: grouped no more than ${TARGET_SINGLE}× slower per step than one commit per step (got ${fmt(singleRatio, 3)}×)`)}
- ${verdict(smaller.ok && smaller.usPerStep / base.usPerStep <= TARGET_FLAT && (larger === undefined || (larger.ok && larger.usPerStep / base.usPerStep <= TARGET_FLAT)), `per-step cost flat: µs/step at 10× fewer${larger === undefined ? '' : ' and 10× more'} steps within ${TARGET_FLAT}× of ${base.steps.toLocaleString('en')} (got ${fmt(smaller.usPerStep / base.usPerStep, 2)}×${larger === undefined ? '; 10× larger skipped (BENCH_SCALE=0)' : ` and ${fmt(larger.usPerStep / base.usPerStep, 2)}×`})`)}
`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
