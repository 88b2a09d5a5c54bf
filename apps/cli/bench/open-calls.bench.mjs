// Calls on the wire, on SQLite and PostgreSQL: what keeping `open_calls` costs an append, and what
// it saves the first view of a running run.
// 1. Append cost: 16 concurrent runs append calls as agents record them (a tool_start, then its
//    tool step, paired by toolCallId) against the same steps whose payloads name the call under
//    another key of the same length (so no store keeps them as calls), interleaved in slices.
// 2. The first view's read: readOpenCalls of a running run against what the app did before (read
//    the run whole and fold it with OpenCallSet), at 10 000 and 100 000 steps (growth).
// Env: BENCH_CALLS=300 (smoke run: calls per run in part 1), OPEN_CALLS_STORES=sqlite,postgres,
// RUNLEDGER_PG_URL.
import { mkdtempSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { PostgresRunStore } from '@runledger/store-postgres';
import { SqliteRunStore } from '@runledger/store-sqlite';
import { InMemoryRunStore, OpenCallSet } from '@runledger/trace';
import { BENCH_SERVERS, fmt, median, table, verdict } from '../../../bench/lib.mjs';

const CALLS = Number(process.env.BENCH_CALLS ?? 2_000);
const STORES = (process.env.OPEN_CALLS_STORES ?? 'sqlite,postgres').split(',');
const PG_URL = process.env.RUNLEDGER_PG_URL ?? 'postgres://root@127.0.0.1:5432/test';
const RUNS = 16;
const SLICES = 5;
const APPEND_TARGET = 1.15;
const READ_TARGET_MS = 10;
const GROWTH_LIMIT = 2;
const NOISE_MS = 0.05;
const T0 = Date.UTC(2026, 11, 1, 9, 0, 0);

/** Call `c` of a run as the recorder appends it: start and end, paired by `key` (toolCallId, or a key no store reads). */
function callSteps(c, key) {
  const server = BENCH_SERVERS[c % BENCH_SERVERS.length];
  const id = `call-${String(c).padStart(8, '0')}`;
  const outcome = c % 11 === 0 ? 'failed' : 'ok';
  const start = {
    kind: 'tool_start',
    round: Math.floor(c / 5),
    durationMs: 0,
    createdAt: T0 + c * 10,
    payload: { kind: 'tool_start', toolName: `mcp_${server}_search`, toolServer: server, toolArguments: { query: `q${c}` }, [key]: id },
    toolServer: server,
    toolOutcome: null,
  };
  const end = {
    kind: 'tool',
    round: Math.floor(c / 5),
    durationMs: 10 + (c % 300),
    createdAt: T0 + c * 10 + 5,
    payload: {
      kind: 'tool',
      toolName: `mcp_${server}_search`,
      toolServer: server,
      toolOutcome: outcome,
      toolIsError: outcome !== 'ok',
      [key]: id,
    },
    toolServer: server,
    toolOutcome: outcome,
  };
  return [start, end];
}

const dir = mkdtempSync(path.join(tmpdir(), 'runledger-bench-open-calls-'));
let files = 0;
const schemas = [];

async function openStore(name) {
  if (name === 'sqlite') return SqliteRunStore.open({ path: path.join(dir, `f${files++}.db`) });
  const schema = `rl_bench_open_${process.pid}_${files++}`;
  schemas.push(schema);
  return PostgresRunStore.connect({ connectionString: PG_URL, schema, poolSize: 8 });
}

/** Part 1 on one store kind: seconds per side, steps per side. */
async function appendCost(name) {
  const sides = { kept: { key: 'toolCallId' }, plain: { key: 'toolCallIx' } };
  for (const side of Object.values(sides)) {
    side.store = await openStore(name);
    side.runs = [];
    for (let r = 0; r < RUNS; r++) side.runs.push(await side.store.createRun({ configuration: `open-calls-${r}`, createdAt: T0 }));
    side.ms = 0;
  }
  const slice = Math.ceil(CALLS / SLICES);
  for (let s = 0; s < SLICES; s++) {
    const order = s % 2 === 0 ? ['kept', 'plain'] : ['plain', 'kept'];
    for (const which of order) {
      const side = sides[which];
      const started = performance.now();
      await Promise.all(
        side.runs.map(async (run) => {
          for (let c = s * slice; c < Math.min(CALLS, (s + 1) * slice); c++)
            for (const step of callSteps(c, side.key)) await side.store.appendStep(run.id, step);
        }),
      );
      side.ms += performance.now() - started;
    }
  }
  const open = (await sides.kept.store.readOpenCalls(sides.kept.runs[0].id)).starts.length;
  for (const side of Object.values(sides)) await side.store.close();
  const steps = RUNS * CALLS * 2;
  return { steps, keptPerS: steps / (sides.kept.ms / 1000), plainPerS: steps / (sides.plain.ms / 1000), open };
}

/** Part 2 on one store kind, a running run of `steps` steps with 3 calls on the wire: medians in ms. */
async function firstView(name, steps) {
  const source = InMemoryRunStore.create();
  const run = await source.createRun({ configuration: 'open-calls-live', createdAt: T0 });
  const calls = Math.floor(steps / 2);
  const left = new Set([7, Math.floor(calls / 2), calls - 1]);
  const all = [];
  for (let c = 0; c < calls; c++) {
    const [start, end] = callSteps(c, 'toolCallId');
    all.push(start);
    if (!left.has(c)) all.push(end);
  }
  for (const step of all) await source.appendStep(run.id, step);
  const store = await openStore(name);
  await store.importRun(await source.getRun(run.id), await source.readSteps(run.id));
  const read = async () => (await store.readOpenCalls(run.id)).starts.length;
  const whole = async () => {
    const fold = new OpenCallSet();
    for (const step of await store.readSteps(run.id)) fold.add(step, step);
    return fold.size;
  };
  if ((await read()) !== 3 || (await whole()) !== 3) throw new Error('the run should have 3 calls on the wire');
  const time = async (fn, n) => {
    const ms = [];
    for (let i = 0; i < n; i++) {
      const started = performance.now();
      await fn();
      ms.push(performance.now() - started);
    }
    return median(ms);
  };
  await time(read, 5);
  await time(whole, 2);
  const result = { steps: all.length, read: await time(read, 50), whole: await time(whole, steps > 20_000 ? 5 : 20) };
  await store.close();
  return result;
}

const label = { sqlite: 'SQLite', postgres: 'PostgreSQL' };
const rows1 = [];
const rows2 = [];
try {
  for (const name of STORES) {
    const cost = await appendCost(name);
    const ratio = cost.plainPerS / cost.keptPerS;
    const pass = ratio <= APPEND_TARGET;
    rows1.push([
      label[name],
      cost.steps.toLocaleString('en'),
      fmt(cost.keptPerS, 0),
      fmt(cost.plainPerS, 0),
      fmt(ratio, 3),
      pass ? 'PASS' : 'MISS',
    ]);
    const small = await firstView(name, 10_000);
    const large = await firstView(name, 100_000);
    const growth = large.read / small.read;
    // below NOISE_MS apart the two medians are the same figure (timer and scheduling noise)
    const readPass = large.read <= READ_TARGET_MS && (growth <= GROWTH_LIMIT || large.read - small.read < NOISE_MS);
    rows2.push([
      label[name],
      `${small.steps.toLocaleString('en')} → ${large.steps.toLocaleString('en')}`,
      `${fmt(small.read, 2)} → ${fmt(large.read, 2)}`,
      `${fmt(small.whole, 1)} → ${fmt(large.whole, 1)}`,
      fmt(large.whole / large.read, 0),
      fmt(growth, 2),
      readPass ? 'PASS' : 'MISS',
    ]);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
  if (schemas.length > 0) {
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  }
}

const load = os
  .loadavg()
  .map((l) => l.toFixed(2))
  .join(', ');
console.log(`## apps/cli: calls on the wire — what open_calls costs an append and saves a running run's first view

${RUNS} runs at once, each appending ${CALLS.toLocaleString('en')} calls as the recorder does (a \`tool_start\`, then its \`tool\` step, each append awaited), on a fresh store per side: **kept** — the steps pair by \`toolCallId\`, so the store keeps each call in \`open_calls\` while it is on the wire (an upsert at the start, a delete at the end); **plain** — the same steps with the id under another key of the same length, which no store reads as a call. Interleaved in ${SLICES} slices, a different side first in each. Then the first view of a running run (3 calls still on the wire; imported): \`readOpenCalls\` (median of 50) against what the app's first view did before it — the run read whole with \`readSteps\` and folded with \`OpenCallSet\` (median of 5–20), at 10 000 and 100 000 steps. Load average (1, 5, 15 min): ${load}; ${os.cpus().length} cores, shared.

${table(['store', 'steps appended per side', 'kept steps/s', 'plain steps/s', 'plain / kept', 'verdict'], rows1)}

Appends: ${verdict(
  rows1.every((row) => row[5] === 'PASS'),
  `keeping the calls costs at most ${APPEND_TARGET}× per step`,
)}

${table(['store', 'run steps', 'readOpenCalls ms', 'whole run + fold ms (before)', 'saved ×', 'growth at 10×', 'verdict'], rows2)}

First view: ${verdict(
  rows2.every((row) => row[6] === 'PASS'),
  `readOpenCalls ≤ ${READ_TARGET_MS} ms on a 100 000-step run, and within ${GROWTH_LIMIT}× (or ${NOISE_MS} ms) at 10× the steps (it costs the open calls, not the run)`,
)}
`);
