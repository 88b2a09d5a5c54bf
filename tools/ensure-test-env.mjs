#!/usr/bin/env node
// Makes sure the services the test suite uses for real are there before any test runs:
// Debian's Chromium (browser tests) and PostgreSQL on 127.0.0.1:5432 (store tests).
// Missing Chromium is installed with apt-get when running as root; otherwise this explains what to
// do and exits 1. An unreachable PostgreSQL is an error, never a reason to skip tests.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
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

ensureChromium();
await ensurePostgres();
