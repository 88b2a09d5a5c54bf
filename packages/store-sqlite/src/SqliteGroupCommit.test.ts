import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteGroupCommit } from './SqliteGroupCommit.js';
import { tempFolder } from './testing/tempDatabase.js';
import { RunStoreError } from '@runledger/trace';

let folder: ReturnType<typeof tempFolder>;
let db: Database.Database;
beforeEach(() => {
  folder = tempFolder();
  db = new Database(folder.file());
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.exec(
    'CREATE TABLE parent (id INTEGER PRIMARY KEY); CREATE TABLE t (v INTEGER UNIQUE, p INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED)',
  );
});
afterEach(() => {
  db.close();
  folder.remove();
});

const values = () => db.prepare('SELECT v FROM t ORDER BY v').pluck().all();

describe('SqliteGroupCommit', () => {
  it('runs the writes in order in one transaction and commits them together', () => {
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    const other = new Database(folder.file());
    const seenByOthers: number[] = [];
    const outcomes = new SqliteGroupCommit(db).run(
      [1, 2, 3].map((v) => () => {
        expect(db.inTransaction).toBe(true);
        insert.run(v);
        // another connection sees none of the batch until its commit
        seenByOthers.push(other.prepare('SELECT count(*) FROM t').pluck().get() as number);
        return v * 10;
      }),
    );
    other.close();
    expect(outcomes).toEqual([10, 20, 30].map((value) => ({ ok: true, value })));
    expect(seenByOthers).toEqual([0, 0, 0]);
    expect(values()).toEqual([1, 2, 3]);
    expect(db.inTransaction).toBe(false);
  });

  it('rolls back only the write that refused with a RunStoreError (its savepoint); the others commit', () => {
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    const refusal = RunStoreError.runNotFound('gone');
    const outcomes = new SqliteGroupCommit(db).run([
      () => insert.run(1).changes,
      () => {
        insert.run(2); // written, then refused: undone
        throw refusal;
      },
      () => insert.run(3).changes,
    ]);
    expect(outcomes).toEqual([
      { ok: true, value: 1 },
      { ok: false, error: refusal },
      { ok: true, value: 1 },
    ]);
    expect(values()).toEqual([1, 3]);
  });

  it('throws and commits nothing when a write fails in the driver', () => {
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    expect(() => new SqliteGroupCommit(db).run([() => insert.run(1), () => insert.run(1), () => insert.run(2)])).toThrow(/UNIQUE/);
    expect(db.inTransaction).toBe(false);
    expect(values()).toEqual([]);
  });

  it('throws and commits nothing when the commit itself fails', () => {
    // a deferred foreign key is checked at COMMIT: the commit of this batch fails
    const insert = db.prepare('INSERT INTO t (v, p) VALUES (?, ?)');
    expect(() => new SqliteGroupCommit(db).run([() => insert.run(1, null), () => insert.run(2, 99)])).toThrow(/FOREIGN KEY/);
    expect(db.inTransaction).toBe(false);
    expect(values()).toEqual([]);
  });

  it('throws and commits nothing when the file is full (SQLITE_FULL)', () => {
    const pages = db.pragma('page_count', { simple: true }) as number;
    db.pragma(`max_page_count = ${pages + 2}`);
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    const big = db.prepare('INSERT INTO t (v, p) VALUES (?, NULL)');
    let error: unknown;
    try {
      new SqliteGroupCommit(db).run([
        () => insert.run(1),
        () => {
          for (let v = 2; v < 100_000; v++) big.run(v);
        },
      ]);
    } catch (caught) {
      error = caught;
    }
    expect((error as { code?: string }).code).toBe('SQLITE_FULL');
    expect(db.inTransaction).toBe(false);
    expect(values()).toEqual([]);
  });
  it('a batch of one: a refusal rolls its writes back, a failed commit throws, nothing half-written stays', () => {
    const insert = db.prepare('INSERT INTO t (v, p) VALUES (?, ?)');
    const commits = new SqliteGroupCommit(db);
    const refusal = RunStoreError.sequenceConflict('r', 1);
    expect(
      commits.run([
        () => {
          insert.run(1, null);
          throw refusal;
        },
      ]),
    ).toEqual([{ ok: false, error: refusal }]);
    expect(() => commits.run([() => insert.run(2, 99)])).toThrow(/FOREIGN KEY/);
    expect(() => commits.run([() => db.prepare('INSERT INTO nowhere VALUES (1)').run()])).toThrow(/no such table/);
    expect(commits.run([() => insert.run(3, null).changes])).toEqual([{ ok: true, value: 1 }]);
    expect(db.inTransaction).toBe(false);
    expect(values()).toEqual([3]);
  });
});
