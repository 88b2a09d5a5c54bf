// Child process of the busy-wait test: holds the write lock of a SQLite file in pulses — `holdMs`
// held, `gapMs` free — for `forMs`, as a prune in another process does; prints "pulsing" once it
// first holds the lock and "done" at the end. It takes the lock back as soon as it is free (it tries
// every 0.2 ms), so a waiter gets in only by trying in a gap.
import Database from 'better-sqlite3';

const [path, holdText, gapText, forText] = process.argv.slice(2);
const [holdMs, gapMs, forMs] = [holdText, gapText, forText].map(Number);
const db = new Database(path, { timeout: 0 });
const sleeper = new Int32Array(new SharedArrayBuffer(4));
const sleep = (ms) => Atomics.wait(sleeper, 0, 0, ms);
const end = Date.now() + forMs;
let first = true;
while (Date.now() < end) {
  for (;;) {
    try {
      db.exec('BEGIN IMMEDIATE');
      break;
    } catch (error) {
      if (error.code !== 'SQLITE_BUSY') throw error;
      sleep(0.2);
    }
  }
  if (first) process.stdout.write('pulsing\n');
  first = false;
  sleep(holdMs);
  db.exec('COMMIT');
  sleep(gapMs);
}
db.close();
process.stdout.write('done\n');
