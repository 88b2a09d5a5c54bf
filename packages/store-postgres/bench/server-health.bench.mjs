// Server health over 1 000 000 tool steps across 20 servers (PostgreSQL): the store reads whole
// rollup buckets plus the raw steps of the partial minutes at the window's edges, so the time must
// stay flat as the window grows from 10 % to 100 % of the steps.
// Load: 100 runs × 10 000 steps spread over the last 10 days, inserted in bulk with
// INSERT … SELECT generate_series, the rollup filled by the store's own rollup_add_runs() (the
// function importRun uses; rows sharded by run exactly as live appends shard them).
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { PostgresRunStore } from '../dist/index.js';
import { fmt, median, percentile, sample, table, verdict } from '../../../bench/lib.mjs';

const URL = process.env.RUNLEDGER_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
// RUNLEDGER_BENCH_KEEP=1 keeps the loaded schema (rl_bench_health_keep) and reuses it next time.
const KEEP = process.env.RUNLEDGER_BENCH_KEEP === '1';
const SCHEMA = KEEP ? 'rl_bench_health_keep' : `rl_bench_health_${process.pid}`;
const STEPS = 1_000_000;
const RUNS = 100;
const SERVERS = 20;
const SPAN_MS = 10 * 86_400_000;
const TARGET_MS = 30;

const admin = new pg.Client({ connectionString: URL });
await admin.connect();
if (!KEEP) await admin.query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`);
const store = await PostgresRunStore.connect({ connectionString: URL, schema: SCHEMA });
const q = `"${SCHEMA}"`;
try {
  const existing = (await admin.query(`SELECT max(created_at)::float8 AS t, count(*)::int AS n FROM ${q}.steps`)).rows[0];
  const reuse = KEEP && existing.n === STEPS;
  const now = reuse ? existing.t + 1 : Date.now();
  const start = now - SPAN_MS;
  const perRun = STEPS / RUNS;
  const loadStart = performance.now();
  const phase = (name) => process.stderr.write(`server-health: ${name} after ${fmt((performance.now() - loadStart) / 1000, 1)} s\n`);
  if (!reuse) {
    const runIds = Array.from({ length: RUNS }, () => randomUUID());
    await admin.query(
      `INSERT INTO ${q}.runs (id, status, configuration, created_at, started_at, finished_at)
     SELECT id, 'completed', 'bench', $2::bigint, $2::bigint, $3::bigint FROM unnest($1::uuid[]) AS id`,
      [runIds, start, now],
    );
    // step i of run r: created evenly over the span, server (i*7+r) % 20, outcome by a per-server
    // failure rate, duration log-uniform-ish from 1 ms to ~3 s.
    for (let r = 0; r < RUNS; r += 10) {
      await admin.query(
        `INSERT INTO ${q}.steps (run_id, sequence, kind, round, duration_ms, created_at, payload, tool_server, tool_outcome, call_server, call_outcome)
       SELECT run_id, i, 'tool', i / 10, d, t,
              json_build_object('kind', 'tool', 'round', i / 10, 'durationMs', d, 'toolName', 'mcp_' || s || '_op',
                                'toolServer', s, 'toolIsError', o <> 'ok', 'toolOutcome', o)::text,
              s, o, s, o
       FROM (
         SELECT r.run_id, r.rn, i,
                round((exp(random() * 8))::numeric, 2)::float8 AS d,
                ($2::bigint + ((i::bigint * ${RUNS} + r.rn) * ${SPAN_MS}::bigint) / ${STEPS}) AS t,
                'srv' || lpad((((i * 7) + r.rn) % ${SERVERS})::text, 2, '0') AS s,
                CASE WHEN random() < ((((i * 7) + r.rn) % ${SERVERS}) + 1) / 60.0 THEN 'failed'
                     WHEN random() < 0.03 THEN 'cancelled' ELSE 'ok' END AS o
         FROM (SELECT id AS run_id, ord - 1 AS rn FROM unnest($1::uuid[]) WITH ORDINALITY AS u(id, ord)) r,
              generate_series(0, ${perRun - 1}) AS i
       ) g`,
        [runIds.slice(r, r + 10), start],
      );
    }
    phase('steps');
    await admin.query(
      `UPDATE ${q}.runs r SET next_sequence = ${perRun},
       ok_count = c.ok, failed_count = c.failed, cancelled_count = c.cancelled
     FROM (SELECT run_id, count(*) FILTER (WHERE call_outcome = 'ok') ok, count(*) FILTER (WHERE call_outcome = 'failed') failed,
                  count(*) FILTER (WHERE call_outcome = 'cancelled') cancelled FROM ${q}.steps GROUP BY run_id) c
     WHERE c.run_id = r.id`,
    );
    phase('counters');
    await admin.query(`SELECT ${q}.rollup_add_runs($1::uuid[])`, [runIds]);
    phase('rollup');
    await admin.query(`ANALYZE ${q}.steps; ANALYZE ${q}.health_rollup; ANALYZE ${q}.runs`);
    phase('analyze');
  }
  const loadSeconds = (performance.now() - loadStart) / 1000;
  const counts = (
    await admin.query(`SELECT count(*)::int AS steps, (SELECT count(*)::int FROM ${q}.health_rollup) AS rollup FROM ${q}.steps`)
  ).rows[0];

  const rows = [];
  let allPass = true;
  const medians = {};
  const windows = [
    ['10 %', { since: now - SPAN_MS * 0.1 }],
    ['50 %', { since: now - SPAN_MS * 0.5 }],
    ['100 %', { since: start }],
    ['100 % (no bounds)', {}],
    ['3 d 7 h, odd edges', { since: start + 86_400_000 + 12_345, until: start + 4 * 86_400_000 + 7 * 3_600_000 + 54_321 }],
  ];
  for (const [label, window] of windows) {
    const health = await store.serverHealth(window);
    const calls = health.reduce((n, h) => n + h.calls, 0);
    const times = await sample(() => store.serverHealth(window), { iterations: 40, warmup: 5 });
    const p50 = median(times);
    const p95 = percentile(times, 95);
    medians[label] = p50;
    const ok = p50 <= TARGET_MS;
    allPass &&= ok;
    rows.push([
      label,
      calls.toLocaleString('en-US'),
      String(health.length),
      fmt(p50, 2),
      fmt(p95, 2),
      verdict(ok, `median ≤ ${TARGET_MS} ms`),
    ]);
  }
  const growth = medians['100 %'] / medians['10 %'];
  const flat = growth <= 2;
  const lines = [
    '## store-postgres: server health over 1 000 000 steps, 20 servers',
    '',
    `${counts.steps.toLocaleString('en-US')} tool steps in ${RUNS} runs over 10 days; ${counts.rollup.toLocaleString('en-US')} rollup rows ` +
      `(5 levels × 4 shards); bulk load + rollup ${reuse ? 'reused from an earlier run' : `${fmt(loadSeconds, 1)} s`}. Each window: 5 warm-up + 40 timed calls of ` +
      '`store.serverHealth(window)` (end to end: SQL + percentiles in JS), PostgreSQL 15 on this machine.',
    '',
    table(['window', 'calls in window', 'servers', 'median ms', 'p95 ms', 'verdict'], rows),
    '',
    `Growth from 10 % to 100 % of the steps: ×${fmt(growth, 2)} (10× the steps) — ${verdict(flat, 'time flat in the number of steps (≤ ×2)')}`,
    '',
    allPass && flat ? 'All targets met.' : 'Some targets missed (MISS above).',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  await store.close();
  if (!KEEP) await admin.query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`);
  await admin.end();
}
