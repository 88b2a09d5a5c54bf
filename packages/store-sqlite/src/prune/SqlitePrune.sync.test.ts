// SqlitePrune commits its transactions without an fsync under the write lock and syncs the log
// outside it: the connection it shares with the store's appends is back to its own synchronous
// setting after every transaction (committed or failed), and the prune resolves only once the log
// is synced (what it says it deleted is durable).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SqliteHealthPending } from '../health/SqliteHealthPending.js';
import { SqliteHealthWriter } from '../health/SqliteHealthWriter.js';
import { SqlitePrune } from './SqlitePrune.js';
import { SqliteOpenCalls } from '../SqliteOpenCalls.js';
import { SqliteRunStore } from '../SqliteRunStore.js';
import { tempFolder, toolStep } from '../testing/tempDatabase.js';

/** The files synced, and what happened in order: each transaction, each sync's start and end. */
const synced = { calls: [] as string[], events: [] as string[] };
/** The prune's WAL sync (SqlitePrune's syncWal option): records, and takes a while, which the prune must wait for. */
async function recordingSync(path: string): Promise<void> {
  synced.calls.push(path);
  synced.events.push('sync');
  await new Promise((resolve) => setTimeout(resolve, 5));
  synced.events.push('synced');
}

let folder: ReturnType<typeof tempFolder>;
let db: Database.Database | undefined;
beforeEach(() => {
  folder = tempFolder();
  synced.calls = [];
  synced.events = [];
});
afterEach(() => {
  db?.close();
  db = undefined;
  folder.remove();
});

const T0 = Date.UTC(2026, 0, 1);

/** A file with three ended runs of 30 steps, and a connection on it as the store opens one (WAL, synchronous FULL). */
async function fileWithOldRuns(now?: () => number): Promise<{ db: Database.Database; prune: SqlitePrune }> {
  const store = await SqliteRunStore.open({ path: folder.file() });
  for (let r = 0; r < 3; r++) {
    const run = await store.createRun({ configuration: 'c', createdAt: T0 });
    for (let i = 0; i < 30; i++) await store.appendStep(run.id, toolStep('alpha', 'ok', 5 + i, T0 + i * 1000));
    await store.finishRun(run.id, { status: 'completed', finishedAt: T0 + 60_000 });
  }
  await store.close();
  db = new Database(folder.file());
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  const access = {
    write: async <T>(fn: () => T) => {
      const value = fn();
      synced.events.push('transaction');
      return value;
    },
    read: async <T>(fn: () => T) => fn(),
  };
  const options = now === undefined ? { syncWal: recordingSync } : { now, syncWal: recordingSync };
  return {
    db,
    prune: new SqlitePrune(db, access, new SqliteHealthPending(db, new SqliteHealthWriter(db)), new SqliteOpenCalls(db), options),
  };
}

describe('SqlitePrune and the fsync', () => {
  it('commits each transaction with synchronous NORMAL and gives the connection back FULL', async () => {
    const { db, prune } = await fileWithOldRuns();
    const set = vi.spyOn(db, 'pragma');
    const result = await prune.prune({ olderThan: T0 + 120_000, batchSize: 20 });
    expect(result).toMatchObject({ runs: 3, steps: 90, complete: true });
    const settings = set.mock.calls.map(([text]) => text).filter((text) => text.startsWith('synchronous ='));
    // one NORMAL and one restore per transaction (3 hides, 6 chunks of 20 or fewer … at least one each)
    expect(settings.filter((text) => text === 'synchronous = NORMAL').length).toBeGreaterThan(3);
    expect(settings.filter((text) => text === 'synchronous = 2').length).toBe(
      settings.filter((text) => text === 'synchronous = NORMAL').length,
    );
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
  });

  it('checkpoints the log between transactions, outside the write lock', async () => {
    const { db, prune } = await fileWithOldRuns();
    const calls: string[] = [];
    const pragma = db.pragma.bind(db);
    vi.spyOn(db, 'pragma').mockImplementation(((text: string, options?: Database.PragmaOptions) => {
      calls.push(`${text}${db.inTransaction ? ' (in a transaction)' : ''}`);
      return pragma(text, options);
    }) as typeof db.pragma);
    await prune.prune({ olderThan: T0 + 120_000, batchSize: 20 });
    const transactions = synced.events.filter((event) => event === 'transaction').length;
    expect(calls.filter((text) => text === 'wal_checkpoint(PASSIVE)').length).toBe(transactions);
    expect(calls.filter((text) => text.startsWith('wal_checkpoint') && text.endsWith('(in a transaction)'))).toEqual([]);
  });

  it('never copies the log into the database file under the write lock, however long the log grew', async () => {
    const { db } = await fileWithOldRuns();
    // the log past SQLite's 1000-page mark, not yet copied into the file (as while readers keep it from starting over)
    db.pragma('wal_autocheckpoint = 0');
    db.exec('CREATE TABLE filler (x BLOB)');
    const fill = db.prepare('INSERT INTO filler VALUES (randomblob(4000))');
    db.transaction(() => {
      for (let i = 0; i < 1200; i++) fill.run();
    })();
    db.pragma('wal_autocheckpoint = 1000');
    const fileHash = (): string => createHash('sha256').update(readFileSync(folder.file())).digest('hex');
    const changedInside: number[] = [];
    let transactions = 0;
    const access = {
      write: async <T>(fn: () => T) => {
        const before = fileHash();
        const value = fn();
        if (fileHash() !== before) changedInside.push(transactions);
        transactions++;
        return value;
      },
      read: async <T>(fn: () => T) => fn(),
    };
    const prune = new SqlitePrune(db, access, new SqliteHealthPending(db, new SqliteHealthWriter(db)), new SqliteOpenCalls(db));
    expect(await prune.prune({ olderThan: T0 + 120_000, batchSize: 20 })).toMatchObject({ runs: 3, steps: 90, complete: true });
    expect(transactions).toBeGreaterThan(3);
    // the pauses between transactions copied it (outside the lock), and the connection's own setting is back
    expect(changedInside, 'transactions whose commit copied the log into the file').toEqual([]);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
  });

  it('gives the connection back FULL when a transaction fails', async () => {
    const { db, prune } = await fileWithOldRuns();
    db.exec("CREATE TRIGGER refuse BEFORE DELETE ON steps BEGIN SELECT RAISE(ABORT, 'the disk says no'); END");
    await expect(prune.prune({ olderThan: T0 + 120_000, batchSize: 20 })).rejects.toThrow(/the disk says no/);
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
  });

  it('resolves only after the log is synced, and syncs it between transactions', async () => {
    const { prune } = await fileWithOldRuns();
    await prune.prune({ olderThan: T0 + 120_000, batchSize: 20 });
    synced.events.push('resolved');
    const { events } = synced;
    // every transaction is followed by a sync before the next one, and the last by a finished sync before the prune resolves
    const transactions = events.flatMap((event, i) => (event === 'transaction' ? [i] : []));
    expect(transactions.length).toBeGreaterThan(3);
    for (const [k, at] of transactions.entries()) {
      const next = transactions[k + 1] ?? events.length - 1;
      expect(events.slice(at + 1, next)).toContain('sync');
    }
    const last = transactions[transactions.length - 1]!;
    expect(events.slice(last).lastIndexOf('synced')).toBe(events.length - last - 2);
    expect(new Set(synced.calls)).toEqual(new Set([folder.file()]));
  });

  it('while alone syncs and checkpoints the log only every so often, and still resolves after a finished sync', async () => {
    // a clock 40 ms on per transaction: nobody else writes, so the prune is alone after 1 000 ms of it
    const clock = { ms: 0 };
    const { db, prune } = await fileWithOldRuns(() => clock.ms);
    const checkpoints: number[] = [];
    const pragma = db.pragma.bind(db);
    vi.spyOn(db, 'pragma').mockImplementation(((text: string, options?: Database.PragmaOptions) => {
      if (text === 'wal_checkpoint(PASSIVE)') checkpoints.push(clock.ms);
      return pragma(text, options);
    }) as typeof db.pragma);
    const write = db.transaction.bind(db);
    vi.spyOn(db, 'transaction').mockImplementation(((fn: (...args: unknown[]) => unknown) => {
      clock.ms += 40;
      return write(fn);
    }) as typeof db.transaction);
    expect(await prune.prune({ olderThan: T0 + 120_000, batchSize: 2 })).toMatchObject({ runs: 3, steps: 90, complete: true });
    synced.events.push('resolved');
    const { events } = synced;
    const transactions = events.flatMap((event, i) => (event === 'transaction' ? [i] : []));
    // three runs hidden then deleted in 15 chunks each (the newest too: its number is never handed out again): 48 transactions
    expect(transactions.length).toBe(48);
    const syncsAfter = (k: number): boolean => events.slice(transactions[k]! + 1, transactions[k + 1]).includes('sync');
    // the pause after transaction k sees the clock at 40 (k + 1): careful up to k = 23, alone (1 000 ms) from k = 24
    for (let k = 0; k < 24; k++) expect(syncsAfter(k), `careful transaction ${k}`).toBe(true);
    const last = transactions[transactions.length - 1]!;
    // after the last transaction its pause (which syncs if due), then the sync before the prune resolves
    const pauseSyncedAfterLast = events.slice(last).filter((event) => event === 'sync').length === 2;
    const alone = [...Array(transactions.length - 1 - 24).keys()].map((i) => syncsAfter(24 + i)).concat(pauseSyncedAfterLast);
    // alone, every 50 ms of a clock 40 ms on per transaction: after every second one
    expect(alone).toEqual(alone.map((_, i) => i % 2 === 1));
    expect(checkpoints.filter((at) => at >= 1_000).length).toBe(alone.filter(Boolean).length);
    // the last transaction's pages are synced before the prune resolves, as before
    expect(events.slice(last).lastIndexOf('synced')).toBe(events.length - last - 2);
  });
});
