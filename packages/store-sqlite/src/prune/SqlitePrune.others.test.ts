// SqlitePrune tells its pace whether anybody else wrote since its last transaction (another
// connection, seen by the file's data version, or another write of the same store, by the store's
// commit count), so that it keeps its transactions short only while others write.
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SqliteHealthPending } from '../health/SqliteHealthPending.js';
import { SqliteHealthWriter } from '../health/SqliteHealthWriter.js';
import { SqlitePrune, type SqlitePruneAccess } from './SqlitePrune.js';
import { SqliteOpenCalls } from '../SqliteOpenCalls.js';
import { SqlitePrunePace } from './SqlitePrunePace.js';
import { SqliteRunStore } from '../SqliteRunStore.js';
import { tempFolder, toolStep } from '../testing/tempDatabase.js';

let folder: ReturnType<typeof tempFolder>;
const open: Database.Database[] = [];
beforeEach(() => {
  folder = tempFolder();
});
afterEach(() => {
  vi.restoreAllMocks();
  for (const db of open.splice(0)) db.close();
  folder.remove();
});

const T0 = Date.UTC(2026, 0, 1);

/** A file with four ended runs of 30 steps and a kept one, and a connection on it. */
async function fileWithOldRuns(): Promise<Database.Database> {
  const store = await SqliteRunStore.open({ path: folder.file() });
  for (let r = 0; r < 5; r++) {
    const run = await store.createRun({ configuration: 'c', createdAt: T0 });
    for (let i = 0; i < 30; i++) await store.appendStep(run.id, toolStep('alpha', 'ok', 5 + i, T0 + i * 1000));
    await store.finishRun(run.id, { status: 'completed', finishedAt: r < 4 ? T0 + 60_000 : T0 + 600_000 });
  }
  await store.close();
  const db = new Database(folder.file());
  open.push(db);
  db.pragma('journal_mode = WAL');
  return db;
}

/** Prunes with `access` and returns what each transaction told the pace about other writers. */
async function othersSeen(db: Database.Database, access: SqlitePruneAccess): Promise<boolean[]> {
  const learn = vi.spyOn(SqlitePrunePace.prototype, 'learn');
  const prune = new SqlitePrune(db, access, new SqliteHealthPending(db, new SqliteHealthWriter(db)), new SqliteOpenCalls(db));
  const result = await prune.prune({ olderThan: T0 + 120_000, batchSize: 20 });
  expect(result).toMatchObject({ runs: 4, steps: 120, complete: true });
  return learn.mock.calls.map((call) => call[2] ?? false);
}

describe('SqlitePrune and other writers', () => {
  it('sees nobody when nobody else writes', async () => {
    const db = await fileWithOldRuns();
    let commits = 0;
    const seen = await othersSeen(db, {
      write: async (fn) => {
        const value = fn();
        commits++;
        return value;
      },
      read: async (fn) => fn(),
      commits: () => commits,
    });
    expect(seen.length).toBeGreaterThan(4);
    expect(seen.every((others) => !others)).toBe(true);
  });

  it('sees another connection that committed between two of its transactions', async () => {
    const db = await fileWithOldRuns();
    const other = new Database(folder.file());
    open.push(other);
    let transactions = 0;
    const seen = await othersSeen(db, {
      write: async (fn) => {
        // before every third transaction another process heartbeats the kept run
        if (++transactions % 3 === 0) other.prepare("UPDATE runs SET heartbeat_at = ? WHERE status <> 'running'").run(transactions);
        return fn();
      },
      read: async (fn) => fn(),
    });
    expect(seen.map((others, i) => others === ((i + 1) % 3 === 0))).not.toContain(false);
  });

  it('sees another write of the same store, and not its own transactions', async () => {
    const db = await fileWithOldRuns();
    let commits = 0;
    let transactions = 0;
    const seen = await othersSeen(db, {
      write: async (fn) => {
        // before every other transaction the store committed a write of its own (an append)
        if (++transactions % 2 === 0) commits++;
        const value = fn();
        commits++;
        return value;
      },
      read: async (fn) => fn(),
      commits: () => commits,
    });
    expect(seen.map((others, i) => others === ((i + 1) % 2 === 0))).not.toContain(false);
  });
});
