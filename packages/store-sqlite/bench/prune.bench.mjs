// Retention on SQLite: bench/pruneWhileRecording.mjs (pruning 1 000 000 old steps while 4 runs
// record in another process) on a SQLite file, the prune's write transactions observed.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { pruneWhileRecording } from '../../../bench/pruneWhileRecording.mjs';
import { SqliteRunStore } from '../dist/index.js';
import { pruneLogCensus } from './pruneLogCensus.mjs';
import { statementPrototype } from './statementPrototype.mjs';

const SQLITE = {
  name: 'SQLite',
  heading: 'store-sqlite',
  fresh: (dir, label) => path.join(dir, `${label}.db`),
  open: (location) => SqliteRunStore.open({ path: location }),
  drop: (location) => {
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${location}${suffix}`, { force: true });
  },
  transactions: sqliteTransactions,
  logCensus: async (dir, loadOld, steps, batchSize) => censusParagraph(await pruneLogCensus(dir, loadOld, steps, batchSize)),
};

/** The census of the store's layout and of the server-first rollup before it, as a paragraph of the section. */
function censusParagraph([store, serverFirst]) {
  const owners = (layout) =>
    layout.owners
      .filter(([, perStep]) => perStep >= 0.01)
      .map(([name, perStep]) => `${name} ${perStep.toFixed(2)}`)
      .join(', ');
  const rollup = (layout) => layout.owners.find(([name]) => name === 'health_rollup')?.[1] ?? 0;
  return `Where the prune's log goes (a pass of its own after the table: ${store.steps.toLocaleString('en')} old steps at the same density pruned alone, ${store.batchSize === undefined ? 'batch size left to the store' : `${store.batchSize} steps a transaction as beside the recorders above (on average)`}, the prune's checkpoints left out so that the log keeps every page its commits wrote, each page counted by the table or index that owned it before the prune): ${store.perStep.toFixed(2)} log pages (${(store.perStep * 4).toFixed(1)} KB) per deleted step — ${owners(store)} — in ${(store.ms / 1000).toFixed(1)} s. The rollup is keyed time first, \`(level, bucket_start, server)\` (schema version 14), so the calls of one transaction (consecutive in time, of many servers) share pages at each level. The same prune with \`health_rollup\` and \`health_causes\` keyed server first as versions 5 to 13 had them (re-keyed on the loaded file): ${serverFirst.perStep.toFixed(2)} pages per step (health_rollup ${rollup(serverFirst).toFixed(2)} where the store's layout has ${rollup(store).toFixed(2)}), ${(serverFirst.ms / 1000).toFixed(1)} s.`;
}

/**
 * Times every write transaction of this process's SQLite connections, from BEGIN IMMEDIATE (the
 * write lock taken) to its COMMIT (durable, lock released): better-sqlite3 runs both as prepared
 * statements, so wrapping Statement#run sees them.
 */
function sqliteTransactions() {
  const proto = statementPrototype();
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
