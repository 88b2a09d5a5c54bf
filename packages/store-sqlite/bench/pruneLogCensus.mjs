// Where a SQLite prune's write-ahead log goes: every page its commits wrote, counted by the table
// or index that owned it, as the store lays the rollup out (keyed time first since schema version
// 14) and as versions 5 to 13 did (keyed server first, re-keyed on the loaded file). Part of
// prune.bench.mjs's section.
import { closeSync, openSync, readSync, rmSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { SqliteRunStore } from '../dist/index.js';
import { statementPrototype } from './statementPrototype.mjs';

const DAY = 86_400_000;
const WAL_HEADER = 32;
const FRAME_HEADER = 24;
/** Where the log header keeps its two salts. */
const WAL_SALTS = 16;

/**
 * Prunes `steps` old steps alone twice (the store's layout, then health_rollup and health_causes
 * keyed server first as before version 14), `batchSize` steps a transaction (undefined: the
 * store's choice), each on a fresh file loaded by `loadOld(store, steps, now)`; returns per layout
 * the log frames per deleted step by owner and the prune's ms.
 */
export async function pruneLogCensus(dir, loadOld, steps, batchSize) {
  const layouts = [];
  for (const serverFirst of [false, true]) layouts.push(await censusOf(dir, loadOld, steps, batchSize, serverFirst));
  return layouts;
}

async function censusOf(dir, loadOld, steps, batchSize, serverFirst) {
  const file = path.join(dir, `census-${serverFirst ? 'server-first' : 'store'}.db`);
  const now = Date.now();
  const loading = await SqliteRunStore.open({ path: file });
  await loadOld(loading, steps, now);
  await loading.close();
  const side = new Database(file);
  side.pragma('wal_checkpoint(TRUNCATE)');
  if (serverFirst) {
    rekeyServerFirst(side, 'health_rollup');
    rekeyServerFirst(side, 'health_causes');
  }
  const owners = new Map(side.prepare('SELECT pageno, name FROM dbstat').raw().all());
  const pageSize = side.pragma('page_size', { simple: true });
  side.close();

  const store = await SqliteRunStore.open({ path: file });
  const frames = new Map();
  const hooks = countFrames(`${file}-wal`, pageSize, owners, frames);
  const start = performance.now();
  let result;
  try {
    result = await store.pruneRuns({ olderThan: now - 30 * DAY, ...(batchSize === undefined ? {} : { batchSize }) });
  } finally {
    hooks.stop();
  }
  const ms = performance.now() - start;
  await store.close();
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
  if (!result.complete || result.steps !== steps) throw new Error(`census prune deleted ${result.steps} of ${steps} steps`);
  const total = [...frames.values()].reduce((a, b) => a + b, 0);
  return {
    serverFirst,
    ms,
    steps,
    batchSize,
    perStep: total / steps,
    owners: [...frames].sort((a, b) => b[1] - a[1]).map(([name, n]) => [name, n / steps]),
  };
}

/** `table` again (a rollup table), the same columns, its primary key server first as versions 5 to 13 had it. */
function rekeyServerFirst(db, table) {
  const sql = db.prepare('SELECT sql FROM sqlite_schema WHERE name = ?').pluck().get(table);
  const keyed = sql.replace('PRIMARY KEY (level, bucket_start, server', 'PRIMARY KEY (server, level, bucket_start');
  if (keyed === sql) throw new Error(`${table} has another primary key than the census knows`);
  db.exec(`${keyed.replace(/^CREATE TABLE "?\w+"?/, `CREATE TABLE ${table}_server_first`)};
INSERT INTO ${table}_server_first SELECT * FROM ${table};
DROP TABLE ${table};
ALTER TABLE ${table}_server_first RENAME TO ${table};`);
}

/**
 * After every COMMIT of this process's connections, reads the page number of each frame the log
 * gained; the prune's own checkpoints are left out meanwhile, so the log keeps every frame.
 */
function countFrames(walPath, pageSize, owners, frames) {
  const proto = statementPrototype();
  const { run, all } = proto;
  let offset = WAL_HEADER;
  const header = Buffer.alloc(4);
  // the log's salts change when it starts over from its first frame: the count would then be wrong
  const salts = Buffer.alloc(8);
  let firstSalts = null;
  const scan = () => {
    const fd = openSync(walPath, 'r');
    try {
      readSync(fd, salts, 0, 8, WAL_SALTS);
      firstSalts ??= Buffer.from(salts);
      if (!salts.equals(firstSalts)) throw new Error('the log started over during the census: its frames cannot be counted');
      for (; readSync(fd, header, 0, 4, offset) === 4; offset += FRAME_HEADER + pageSize) {
        const owner = owners.get(header.readUInt32BE(0)) ?? 'pages new to the file';
        frames.set(owner, (frames.get(owner) ?? 0) + 1);
      }
    } finally {
      closeSync(fd);
    }
  };
  proto.run = function (...args) {
    const result = run.apply(this, args);
    if (this.source === 'COMMIT') scan();
    return result;
  };
  proto.all = function (...args) {
    if (this.source.includes('wal_checkpoint')) return [{ busy: 0, log: 0, checkpointed: 0 }];
    return all.apply(this, args);
  };
  return {
    stop: () => {
      proto.run = run;
      proto.all = all;
    },
  };
}
