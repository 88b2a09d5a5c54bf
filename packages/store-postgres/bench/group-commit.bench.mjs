// Group commit on PostgreSQL: 16 concurrent runs recording tool steps through RunTrace →
// PostgresRunStore with group commit (the default: appends of different runs that arrive while a
// batch is on its way share one statement and one commit) against the bare pg driver sending the
// store's own single-append statement, one transaction per step, with the same values (captured
// from the store's per-step path in the same slice); the store's per-step path (`groupCommit:
// false`) beside them; and one run alone, each append awaited, grouped against per-step. All three
// commit with synchronous_commit = on (a step is durable when its append resolves). Interleaved in
// slices. BENCH_STEPS=3200 for a smoke run.
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { ToolResult } from '@runledger/core';
import { startRun } from '@runledger/trace';
import pg from 'pg';
import { fmt, ingestToolCall, table, verdict } from '../../../bench/lib.mjs';
import { PostgresRunStore } from '../dist/index.js';
import { cpuSnapshot } from './databaseLoad.mjs';

const URL = process.env.RUNLEDGER_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const STEPS = Number(process.env.BENCH_STEPS ?? 64_000);
const RUNS = 16;
const SLICES = 5;
const TARGET_CONCURRENT = 5;
const TARGET_SINGLE = 1.2;
const tag = `${process.pid}`;
const GROUPED = `rl_bench_group_grouped_${tag}`;
const PER_STEP = `rl_bench_group_perstep_${tag}`;
const BARE = `rl_bench_group_bare_${tag}`;
const ALONE_GROUPED = `rl_bench_group_alone_g_${tag}`;
const ALONE_PER_STEP = `rl_bench_group_alone_p_${tag}`;
const SCHEMAS = [GROUPED, PER_STEP, BARE, ALONE_GROUPED, ALONE_PER_STEP];

const admin = new pg.Client({ connectionString: URL });
await admin.connect();

// Capture the single-append statements the per-step store sends (text and values), to replay them bare.
const captured = new Map(); // run id → values[]
let appendText = null;
let capturing = false;
const originalQuery = pg.Client.prototype.query;
pg.Client.prototype.query = function (config, ...rest) {
  if (capturing && config !== null && typeof config === 'object' && config.name === 'runledger_append_step') {
    appendText ??= config.text;
    const list = captured.get(config.values[0]);
    if (list === undefined) captured.set(config.values[0], [config.values]);
    else list.push(config.values);
  }
  return originalQuery.call(this, config, ...rest);
};

const call = (i) => ingestToolCall(i, ToolResult);
const stores = [];
const connect = async (schema, options) => {
  const store = await PostgresRunStore.connect({ connectionString: URL, schema, poolSize: RUNS, ...options });
  stores.push(store);
  return store;
};
const cpuNow = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

try {
  const grouped = await connect(GROUPED, {});
  const perStep = await connect(PER_STEP, { groupCommit: false });
  await (await connect(BARE, {})).close();
  const bare = new pg.Pool({ connectionString: URL, max: RUNS, options: '-c max_parallel_workers_per_gather=0' });
  const bareIds = Array.from({ length: RUNS }, () => randomUUID());
  await bare.query(
    `INSERT INTO "${BARE}".runs (id, status, configuration, created_at, started_at) SELECT id, 'running', 'bench', $2, $2 FROM unnest($1::uuid[]) id`,
    [bareIds, Date.now()],
  );
  const groupedRuns = await Promise.all(Array.from({ length: RUNS }, () => startRun(grouped, { configuration: 'bench', heartbeatMs: 0 })));
  const perStepRuns = await Promise.all(Array.from({ length: RUNS }, () => startRun(perStep, { configuration: 'bench', heartbeatMs: 0 })));

  const perRunPerSlice = STEPS / RUNS / SLICES;
  if (!Number.isInteger(perRunPerSlice)) throw new Error(`BENCH_STEPS must be a multiple of ${RUNS * SLICES}`);
  const times = { grouped: 0, perStep: 0, bare: 0 };
  const cpu = { grouped: 0, perStep: 0, bare: 0 };
  // CPU-seconds of every postgres process (the bench's backends and PostgreSQL's own: WAL writer, …)
  const serverCpu = { grouped: 0, perStep: 0, bare: 0 };
  const postgresCpu = () => [...cpuSnapshot([]).server.values()].reduce((sum, t) => sum + t.cpu, 0);
  const measure = async (side, fn) => {
    const startServer = postgresCpu();
    const start = performance.now();
    const startCpu = cpuNow();
    await fn();
    times[side] += performance.now() - start;
    cpu[side] += cpuNow() - startCpu;
    serverCpu[side] += postgresCpu() - startServer;
  };
  const record = (runs, slice) =>
    Promise.all(
      runs.map(async (run, r) => {
        for (let k = 0; k < perRunPerSlice; k++) await run.trace.recordToolResult(call((slice * perRunPerSlice + k) * RUNS + r));
      }),
    );
  for (let slice = 0; slice < SLICES; slice++) {
    // the per-step store first (its statements are what the bare path replays), then the other two in turn
    capturing = true;
    await measure('perStep', () => record(perStepRuns, slice));
    capturing = false;
    if (appendText === null) throw new Error('the append statement was not captured');
    const bareText = appendText.replaceAll(`"${PER_STEP}".`, `"${BARE}".`);
    const sides = [
      ['grouped', () => record(groupedRuns, slice)],
      [
        'bare',
        () =>
          Promise.all(
            perStepRuns.map(async (run, r) => {
              const values = captured.get(run.id);
              for (let k = slice * perRunPerSlice; k < (slice + 1) * perRunPerSlice; k++) {
                const v = values[k].slice();
                v[0] = bareIds[r];
                await bare.query({ name: 'bare_append_step', text: bareText, values: v });
              }
            }),
          ),
      ],
    ];
    if (slice % 2 === 1) sides.reverse();
    for (const [side, fn] of sides) await measure(side, fn);
  }
  await Promise.all([...groupedRuns, ...perStepRuns].map((run) => run.complete()));
  pg.Client.prototype.query = originalQuery;
  await bare.end();

  // every path stored every step, gap-free
  const check = async (schema) => {
    const { rows } = await admin.query(
      `SELECT count(*)::int AS n, count(*) FILTER (WHERE lo <> 0 OR hi <> c - 1)::int AS gaps
       FROM (SELECT run_id, count(*) AS c, min(sequence) AS lo, max(sequence) AS hi FROM "${schema}".steps GROUP BY run_id) s`,
    );
    const steps = (await admin.query(`SELECT count(*)::int AS n FROM "${schema}".steps`)).rows[0].n;
    return rows[0].gaps === 0 && steps === STEPS;
  };
  const stored = (await check(GROUPED)) && (await check(PER_STEP)) && (await check(BARE));

  // one run alone, each append awaited: grouped against per-step, alternating slices
  const alone = {
    grouped: await startRun(await connect(ALONE_GROUPED, {}), { configuration: 'alone', heartbeatMs: 0 }),
    perStep: await startRun(await connect(ALONE_PER_STEP, { groupCommit: false }), { configuration: 'alone', heartbeatMs: 0 }),
  };
  const single = { grouped: 0, perStep: 0 };
  const singleSteps = Math.max(1000, Math.floor(STEPS / 8));
  const singleSlice = Math.ceil(singleSteps / (2 * SLICES));
  for (let slice = 0; slice < 2 * SLICES; slice++) {
    for (const side of slice % 2 === 0 ? ['grouped', 'perStep'] : ['perStep', 'grouped']) {
      const start = performance.now();
      for (let i = slice * singleSlice; i < (slice + 1) * singleSlice; i++) await alone[side].trace.recordToolResult(call(i));
      single[side] += performance.now() - start;
    }
  }
  await alone.grouped.complete();
  await alone.perStep.complete();

  const rate = (side) => STEPS / (times[side] / 1000);
  const ratio = rate('grouped') / rate('bare');
  const todayRatio = rate('grouped') / rate('perStep');
  const singleRatio = single.grouped / single.perStep;
  const row = (name, side) => [
    name,
    fmt(times[side] / 1000, 2),
    fmt((times[side] * 1000) / STEPS, 1),
    fmt(rate(side), 0),
    fmt((cpu[side] * 1000) / STEPS, 1),
    fmt((serverCpu[side] * 1e6) / STEPS, 1),
    fmt(rate(side) / rate('bare'), 2),
  ];
  // the most steps/s this machine's cores allow the grouped path at its CPU per step (writer + server)
  const cores = os.cpus().length;
  const groupedCpuUs = (cpu.grouped * 1000 + serverCpu.grouped * 1e6) / STEPS;
  const cpuCeiling = (cores * 1e6) / groupedCpuUs;
  console.log(`## store-postgres: group commit, ${RUNS} concurrent runs and one run alone

${RUNS} runs started with \`startRun\` in one process record ${STEPS.toLocaleString('en')} tool steps in all (each run awaiting its append before the next) through \`RunTrace.recordToolResult\` → \`PostgresRunStore.appendStep\` with group commit (the default): appends of different runs that arrive while a batch is on its way (or in the same turn) share one statement and one commit, each resolving only after it. Baseline, the bare pg driver with one transaction per step: the store's single-append statement (run counter, step row, the call noted as pending for the health rollup) with the values the per-step store sent in the same slice, replayed by ${RUNS} concurrent writers on a pool of ${RUNS} (PostgreSQL's own group commit shares their WAL flushes). Also: the store's per-step path (\`groupCommit: false\`). All commit with synchronous_commit = on. The stores' pools hold ${RUNS} connections; writer CPU is this process's, server CPU that of every postgres process (the backends and PostgreSQL's own, such as the WAL writer; schedstat). Interleaved in ${SLICES} slices. Load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores; PostgreSQL on the same machine.

${table(
  ['path', 'total s', 'µs / step', 'steps / s', 'writer CPU µs / step', 'server CPU µs / step', '× baseline'],
  [
    row(`RunTrace → PostgresRunStore, group commit, ${RUNS} runs`, 'grouped'),
    row(`RunTrace → PostgresRunStore, \`groupCommit: false\`, ${RUNS} runs`, 'perStep'),
    row('bare pg, the single-append statement, one transaction per step (baseline)', 'bare'),
  ],
)}

CPU bound: the grouped path costs ${fmt(groupedCpuUs, 1)} µs of CPU per step (writer and server), so the ${cores} cores of this machine, which the writer and PostgreSQL share, allow it at most ${fmt(cpuCeiling, 0)} steps/s = ${fmt(cpuCeiling / rate('bare'), 2)}× the baseline even if nothing ever waited; ${TARGET_CONCURRENT}× needs ${fmt(TARGET_CONCURRENT * rate('bare'), 0)} steps/s, at most ${fmt((cores * 1e6) / (TARGET_CONCURRENT * rate('bare')), 1)} µs of CPU per step.

One run alone, ${(singleSlice * 2 * SLICES).toLocaleString('en')} steps, each awaited before the next: ${fmt((single.grouped * 1000) / (singleSlice * 2 * SLICES), 1)} µs / step grouped, ${fmt((single.perStep * 1000) / (singleSlice * 2 * SLICES), 1)} µs / step per-step.

- ${verdict(ratio >= TARGET_CONCURRENT && stored, `${RUNS} concurrent runs: steps/s grouped ≥ ${TARGET_CONCURRENT}× one transaction per step on the bare driver (got ${fmt(ratio, 2)}×; ${fmt(todayRatio, 2)}× the store's per-step path; every step stored, gap-free, on every path: ${stored ? 'yes' : 'NO'})`)}
- ${verdict(singleRatio <= TARGET_SINGLE, `one run alone: grouped no more than ${TARGET_SINGLE}× slower per step than per-step (got ${fmt(singleRatio, 3)}×)`)}
`);
} finally {
  pg.Client.prototype.query = originalQuery;
  for (const store of stores) await store.close().catch(() => undefined);
  for (const schema of SCHEMAS) await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.end();
}
