#!/usr/bin/env node
// Makes sure the services the test suite uses for real are there before any test runs:
// Debian's Chromium (browser tests) and PostgreSQL on 127.0.0.1:5432 (store tests).
// Missing Chromium is installed with apt-get when running as root; otherwise this explains what to
// do and exits 1. An unreachable PostgreSQL is an error, never a reason to skip tests. The test
// database's catalogs are vacuumed before the tests make and drop their schemas again.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const PG_HOST = process.env.PGHOST ?? '127.0.0.1';
const PG_PORT = Number(process.env.PGPORT ?? 5432);

function log(message) {
  process.stderr.write(`ensure-test-env: ${message}\n`);
}

function ensureChromium() {
  if (existsSync(CHROMIUM)) return;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const hasApt = spawnSync('sh', ['-c', 'command -v apt-get'], { stdio: 'ignore' }).status === 0;
  if (!isRoot || !hasApt) {
    log(`Chromium is missing at ${CHROMIUM}. Install Debian's chromium (sudo apt-get install -y chromium) or set CHROMIUM_PATH.`);
    process.exit(1);
  }
  log('installing Debian chromium for the browser tests (apt-get)…');
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
  execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'chromium'], {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  if (!existsSync(CHROMIUM)) {
    log(`apt-get finished but ${CHROMIUM} is still missing`);
    process.exit(1);
  }
}

function canConnect(host, port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.setTimeout(2000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });
}

async function ensurePostgres() {
  if (await canConnect(PG_HOST, PG_PORT)) return;
  // These machines start PostgreSQL before the session; if it stopped, start it the same way.
  if (existsSync('/etc/postgresql') && spawnSync('sh', ['-c', 'command -v pg_ctlcluster'], { stdio: 'ignore' }).status === 0) {
    for (const version of readdirSync('/etc/postgresql')) {
      log(`PostgreSQL is not answering on ${PG_HOST}:${PG_PORT}; starting cluster ${version}/main…`);
      spawnSync('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', 'start'], { stdio: 'inherit' });
    }
    for (let i = 0; i < 20; i++) {
      if (await canConnect(PG_HOST, PG_PORT)) return;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  log(
    `PostgreSQL is not reachable on ${PG_HOST}:${PG_PORT}. The store tests run against a real server: start one (trust auth, database "test") or set PGHOST/PGPORT.`,
  );
  process.exit(1);
}

/** The database the store tests use (packages/store-postgres/src/testing/pgTest.ts's TEST_PG_URL). */
const TEST_PG_URL = process.env.RUNLEDGER_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** The catalogs a store test's schema fills and its drop leaves dead rows in. */
const SCHEMA_CATALOGS = ['pg_attribute', 'pg_depend', 'pg_class', 'pg_type', 'pg_index', 'pg_constraint', 'pg_proc', 'pg_namespace'];

/**
 * Every store test makes a schema of its own and drops it: one run of this test command leaves
 * some 250,000 dead pg_attribute rows in the test database's catalogs (and 200,000 pg_depend,
 * 42,000 pg_class rows). Where autovacuum is off (these machines' PostgreSQL), they pile up run after run and
 * every later schema's DDL walks them (one contract file: 25.3 s with a clean catalog, 28.7 s over
 * 1.7 million dead pg_attribute rows). A plain VACUUM of those catalogs frees them for reuse, in
 * well under a second after one run; it takes no lock the tests' statements wait for. Not being
 * allowed to (not a superuser: PostgreSQL warns and skips) or not finding the `pg` module (not
 * installed yet) only costs that time, and says so.
 */
async function vacuumTestCatalogs() {
  let pg;
  try {
    pg = createRequire(new URL('../packages/store-postgres/package.json', import.meta.url))('pg');
  } catch {
    log("the pg module is not installed yet: the test database's catalogs are not vacuumed this time");
    return;
  }
  const client = new pg.Client({ connectionString: TEST_PG_URL, connectionTimeoutMillis: 5_000 });
  const started = Date.now();
  try {
    await client.connect();
    const { rows } = await client.query(
      "SELECT coalesce(sum(n_dead_tup), 0)::bigint AS dead FROM pg_stat_sys_tables WHERE schemaname = 'pg_catalog' AND relname = ANY($1)",
      [SCHEMA_CATALOGS],
    );
    for (const table of SCHEMA_CATALOGS) await client.query(`VACUUM pg_catalog.${table}`);
    log(`vacuumed the test database's catalogs (${rows[0].dead} dead rows) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } catch (error) {
    log(`the test database's catalogs were not vacuumed (${error instanceof Error ? error.message : String(error)})`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

ensureChromium();
await ensurePostgres();
await vacuumTestCatalogs();
