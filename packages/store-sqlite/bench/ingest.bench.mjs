// Ingest: 100 000 tool steps through RunTrace → SqliteRunStore, against the bare driver writing
// the same rows with the same statements the same way: every statement the store runs inside an
// append (run counter, step insert, the call noted as pending) is captured with its values and replayed by
// better-sqlite3 on a second file — same SQL text as prepared statements, one
// BEGIN IMMEDIATE … COMMIT per step, the same pragmas (WAL, synchronous = FULL, 4 MiB page cache).
// A bare INSERT of the step row alone (no counters, no rollup) is measured too, for reference.
// The three run interleaved in slices so machine load hits them alike.
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
const SLICES = 10;
const TARGET = 0.75;

/** The pragmas SqliteRunStore.open sets on its connection, set on the bare connections too. */
function barePragmas(db) {
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('cache_size = -4096');
}

// Capture every statement execution on the store's connection (SQL text and bound values). Only
// what runs between its BEGIN IMMEDIATE and COMMIT is an append; the cancel poll is not; nor is a
// savepoint group commit puts around an append that shares its batch (none here: one run awaiting
// each append makes batches of one). A transaction that moves the pending calls into the health
// rollup (every few thousand calls) is captured too and replayed where it ran. The
// wrappers are installed only while ours runs (then only the store's connection runs
// statements), so the bare paths call the driver's own methods.
const StatementProto = statementPrototype();
const METHODS = ['run', 'get', 'all', 'iterate'];
const original = Object.fromEntries(METHODS.map((method) => [method, StatementProto[method]]));
const captured = []; // per append: [[statement, method, args], …]
let current = null;
const wrappers = Object.fromEntries(
  METHODS.map((method) => [
    method,
    function (...args) {
      const sql = this.source;
      if (sql === 'BEGIN IMMEDIATE') current = [];
      else if (sql.startsWith('SAVEPOINT') || sql.startsWith('RELEASE')) {
        // group commit's savepoint around the append, not one of its statements
      } else if (sql === 'COMMIT') {
        if (current !== null) captured.push(current);
        current = null;
      } else if (current !== null) current.push([this, method, args.map((arg) => (Array.isArray(arg) ? [...arg] : arg))]);
      return original[method].apply(this, args);
    },
  ]),
);
const capture = (on) => {
  for (const method of METHODS) StatementProto[method] = on ? wrappers[method] : original[method];
};

const dir = mkdtempSync(path.join(tmpdir(), 'runledger-bench-ingest-'));
try {
  // ours: the store and a run started the way an agent starts one
  const oursPath = path.join(dir, 'ours.db');
  const store = await SqliteRunStore.open({ path: oursPath });
  const active = await startRun(store, { configuration: 'bench', heartbeatMs: 0 });
  // bare files: the same schema (made by the store), the run row ours has (same id and run number)
  const openBare = async (name) => {
    const file = path.join(dir, name);
    await (await SqliteRunStore.open({ path: file })).close();
    const db = new Database(file);
    barePragmas(db);
    const src = new Database(oursPath, { readonly: true });
    const runRow = src.prepare('SELECT id, run_no, created_at, started_at FROM runs WHERE id = ?').get(active.id);
    src.close();
    db.prepare("INSERT INTO runs (id, status, configuration, created_at, started_at, run_no) VALUES (?, 'running', 'bench', ?, ?, ?)").run(
      runRow.id,
      runRow.created_at,
      runRow.started_at,
      runRow.run_no,
    );
    return db;
  };
  const same = await openBare('same.db');
  const plain = await openBare('plain.db');

  // same statements: each statement of the store prepared once on the bare connection
  const bareStatements = new Map();
  const bareStatement = (statement) => {
    let bare = bareStatements.get(statement);
    if (bare === undefined) {
      bare = same.prepare(statement.source);
      if (bare.reader) bare.raw(); // arrays: the cheapest way to read a RETURNING row
      bareStatements.set(statement, bare);
    }
    return bare;
  };
  const replay = same.transaction((ops) => {
    for (let k = 0; k < ops.length; k++) {
      const op = ops[k];
      const result = op[0][op[1]](...op[2]);
      if (op[1] === 'iterate') for (const _ of result); // read every row, as the store does
    }
  }).immediate;

  // step row only, for reference
  const plainInsert = plain.prepare(
    'INSERT INTO steps (id, run_id, sequence, kind, round, duration_ms, created_at, payload, tool_server, tool_outcome, call_server, call_outcome, call_cause) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const appendPlain = plain.transaction((args) => plainInsert.run(...args)).immediate;

  const call = (i) => ingestToolCall(i, ToolResult);

  const times = { ours: 0, same: 0, plain: 0 };
  const cpu = { ours: 0, same: 0, plain: 0 };
  const cpuNow = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const measure = async (side, fn) => {
    const start = performance.now();
    const startCpu = cpuNow();
    await fn();
    times[side] += performance.now() - start;
    cpu[side] += cpuNow() - startCpu;
  };
  const perSlice = STEPS / SLICES;
  let statementsPerStep = 0;
  let moves = 0;
  for (let slice = 0; slice < SLICES; slice++) {
    const from = slice * perSlice;
    capture(true);
    const first = captured.length;
    await measure('ours', async () => {
      for (let i = from; i < from + perSlice; i++) await active.trace.recordToolResult(call(i));
    });
    capture(false);
    const transactions = captured.slice(first);
    const isMove = (list) => list.some(([statement]) => statement.source.includes('FROM health_pending'));
    const appends = transactions.filter((list) => !isMove(list));
    moves += transactions.length - appends.length;
    if (appends.length !== perSlice) throw new Error(`captured ${appends.length} appends, expected ${perSlice}`);
    // outside the timed loops: the bare statements (moves of pending calls where they ran) and the step rows' values
    const ops = transactions.map((list) => list.map(([statement, method, args]) => [bareStatement(statement), method, args]));
    statementsPerStep = appends[0].length;
    const stepRows = appends.map((list) => {
      const insert = list.find(([statement]) => statement.source.startsWith('INSERT INTO steps'));
      const [runNo, sequence, ...rest] = insert[2];
      return [runNo * 2 ** 32 + sequence, ...rest];
    });
    captured.length = 0;

    // the two bare paths in alternating order, so that neither always runs right after ours
    const bareSides = [
      [
        'same',
        () => {
          for (let k = 0; k < ops.length; k++) replay(ops[k]);
        },
      ],
      [
        'plain',
        () => {
          for (let k = 0; k < stepRows.length; k++) appendPlain(stepRows[k]);
        },
      ],
    ];
    if (slice % 2 === 1) bareSides.reverse();
    for (const [side, fn] of bareSides) await measure(side, fn);
  }
  await active.complete();
  const stored = await store.getRun(active.id);
  await store.close();

  // the files hold the same rows: ours and "same statements" alike, "step only" the same steps
  const check = new Database(oursPath, { readonly: true });
  const fingerprint = (db) => [
    db.prepare('SELECT count(*), sum(length(payload)), sum(id), sum(duration_ms) FROM steps').raw().get().join(','),
    db.prepare('SELECT step_count, ok_count, failed_count, cancelled_count FROM runs').raw().get().join(','),
    // every call once: in the rollup (its minute level) or still pending for it
    db
      .prepare(
        `SELECT (SELECT coalesce(sum(ok), 0) FROM health_rollup WHERE level = 0) + (SELECT count(*) FROM health_pending WHERE outcome = 'ok'),
                (SELECT coalesce(sum(failed), 0) FROM health_rollup WHERE level = 0) + (SELECT count(*) FROM health_pending WHERE outcome = 'failed')`,
      )
      .raw()
      .get()
      .join(','),
  ];
  const [oursSteps, oursRun, oursRollup] = fingerprint(check);
  const [sameSteps, sameRun, sameRollup] = fingerprint(same);
  const [plainSteps] = fingerprint(plain);
  check.close();
  same.close();
  plain.close();
  const counted = stored.stepCount === STEPS && oursSteps.startsWith(`${STEPS},`);
  const identical = oursSteps === sameSteps && oursRollup === sameRollup && oursSteps === plainSteps && sameRun === oursRun;

  const ratio = times.same / times.ours;
  const row = (name, side) => [
    name,
    fmt(times[side] / 1000, 2),
    fmt((times[side] * 1000) / STEPS, 1),
    fmt(STEPS / (times[side] / 1000), 0),
    fmt((cpu[side] * 1000) / STEPS, 1),
  ];
  console.log(`## store-sqlite: ingest ${STEPS.toLocaleString('en')} tool steps

Transaction policy, every path: one \`BEGIN IMMEDIATE … COMMIT\` per step, WAL, \`synchronous = FULL\` (the WAL is fsynced at every commit, so a step is durable — across a killed process and a power cut — when \`appendStep\` resolves), 4 MiB page cache. Ours (group commit on, the default; with one run awaiting each append, every batch holds one step): \`RunTrace.recordToolResult\` (step built, privacy filter \`metadata\`, payload serialised) → \`appendStep\` (validation, sequence from the run row under the write lock, step row, run counters, the call noted as pending for the health rollup; every 4,096 calls one more transaction moves the pending calls into the rollup). Bare, same statements: better-sqlite3 replaying on its own file, as prepared statements, exactly the ${statementsPerStep} statements and values the store ran inside each append, and the ${moves} moves of pending calls where they ran (captured while ours ran; the capture's cost is counted against ours). Bare, step row only: one prepared INSERT of the same step row, no counters, no rollup — for reference, not the target. Interleaved in ${SLICES} slices of ${perSlice.toLocaleString('en')} (ours first — the bare paths replay what it wrote — then the two bare paths in alternating order). Load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores.

${table(
  ['path', 'total s', 'µs / step', 'steps / s', 'CPU µs / step'],
  [
    row('RunTrace → SqliteRunStore', 'ours'),
    row('bare better-sqlite3, same statements', 'same'),
    row('bare better-sqlite3, step row only (reference)', 'plain'),
  ],
)}

For reference, ours / the step row alone: ${fmt(times.plain / times.ours, 3)} — the price of gap-free sequences from the run row, outcome counters and the call noted for the health rollup in the same transaction (more pages to the WAL and its fsync per step), and of moving it into the rollup later.

- ${verdict(ratio >= TARGET && counted && identical, `throughput ratio ours / bare (same statements) ≥ ${TARGET} (got ${fmt(ratio, 3)}; all ${STEPS.toLocaleString('en')} steps stored: ${counted ? 'yes' : 'NO'}; the bare files hold the same steps, counters and rollup: ${identical ? 'yes' : 'NO'})`)}
`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
