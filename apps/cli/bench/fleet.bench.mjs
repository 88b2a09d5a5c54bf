// The runs app at fleet size: PostgreSQL with 100 000 runs and 10 000 000 steps, SQLite with
// 10 000 runs and 1 000 000 steps (one run of 100 000 steps in each), and each again at 1/10 of
// that. The app is served by startRunsServer (what `runledger serve` runs) on an ephemeral
// loopback port; each page (and the Prometheus scrape, /metrics) is fetched over HTTP (keep-alive)
// and timed to its last byte. Then one pass of `runledger alerts --once` with a realistic rules
// file is timed on the same fleets (fleetAlerts.mjs): one more section per store.
// Env: FLEET_SCALE=0.01 (smoke size: check that it runs, 2–3 minutes), FLEET_STORES=postgres,sqlite,
// FLEET_KEEP=1 (keep and reuse the loaded schemas/files), FLEET_CASES=timeline (only those pages),
// FLEET_ALERTS=0 (no alert section), RUNLEDGER_PG_URL.
import http from 'node:http';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { PostgresRunStore } from '@runledger/store-postgres';
import { SqliteRunStore } from '@runledger/store-sqlite';
import { encodeRunCursor } from '@runledger/trace';
import { fmt, median, percentile, table, verdict } from '../../../bench/lib.mjs';
import { startRunsServer, TIMELINE_PAGE_SIZE } from '../dist/index.js';
import { fleetShape, runIdOf, runOf, SPAN_MS, stepsOf } from './fleetData.mjs';
import { measureAlerts } from './fleetAlerts.mjs';
import { loadPostgresFleet } from './fleetPostgres.mjs';

const SCALE = Number(process.env.FLEET_SCALE ?? 1);
const STORES = (process.env.FLEET_STORES ?? 'postgres,sqlite').split(',');
const KEEP = process.env.FLEET_KEEP === '1';
// FLEET_CASES=timeline,servers measures only the pages whose label contains one of these words
const CASES = process.env.FLEET_CASES?.split(',') ?? null;
const ALERTS = process.env.FLEET_ALERTS !== '0';
const PG_URL = process.env.RUNLEDGER_PG_URL ?? 'postgres://root@127.0.0.1:5432/test';
const ITERATIONS = 50;
const WARMUP = 5;
/** A page whose first request at full size takes longer than this is timed over SLOW_ITERATIONS requests only (no warm-up beyond that first one). */
const SLOW_MS = 2_000;
const SLOW_ITERATIONS = 3;
const PAGE_TARGET_MS = 300;
const SERVERS_TARGET_MS = 100;
/** A Prometheus scrape of /metrics. */
const METRICS_TARGET_MS = 100;
const GROWTH_LIMIT = 2;
/** A page whose size at full size is more than this × its size at 1/10 is compared per KB. */
const PAGE_GROWTH = 1.5;
const PAGE_SIZE = 50;

const SIZES = {
  postgres: { runs: 100_000, steps: 10_000_000, big: 100_000 },
  sqlite: { runs: 10_000, steps: 1_000_000, big: 100_000 },
};
const log = (line) => process.stderr.write(`fleet: ${line}\n`);
const count = (n) => n.toLocaleString('en-US');

function scaled({ runs, steps, big }, factor) {
  const r = Math.max(40, Math.round(runs * factor));
  const b = Math.max(30, Math.round(big * factor));
  return fleetShape(r, Math.max(r * 6 + b, Math.round(steps * factor)), b);
}

/** GET over a keep-alive agent, resolved at the last byte. */
function get(agent, port, target) {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: target, agent }, (res) => {
      let bytes = 0;
      res.on('data', (chunk) => (bytes += chunk.length));
      res.on('end', () => resolve({ status: res.statusCode, bytes }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

/** A server of the fleet (each of its 50 takes about as many calls as the next), for its page. */
const BUSY_SERVER = 'srv07';

/** The pages measured on a fleet: every filter the runs list offers, timelines, the servers page (with its charts) and a server's page. */
function casesOf(shape, start) {
  const createdAt = (r) => start + Math.floor((r * SPAN_MS) / shape.runs);
  const deep = Math.floor(shape.runs / 2 / PAGE_SIZE) * PAGE_SIZE;
  const lastShown = shape.runs - deep; // run index of the last run on the page before the deep one
  const cursor = encodeRunCursor({ createdAt: createdAt(lastShown), id: runIdOf(lastShown) });
  const big = runIdOf(shape.bigIndex);
  const lastFrom = Math.floor((shape.big - 1) / TIMELINE_PAGE_SIZE) * TIMELINE_PAGE_SIZE;
  return [
    ['page', 'runs list, page 1', '/'],
    ['page', `runs list, page ${deep / PAGE_SIZE + 1} (cursor)`, `/?cursor=${cursor}`],
    ...['completed', 'failed', 'cancelled', 'interrupted', 'running'].map((s) => ['page', `runs list, status=${s}`, `/?status=${s}`]),
    ['page', 'runs list, has failed calls', '/?has=failed'],
    ['page', 'runs list, has cancelled calls', '/?has=cancelled'],
    ['page', 'runs list, status=completed + has cancelled', '/?status=completed&has=cancelled'],
    // a rare combination (about 1 run in 3 000): found only by reading every run without an index for it
    ['page', 'runs list, status=interrupted + has cancelled', '/?status=interrupted&has=cancelled'],
    ['page', `timeline, ${count(shape.big)}-step run, first page`, `/runs/${big}`],
    ['page', `timeline, ${count(shape.big)}-step run, middle page`, `/runs/${big}?from=${Math.floor(shape.big / 2)}`],
    ['page', `timeline, ${count(shape.big)}-step run, last page`, `/runs/${big}?from=${lastFrom}`],
    ['page', `timeline, ${shape.perRun}-step run`, `/runs/${runIdOf(shape.runs - 10)}`],
    // a run still recording: its page lists every call on the wire; the app's OpenCallTracker reads the
    // whole run at the first view (the "first" column) and only the steps appended since at later ones
    ['page', `timeline, running ${count(shape.big)}-step run, first page`, `/runs/${runIdOf(shape.liveIndex)}`],
    [
      'page',
      `timeline, running ${count(shape.big)}-step run, middle page`,
      `/runs/${runIdOf(shape.liveIndex)}?from=${Math.floor(shape.big / 2)}`,
    ],
    ['servers', 'servers page (all time)', '/servers'],
    ['servers', 'servers page (7 d)', '/servers?window=7d'],
    ['servers', 'servers page (24 h)', '/servers?window=24h'],
    // a server's page: its health, its charts (one health read per hour or day) and a page of its failed calls
    ['servers', `server page ${BUSY_SERVER} (all time)`, `/servers/${BUSY_SERVER}`],
    ['servers', `server page ${BUSY_SERVER} (7 d)`, `/servers/${BUSY_SERVER}?window=7d`],
    ['servers', `server page ${BUSY_SERVER} (24 h)`, `/servers/${BUSY_SERVER}?window=24h`],
    // what a Prometheus scrape reads (`runledger serve`'s /metrics): the default window (all time) and the last day
    ['metrics', '/metrics (Prometheus scrape, all time)', '/metrics'],
    ['metrics', '/metrics?window=24h (Prometheus scrape, last day)', '/metrics?window=24h'],
    ['baseline', 'baseline: /healthz (HTTP floor)', '/healthz'],
  ];
}

/**
 * Measures every page on both sizes, one request to each in turn (so that the machine's load
 * drifts over both alike and the growth ratio compares like with like).
 */
async function measurePair(small, large) {
  const servers = [];
  const agents = [];
  const results = new Map();
  try {
    for (const fleet of [small, large]) {
      servers.push(await startRunsServer({ store: fleet.store, timeZone: 'UTC', log }));
      agents.push(new http.Agent({ keepAlive: true, maxSockets: 1 }));
    }
    const smallCases = casesOf(small.shape, small.start);
    const largeCases = casesOf(large.shape, large.start);
    for (let c = 0; c < largeCases.length; c++) {
      const [kind, label] = largeCases[c];
      if (CASES !== null && kind !== 'baseline' && !CASES.some((word) => label.includes(word))) continue;
      const targets = [smallCases[c][2], largeCases[c][2]];
      const bytes = [];
      const cold = [];
      for (let k = 0; k < 2; k++) {
        const begin = performance.now();
        const first = await get(agents[k], servers[k].port, targets[k]);
        cold.push(performance.now() - begin);
        if (first.status !== 200) throw new Error(`${targets[k]} answered ${first.status}`);
        bytes.push(first.bytes);
      }
      const times = [[], []];
      const slow = cold[1] > SLOW_MS;
      const [warmup, iterations] = slow ? [0, SLOW_ITERATIONS] : [WARMUP, ITERATIONS];
      for (let i = 0; i < warmup + iterations; i++) {
        for (let k = 0; k < 2; k++) {
          const begin = performance.now();
          await get(agents[k], servers[k].port, targets[k]);
          if (i >= warmup) times[k].push(performance.now() - begin);
        }
      }
      const [little, big] = times.map((t, k) => ({ p50: median(t), p95: percentile(t, 95), kb: bytes[k] / 1024, first: cold[k] }));
      results.set(slow ? `${label} [${iterations} requests: the first took over ${SLOW_MS / 1000} s]` : label, { kind, little, big });
      log(`  ${label}: 1/10 p50 ${fmt(little.p50, 1)} ms; full p50 ${fmt(big.p50, 1)} ms, p95 ${fmt(big.p95, 1)} ms`);
    }
  } finally {
    for (const agent of agents) agent.destroy();
    for (const server of servers) await server.close();
  }
  return results;
}

async function postgresFleet(shape, label) {
  const schema = `rl_fleet_${label}_${KEEP ? 'keep' : process.pid}`;
  const q = `"${schema}"`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  try {
    // kept schemas and files are migrated by connect/open like any store (a new migration runs on them)
    const exists = (await admin.query(`SELECT 1 FROM pg_namespace WHERE nspname = $1`, [schema])).rowCount > 0;
    let loaded = null;
    if (exists && KEEP) {
      const row = (
        await admin.query(
          `SELECT count(*)::int AS runs, sum(next_sequence)::float8 AS steps, min(created_at)::float8 AS start FROM ${q}.runs`,
        )
      ).rows[0];
      if (row.runs === shape.runs && row.steps === shape.steps) loaded = row.start;
      else await admin.query(`DROP SCHEMA ${q} CASCADE`);
    } else if (exists) await admin.query(`DROP SCHEMA ${q} CASCADE`);
    const migrateStart = performance.now();
    let store = await PostgresRunStore.connect({ connectionString: PG_URL, schema });
    const migrateSeconds = (performance.now() - migrateStart) / 1000;
    let load;
    const start = loaded ?? Date.now() - SPAN_MS;
    if (loaded === null) {
      log(`loading PostgreSQL ${label}: ${count(shape.runs)} runs, ${count(shape.steps)} steps into ${schema}`);
      const phases = await loadPostgresFleet(admin, q, shape, start, (line) => log(`  ${line}`));
      load = `bulk load ${fmt(phases[phases.length - 1][1], 1)} s (${phases.map(([name, s]) => `${name} ${fmt(s, 1)}`).join(', ')}; cumulative s)`;
      await store.close();
      store = await PostgresRunStore.connect({ connectionString: PG_URL, schema });
    } else {
      load = `reused a kept load (connect + migrations ${fmt(migrateSeconds, 1)} s)`;
    }
    return {
      store,
      shape,
      start,
      load,
      storeArgs: ['--pg', PG_URL, '--pg-schema', schema],
      async close() {
        await store.close();
        if (!KEEP) await admin.query(`DROP SCHEMA ${q} CASCADE`);
        await admin.end();
      },
    };
  } catch (error) {
    await admin.end();
    throw error;
  }
}

async function sqliteFleet(shape, label) {
  const dir = path.join(tmpdir(), KEEP ? 'runledger-fleet-keep' : `runledger-fleet-${process.pid}-${label}`);
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `fleet-${label}-${shape.runs}-${shape.steps}.db`);
  const reuse = KEEP && existsSync(file) && existsSync(`${file}.start`);
  if (!reuse) rmSync(file, { force: true });
  const start = reuse ? Number(readFileSync(`${file}.start`, 'utf8')) : Date.now() - SPAN_MS;
  const loadStart = performance.now();
  const store = await SqliteRunStore.open({ path: file });
  let load = `reused a kept file (open + migrations ${fmt((performance.now() - loadStart) / 1000, 1)} s)`;
  if (!reuse) {
    log(`loading SQLite ${label}: ${count(shape.runs)} runs, ${count(shape.steps)} steps into ${file}`);
    for (let r = 0; r < shape.runs; r++) {
      const run = runOf(shape, start, r);
      await store.importRun(run, stepsOf(shape, run, r));
    }
    writeFileSync(`${file}.start`, String(start));
    load = `importRun per run ${fmt((performance.now() - loadStart) / 1000, 1)} s`;
  }
  return {
    store,
    shape,
    start,
    load,
    storeArgs: ['--db', file],
    async close() {
      await store.close();
      if (!KEEP) rmSync(dir, { recursive: true, force: true });
    },
  };
}

const sections = [];
for (const name of STORES) {
  const full = scaled(SIZES[name], SCALE);
  const tenth = scaled(SIZES[name], SCALE / 10);
  const fleet = name === 'postgres' ? postgresFleet : sqliteFleet;
  const small = await fleet(tenth, 'tenth');
  const large = await fleet(full, 'full');
  let results;
  let alerts = null;
  try {
    results = await measurePair(small, large);
    if (ALERTS)
      alerts = await measureAlerts(
        `${name === 'postgres' ? 'PostgreSQL' : 'SQLite'}, ${count(full.runs)} runs, ${count(full.steps)} steps`,
        small,
        large,
        log,
      );
  } finally {
    await small.close();
    await large.close();
  }
  const rows = [];
  const lines = [];
  for (const [label, { kind, little, big }] of results) {
    big.kind = kind;
    const growth = big.p50 / little.p50;
    // a sparse filter shows fewer runs on its page at 1/10 than at full size: the page itself grew,
    // so its cost is compared per KB of page (the same page content is compared as it is)
    const pageGrew = big.kb / little.kb > PAGE_GROWTH;
    const compared = pageGrew ? growth / (big.kb / little.kb) : growth;
    const target = big.kind === 'servers' ? SERVERS_TARGET_MS : big.kind === 'metrics' ? METRICS_TARGET_MS : PAGE_TARGET_MS;
    const verdicts = [];
    if (big.kind !== 'baseline') {
      const ok = big.p95 <= target;
      verdicts.push(ok ? 'PASS' : 'MISS');
      lines.push(`- ${verdict(ok, `${label}: p95 ≤ ${target} ms (${fmt(big.p95, 1)} ms)`)}`);
      const flat = compared <= GROWTH_LIMIT;
      verdicts.push(flat ? 'flat' : 'GROWS');
      lines.push(
        `- ${verdict(
          flat,
          pageGrew
            ? `${label}: median per KB of page at 10× the size ≤ ${GROWTH_LIMIT}× (×${fmt(compared, 2)}; the page grew ${fmt(little.kb, 0)} → ${fmt(big.kb, 0)} KB, median ×${fmt(growth, 2)})`
            : `${label}: median at 10× the size ≤ ${GROWTH_LIMIT}× (×${fmt(growth, 2)})`,
        )}`,
      );
    }
    rows.push([
      label,
      fmt(little.p50, 1),
      fmt(little.p95, 1),
      fmt(big.p50, 1),
      fmt(big.p95, 1),
      fmt(big.first, 1),
      `×${fmt(growth, 2)}`,
      `${fmt(little.kb, 0)} → ${fmt(big.kb, 0)}`,
      verdicts.join(', '),
    ]);
  }
  const title = name === 'postgres' ? 'PostgreSQL' : 'SQLite';
  sections.push(
    [
      `## apps/cli: the runs app at fleet size (${title}, ${count(full.runs)} runs, ${count(full.steps)} steps)`,
      '',
      `Server time of each page: the app served by \`startRunsServer\` (as \`runledger serve\` runs it) on a loopback port, each page ` +
        `fetched over keep-alive HTTP and timed to its last byte, ${WARMUP} warm-ups then ${ITERATIONS} requests (a page whose first request at ` +
        `full size took over ${SLOW_MS / 1000} s: no more warm-ups, ${SLOW_ITERATIONS} requests, as its label says); the /healthz row is the ` +
        `HTTP floor beside them; the /metrics rows are the Prometheus scrape \`runledger serve\` exposes (the window's server health, per named ` +
        `server its busiest tools' calls by outcome and duration histogram, read from the store's per-tool totals (its rollup, not the calls of the window); the calls on the wire; the runs by status), target p95 ≤ ${METRICS_TARGET_MS} ms; each request at full size alternates with the same page at 1/10. Fleet: ${count(full.runs)} runs over 30 days (85 % completed, 8 % failed, 4 % cancelled, 2 % interrupted, ` +
        `1 % running; every 7th run has failing calls, every 53rd cancelled ones), ${full.perRun} steps each (llm, tool_start, tool; ` +
        `50 servers) and two runs of ${count(full.big)} steps (one finished, one running); at 1/10: ${count(tenth.runs)} runs, ` +
        `${count(tenth.steps)} steps, ${count(tenth.big)}-step runs. Load: full — ${large.load}; 1/10 — ${small.load}. "Full first" is the first request of each page at full size, before the warm-ups (cold caches; for a running run the one view that asks the store for its calls on the wire, readOpenCalls, where before it read the whole run; the run does not grow during the benchmark, so later views read no new steps; every call of the fleet has ended, so none is on the wire). Growth = median at full size / median at 1/10; where a sparse filter fills less of its page of 50 at 1/10 (the page more than ${PAGE_GROWTH}× bigger at full size), the verdict compares the median per KB of page. ` +
        `Load average ${os
          .loadavg()
          .map((n) => fmt(n, 2))
          .join(' / ')} (1/5/15 min) on a shared ${os.cpus().length}-core machine.`,
      '',
      table(
        ['page', '1/10 p50 ms', '1/10 p95 ms', 'full p50 ms', 'full p95 ms', 'full first ms', 'growth', 'KB 1/10 → full', 'verdict'],
        rows,
      ),
      '',
      ...lines,
    ].join('\n'),
  );
  if (alerts !== null) sections.push(alerts);
}
process.stdout.write(`${sections.join('\n\n')}\n`);
