// Child process of the prune kill test: prunes a store file through the built store and stops,
// frozen, at one transaction of the prune so the parent can SIGKILL it there. `when` is `after`
// (right after the `stopAt`-th COMMIT: that transaction is durable, the next not begun) or `before`
// (inside the `stopAt`-th transaction, its deletes done, just before its COMMIT). It prints
// `commit <n>` after each commit and `stopped <n>` once frozen; `done <result>` if the prune ends.
import { writeSync } from 'node:fs';
import Database from 'better-sqlite3';
import { SqliteRunStore } from '../../dist/index.js';

const [path, olderThanText, batchSizeText, when, stopAtText] = process.argv.slice(2);
const stopAt = Number(stopAtText);
const store = await SqliteRunStore.open({ path });

// better-sqlite3 commits a transaction function with a prepared COMMIT statement: wrapping
// Statement#run sees every commit of the store's connection (only the prune writes here)
const probe = new Database(':memory:');
const proto = Object.getPrototypeOf(probe.prepare('SELECT 1'));
probe.close();
const run = proto.run;
let commits = 0;
/** Blocks this process (its event loop too) until it is killed: the prune goes no further. */
const freeze = (n) => {
  // a pipe is written synchronously on Linux: the parent has the line before the kill is sent
  writeSync(1, `stopped ${n}\n`);
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 30_000);
  writeSync(1, 'not killed\n');
  process.exit(3);
};
proto.run = function (...args) {
  if (this.source !== 'COMMIT') return run.apply(this, args);
  const n = ++commits;
  if (when === 'before' && n === stopAt) freeze(n);
  const result = run.apply(this, args);
  writeSync(1, `commit ${n}\n`);
  if (when === 'after' && n === stopAt) freeze(n);
  return result;
};

const result = await store.pruneRuns({ olderThan: Number(olderThanText), batchSize: Number(batchSizeText) });
writeSync(1, `done ${JSON.stringify(result)}\n`);
await store.close();
