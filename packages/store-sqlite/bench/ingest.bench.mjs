// Ingest: 100 000 tool steps through RunTrace → SqliteRunStore, against the bare driver inserting
// the same rows the same way (one prepared INSERT, one BEGIN IMMEDIATE … COMMIT per step, WAL,
// synchronous = FULL). The two run interleaved in slices so machine load hits both alike.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { ToolResult } from '@runledger/core';
import { startRun } from '@runledger/trace';
import Database from 'better-sqlite3';
import { fmt, table, verdict } from '../../../bench/lib.mjs';
import { SqliteRunStore } from '../dist/index.js';

const STEPS = Number(process.env.BENCH_STEPS ?? 100_000);
const SLICES = 10;
const TARGET = 0.75;
const SERVERS = Array.from({ length: 20 }, (_, i) => `server${i}`);

const dir = mkdtempSync(path.join(tmpdir(), 'runledger-bench-ingest-'));
try {
  // ours: the store and a run started the way an agent starts one
  const store = await SqliteRunStore.open({ path: path.join(dir, 'ours.db') });
  const active = await startRun(store, { configuration: 'bench', heartbeatMs: 0 });
  const payloads = [];

  // bare: the same schema (opened once by the store), the same rows, no RunTrace, no counters, no rollup
  const barePath = path.join(dir, 'bare.db');
  await (await SqliteRunStore.open({ path: barePath })).close();
  const bare = new Database(barePath);
  bare.pragma('journal_mode = WAL');
  bare.pragma('synchronous = FULL');
  const bareRun = randomUUID();
  bare.prepare("INSERT INTO runs (id, status, configuration, created_at, started_at) VALUES (?, 'running', 'bench', ?, ?)").run(bareRun, Date.now(), Date.now());
  const insert = bare.prepare(
    'INSERT INTO steps (run_id, sequence, kind, round, duration_ms, created_at, payload, tool_server, tool_outcome, call_server, call_outcome) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const appendBare = bare.transaction((sequence, step) => {
    insert.run(bareRun, sequence, step.kind, step.round, step.durationMs, step.createdAt, step.payload, step.toolServer, step.toolOutcome, step.toolServer, step.toolOutcome);
  }).immediate;

  const call = (i) => {
    const server = SERVERS[i % SERVERS.length];
    const failed = i % 11 === 0;
    return {
      toolName: `mcp_${server}_search`,
      toolServer: server,
      toolArguments: { query: `q${i}`, limit: 10 },
      result: failed ? ToolResult.error(`upstream said no to ${i}`) : ToolResult.text(`found ${i % 7} items`),
      round: Math.floor(i / 5),
      durationMs: 10 + (i % 300),
    };
  };

  let oursMs = 0;
  let bareMs = 0;
  let oursCpu = 0;
  let bareCpu = 0;
  const cpuNow = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const perSlice = STEPS / SLICES;
  for (let slice = 0; slice < SLICES; slice++) {
    const from = slice * perSlice;
    let start = performance.now();
    let cpu = cpuNow();
    for (let i = from; i < from + perSlice; i++) {
      await active.trace.recordToolResult(call(i));
    }
    oursMs += performance.now() - start;
    oursCpu += cpuNow() - cpu;
    // the rows ours wrote, prepared outside the timed loop, for the bare driver to write again
    const rows = await store.readSteps(active.id, { fromSequence: from, limit: perSlice });
    start = performance.now();
    cpu = cpuNow();
    for (const row of rows) appendBare(row.sequence, row);
    bareMs += performance.now() - start;
    bareCpu += cpuNow() - cpu;
    payloads.push(rows.length);
  }
  await active.complete();
  const stored = await store.getRun(active.id);
  await store.close();
  const bareCount = bare.prepare('SELECT count(*) FROM steps').pluck().get();
  bare.close();

  const ratio = bareMs / oursMs;
  const ok = stored.stepCount === STEPS && bareCount === STEPS;
  console.log(`## store-sqlite: ingest ${STEPS.toLocaleString('en')} tool steps

Transaction policy, both sides: one \`BEGIN IMMEDIATE … COMMIT\` per step, WAL, \`synchronous = FULL\` (the WAL is fsynced at every commit, so a step is durable — across a killed process and a power cut — when \`appendStep\` resolves). Ours: \`RunTrace.recordToolResult\` (step built, privacy filter \`metadata\`, payload serialised) → \`appendStep\` (validation, sequence from the run row under the write lock, step row, run counters, 4-level health rollup). Bare: better-sqlite3 inserting the same step rows (same payload text, same columns) with one prepared statement. Interleaved in ${SLICES} slices of ${perSlice.toLocaleString('en')}. Load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores.

${table(
  ['path', 'total s', 'µs / step', 'steps / s', 'CPU µs / step'],
  [
    ['RunTrace → SqliteRunStore', fmt(oursMs / 1000, 2), fmt((oursMs * 1000) / STEPS, 1), fmt(STEPS / (oursMs / 1000), 0), fmt((oursCpu * 1000) / STEPS, 1)],
    ['bare better-sqlite3', fmt(bareMs / 1000, 2), fmt((bareMs * 1000) / STEPS, 1), fmt(STEPS / (bareMs / 1000), 0), fmt((bareCpu * 1000) / STEPS, 1)],
  ],
)}

Per step, ours also writes the run's counters and four rollup rows (minute, hour, day, 32 days) in the same transaction: more pages go to the WAL and its fsync than for the bare step row alone.

- ${verdict(ratio >= TARGET && ok, `throughput ratio ours / bare ≥ ${TARGET} (got ${fmt(ratio, 3)}; all ${STEPS.toLocaleString('en')} steps stored on both sides: ${ok ? 'yes' : 'NO'})`)}
`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
