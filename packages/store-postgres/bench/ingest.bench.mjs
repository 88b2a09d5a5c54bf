// Ingest: 100 000 tool steps through RunTrace → PostgresRunStore, against the bare pg driver
// running the SAME statement with the same rows and the same transaction policy, and (for
// reference) against a bare INSERT of the step row alone.
// Transaction policy (all three): one transaction per step — a single statement in autocommit,
// committed with PostgreSQL's synchronous_commit = on — so a step is on disk when its append
// resolves. 16 runs are written concurrently (16 connections; PostgreSQL's group commit batches
// their WAL flushes). The parts run interleaved in slices so machine load hits them alike.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { ToolResult } from '@runledger/core';
import { startRun } from '@runledger/trace';
import pg from 'pg';
import { fmt, ingestToolCall, table, verdict } from '../../../bench/lib.mjs';
import { PostgresRunStore } from '../dist/index.js';

const URL = process.env.RUNLEDGER_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const STEPS = Number(process.env.BENCH_STEPS ?? 100_000);
const WRITERS = 16;
const SLICES = 5;
const TARGET = 0.75;
const tag = `${process.pid}`;
const OURS = `rl_bench_ingest_ours_${tag}`;
const SAME = `rl_bench_ingest_same_${tag}`;
const PLAIN = `rl_bench_ingest_plain_${tag}`;

const admin = new pg.Client({ connectionString: URL });
await admin.connect();

// Capture every append the store sends (statement text and values), to replay them bare.
const captured = new Map(); // run id → values[]
let appendText = null;
const originalQuery = pg.Client.prototype.query;
pg.Client.prototype.query = function (config, ...rest) {
  if (config !== null && typeof config === 'object' && config.name === 'runledger_append_step') {
    appendText ??= config.text;
    const list = captured.get(config.values[0]);
    if (list === undefined) captured.set(config.values[0], [config.values]);
    else list.push(config.values);
  }
  return originalQuery.call(this, config, ...rest);
};

const stores = [];
try {
  // one transaction per step, the policy measured here (group commit: group-commit.bench.mjs)
  const store = await PostgresRunStore.connect({ connectionString: URL, schema: OURS, poolSize: WRITERS, groupCommit: false });
  stores.push(store);
  for (const schema of [SAME, PLAIN]) {
    const s = await PostgresRunStore.connect({ connectionString: URL, schema });
    await s.close();
  }
  const bare = new pg.Pool({ connectionString: URL, max: WRITERS, options: '-c max_parallel_workers_per_gather=0' });
  const bareRuns = async (schema) => {
    const ids = Array.from({ length: WRITERS }, () => randomUUID());
    await bare.query(
      `INSERT INTO "${schema}".runs (id, status, configuration, created_at, started_at) SELECT id, 'running', 'bench', $2, $2 FROM unnest($1::uuid[]) id`,
      [ids, Date.now()],
    );
    return ids;
  };
  const sameRuns = await bareRuns(SAME);
  const plainRuns = await bareRuns(PLAIN);
  const plainSequence = new Map(plainRuns.map((id) => [id, 0]));
  const plainText = `INSERT INTO "${PLAIN}".steps (run_id, sequence, kind, round, duration_ms, created_at, payload, tool_server, tool_outcome, call_server, call_outcome)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`;

  const active = await Promise.all(Array.from({ length: WRITERS }, () => startRun(store, { configuration: 'bench', heartbeatMs: 0 })));
  const call = (i) => ingestToolCall(i, ToolResult);

  const perWriterPerSlice = STEPS / WRITERS / SLICES;
  if (!Number.isInteger(perWriterPerSlice)) throw new Error(`BENCH_STEPS must be a multiple of ${WRITERS * SLICES}`);
  let oursMs = 0;
  let sameMs = 0;
  let plainMs = 0;
  for (let slice = 0; slice < SLICES; slice++) {
    // ours: RunTrace.recordToolResult → onRecord → store.appendStep, one run per writer
    let start = performance.now();
    await Promise.all(
      active.map(async (run, w) => {
        for (let k = 0; k < perWriterPerSlice; k++) {
          await run.trace.recordToolResult(call((slice * perWriterPerSlice + k) * WRITERS + w));
        }
      }),
    );
    oursMs += performance.now() - start;
    if (appendText === null) throw new Error('the append statement was not captured');

    // bare, same statement: the captured values of this slice, replayed on the bare pool
    const sameText = appendText.replaceAll(`"${OURS}".`, `"${SAME}".`);
    start = performance.now();
    await Promise.all(
      active.map(async (run, w) => {
        const values = captured.get(run.id);
        for (let k = slice * perWriterPerSlice; k < (slice + 1) * perWriterPerSlice; k++) {
          const v = values[k].slice();
          v[0] = sameRuns[w];
          await bare.query({ name: 'bare_append_step', text: sameText, values: v });
        }
      }),
    );
    sameMs += performance.now() - start;

    // bare, step row only (no counters, no rollup): for reference
    start = performance.now();
    await Promise.all(
      active.map(async (run, w) => {
        const values = captured.get(run.id);
        const runId = plainRuns[w];
        for (let k = slice * perWriterPerSlice; k < (slice + 1) * perWriterPerSlice; k++) {
          const v = values[k];
          const sequence = plainSequence.get(runId);
          plainSequence.set(runId, sequence + 1);
          await bare.query({
            name: 'bare_plain_step',
            text: plainText,
            values: [runId, sequence, v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[9], v[8]],
          });
        }
      }),
    );
    plainMs += performance.now() - start;
  }
  await Promise.all(active.map((run) => run.complete()));
  pg.Client.prototype.query = originalQuery;

  // the three stores hold the same rows
  const counts = [];
  for (const schema of [OURS, SAME, PLAIN]) {
    counts.push((await admin.query(`SELECT count(*)::int AS n FROM "${schema}".steps`)).rows[0].n);
  }
  if (counts.some((n) => n !== STEPS)) throw new Error(`step counts differ: ${counts.join(', ')}`);
  await bare.end();

  const rate = (ms) => (STEPS / ms) * 1000;
  const ratio = sameMs / oursMs;
  const lines = [
    `## store-postgres: ingest ${STEPS.toLocaleString('en-US')} tool steps`,
    '',
    `${STEPS.toLocaleString('en-US')} tool steps over ${WRITERS} concurrent runs (${WRITERS} connections), interleaved in ${SLICES} slices. ` +
      'Transaction policy everywhere: one single-statement transaction per step, synchronous_commit = on ' +
      '(a step is durable when its append resolves; concurrent commits share WAL flushes). ' +
      '"same statement" replays the exact statement text and values the store sent (run counter, step insert, ' +
      'the call noted as pending for the health rollup), through the bare pg driver as a named prepared statement; ' +
      'ours also moves the pending calls into the rollup every 4,096 calls (one statement each), which the replay does not.',
    '',
    table(
      ['path', 'total s', 'steps/s', 'µs/step'],
      [
        ['RunTrace → PostgresRunStore (ours)', fmt(oursMs / 1000, 2), fmt(rate(oursMs), 0), fmt((oursMs * 1000) / STEPS, 1)],
        ['bare pg, same statement', fmt(sameMs / 1000, 2), fmt(rate(sameMs), 0), fmt((sameMs * 1000) / STEPS, 1)],
        ['bare pg, step INSERT only (reference)', fmt(plainMs / 1000, 2), fmt(rate(plainMs), 0), fmt((plainMs * 1000) / STEPS, 1)],
      ],
    ),
    '',
    `Ratio ours / bare (same statement, same policy): ${fmt(ratio, 3)} — ${verdict(ratio >= TARGET, `≥ ${TARGET}`)}`,
    '',
    `For reference, ours / a bare step INSERT without counters and rollup: ${fmt(plainMs / oursMs, 3)} (the price of gap-free sequences from the run row, outcome counts and the call noted for the health rollup in the same transaction, and of moving it into the rollup later).`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  pg.Client.prototype.query = originalQuery;
  for (const store of stores) await store.close().catch(() => undefined);
  for (const schema of [OURS, SAME, PLAIN]) await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.end();
}
