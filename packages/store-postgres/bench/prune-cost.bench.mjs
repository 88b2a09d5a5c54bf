// Retention: PostgresRunStore.pruneRuns deleting 100 000 steps of old runs (the store's default
// batches: at most 500 steps a transaction, the rollup kept per batch) against a bare one-statement DELETE of the same runs in a copy of the
// same schema (one transaction, steps by cascade, the rollup left stale), and the latency of
// appends of the same servers (into the current minute, as a recorder appends) while the prune
// runs against appends alone.
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { BENCH_SERVERS, fmt, percentile, table, verdict } from '../../../bench/lib.mjs';
import { PostgresRunStore } from '../dist/index.js';

const URL = process.env.RUNLEDGER_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const RUNS = 200;
const STEPS_PER_RUN = 500;
const WRITERS = 8;
const tag = `${process.pid}`;
const OURS = `rl_bench_prune_ours_${tag}`;
const BARE = `rl_bench_prune_bare_${tag}`;
const NOW = Date.now();
const DAY = 86_400_000;
const CUTOFF = NOW - 30 * DAY;

const admin = new pg.Client({ connectionString: URL });
await admin.connect();

function stepsOf(id, start, n, seed) {
  return Array.from({ length: n }, (_, i) => {
    const server = BENCH_SERVERS[i % BENCH_SERVERS.length];
    const outcome = i % 11 === 0 ? 'failed' : 'ok';
    const payload = { kind: 'tool', toolServer: server, toolOutcome: outcome, toolIsError: outcome === 'failed' };
    return {
      runId: id,
      sequence: i,
      kind: 'tool',
      round: 0,
      // hundredths of a ms, as recorded, spread per run: a bucket's least and greatest are one call each
      durationMs: 1 + (((i + 1) * 7919 + seed * 104_729) % 200_000) / 100,
      createdAt: start + i * 1000,
      payload: JSON.stringify(payload),
      toolServer: server,
      toolOutcome: outcome,
    };
  });
}

function runOf(id, createdAt, finishedAt) {
  return {
    id,
    status: finishedAt === null ? 'running' : 'completed',
    configuration: 'bench',
    actor: null,
    createdAt,
    startedAt: createdAt,
    finishedAt,
    terminationReason: null,
    cancelRequestedAt: null,
    heartbeatAt: null,
    stepCount: 0,
    outcomeCounts: { ok: 0, failed: 0, cancelled: 0 },
    unstoredSteps: 0,
  };
}

/** Appends by WRITERS runs, one at a time each, until `until()`; returns each append's ms. */
async function appendLoad(store, running, until) {
  const times = [];
  await Promise.all(
    running.map(async (id, w) => {
      for (let i = 0; !until(); i++) {
        const server = BENCH_SERVERS[(i + w) % BENCH_SERVERS.length];
        const start = performance.now();
        await store.appendStep(id, {
          kind: 'tool',
          round: 0,
          durationMs: 3,
          createdAt: Date.now(),
          payload: { kind: 'tool', toolServer: server, toolOutcome: 'ok' },
          toolServer: server,
          toolOutcome: 'ok',
        });
        times.push(performance.now() - start);
      }
    }),
  );
  return times;
}

let store;
try {
  store = await PostgresRunStore.connect({ connectionString: URL, schema: OURS, poolSize: WRITERS + 2 });
  await (await PostgresRunStore.connect({ connectionString: URL, schema: BARE })).close();
  // old runs 40 days back, 10 minutes of calls
  for (let r = 0; r < RUNS; r++) {
    const id = randomUUID();
    const start = CUTOFF - 40 * DAY + r * 431;
    await store.importRun(runOf(id, start, start + STEPS_PER_RUN * 1000), stepsOf(id, start, STEPS_PER_RUN, r));
  }
  const running = [];
  for (let w = 0; w < WRITERS; w++) {
    const id = randomUUID();
    await store.importRun(runOf(id, CUTOFF - 41 * DAY, null), []);
    running.push(id);
  }
  for (const table_ of ['runs', 'steps', 'health_rollup', 'health_causes']) {
    await admin.query(`INSERT INTO "${BARE}".${table_} SELECT * FROM "${OURS}".${table_}`);
  }
  await admin.query(`ANALYZE "${OURS}".runs; ANALYZE "${OURS}".steps; ANALYZE "${BARE}".runs; ANALYZE "${BARE}".steps`);

  // appends alone, for as long as the prune will about take (measured below; 3 s first)
  let stop = performance.now() + 3000;
  const idle = await appendLoad(store, running, () => performance.now() > stop);

  // the prune, with the same appends going on
  let pruning = true;
  const during = appendLoad(store, running, () => !pruning);
  let start = performance.now();
  const result = await store.pruneRuns({ olderThan: CUTOFF });
  const oursMs = performance.now() - start;
  pruning = false;
  const busy = await during;
  if (result.runs !== RUNS || result.steps !== RUNS * STEPS_PER_RUN) throw new Error(`pruned ${result.runs} runs, ${result.steps} steps`);

  start = performance.now();
  await admin.query(`DELETE FROM "${BARE}".runs WHERE status <> 'running' AND finished_at < $1`, [CUTOFF]);
  const bareMs = performance.now() - start;

  const ratio = oursMs / bareMs;
  const p = (values, q) => percentile(values, q);
  const p99Ratio = p(busy, 99) / p(idle, 99);
  const load = loadavg().map((x) => fmt(x, 2));
  const lines = [
    `## store-postgres: prune ${(RUNS * STEPS_PER_RUN).toLocaleString('en-US')} steps of ${RUNS} old runs`,
    '',
    `${RUNS} runs of ${STEPS_PER_RUN} tool steps (${BENCH_SERVERS.length} servers) that ended before the cutoff, deleted by ` +
      "`pruneRuns({ olderThan })` (the store's default batches, at most 500 steps a transaction: one run per transaction, locking it, deleting its steps and row " +
      'and taking their calls out of the rollup), against a bare `DELETE FROM runs WHERE …` of the same runs in a ' +
      'copy of the schema (one transaction, steps by cascade, rollup not maintained). Meanwhile ' +
      `${WRITERS} writers append calls of the same servers (at the current time, as recorders do), one append at a time each; their latency is compared with ` +
      `the same appends alone for 3 s before. Load average (1, 5, 15 min): ${load.join(', ')}.`,
    '',
    table(
      ['measure', 'value'],
      [
        ['pruneRuns, total s', fmt(oursMs / 1000, 2)],
        ['bare DELETE (one transaction), total s', fmt(bareMs / 1000, 2)],
        ['pruneRuns batches', String(result.batches)],
        ['appends alone: count, p50 ms, p99 ms', `${idle.length}, ${fmt(p(idle, 50), 2)}, ${fmt(p(idle, 99), 2)}`],
        ['appends during the prune: count, p50 ms, p99 ms', `${busy.length}, ${fmt(p(busy, 50), 2)}, ${fmt(p(busy, 99), 2)}`],
      ],
    ),
    '',
    `Ratio pruneRuns / bare DELETE: ${fmt(ratio, 2)} — ${verdict(ratio <= 10, '≤ 10 (the rollup kept exact and short transactions cost at most 10×)')}`,
    '',
    `Ratio append p99 during / alone: ${fmt(p99Ratio, 2)} (informative: 8 writers, a 3 s baseline; the recorders' target is store-postgres/prune.bench.mjs)`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  stop = 0;
} finally {
  await store?.close().catch(() => undefined);
  for (const schema of [OURS, BARE]) await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.end();
}
