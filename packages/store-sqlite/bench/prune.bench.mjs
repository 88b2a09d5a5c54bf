// Retention on SQLite: bench/pruneWhileRecording.mjs (pruning 1 000 000 old steps while 4 runs
// record in another process) on a SQLite file, the prune's write transactions observed.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { pruneWhileRecording } from '../../../bench/pruneWhileRecording.mjs';
import { SqliteRunStore } from '../dist/index.js';

const SQLITE = {
  name: 'SQLite',
  heading: 'store-sqlite',
  fresh: (dir, label) => path.join(dir, `${label}.db`),
  open: (location) => SqliteRunStore.open({ path: location }),
  drop: (location) => {
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${location}${suffix}`, { force: true });
  },
  transactions: sqliteTransactions,
};

/**
 * Times every write transaction of this process's SQLite connections, from BEGIN IMMEDIATE (the
 * write lock taken) to its COMMIT (durable, lock released): better-sqlite3 runs both as prepared
 * statements, so wrapping Statement#run sees them.
 */
function sqliteTransactions() {
  const probe = new Database(':memory:');
  const proto = Object.getPrototypeOf(probe.prepare('SELECT 1'));
  probe.close();
  const original = proto.run;
  const durations = [];
  let began = null;
  proto.run = function (...args) {
    const sql = this.source;
    const result = original.apply(this, args);
    if (sql.startsWith('BEGIN')) began = performance.now();
    else if ((sql === 'COMMIT' || sql === 'ROLLBACK') && began !== null) {
      durations.push(performance.now() - began);
      began = null;
    }
    return result;
  };
  return { durations, stop: () => (proto.run = original) };
}

await pruneWhileRecording(SQLITE, fileURLToPath(import.meta.url));
