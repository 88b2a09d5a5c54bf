import { describe, expect, it } from 'vitest';
import type { BatchOutcome } from './SqliteGroupCommit.js';
import { type GroupRunner, WriteQueue } from './WriteQueue.js';
import { RunStoreError } from '@runledger/trace';

/** A runner that records each batch and what ran when, standing in for SqliteGroupCommit's transaction. */
function recordingRunner(limits: { maxWrites?: number; maxBytes?: number } = {}) {
  const log: string[] = [];
  const batches: number[] = [];
  let failNext: unknown = null;
  const runner: GroupRunner = {
    maxWrites: limits.maxWrites ?? 256,
    maxBytes: limits.maxBytes ?? 1 << 20,
    run(writes) {
      if (failNext !== null) {
        const error = failNext;
        failNext = null;
        throw error;
      }
      batches.push(writes.length);
      log.push(`begin ${writes.length}`);
      const outcomes: BatchOutcome[] = writes.map((write) => {
        try {
          return { ok: true, value: write() };
        } catch (error) {
          return { ok: false, error };
        }
      });
      log.push('commit');
      return outcomes;
    },
  };
  return { runner, log, batches, failWith: (error: unknown) => (failNext = error) };
}

const busy = () => Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });

describe('WriteQueue.group', () => {
  it('commits the writes of one turn together and resolves each only after the commit', async () => {
    const { runner, log, batches } = recordingRunner();
    const queue = new WriteQueue(1000, runner);
    const done = Array.from({ length: 16 }, (_, i) =>
      queue.group(() => {
        log.push(`write ${i}`);
        return i;
      }, 10),
    );
    // nothing runs in the turn the writes are asked in
    expect(log).toEqual([]);
    const settled = done.map((promise) => promise.then((value) => log.push(`resolved ${value}`)));
    await Promise.all(settled);
    expect(batches).toEqual([16]);
    expect(log.indexOf('commit')).toBe(17);
    expect(log.slice(18)).toEqual(Array.from({ length: 16 }, (_, i) => `resolved ${i}`));
  });

  it('keeps the order of every write: a plain write closes the batch, later group writes commit after it', async () => {
    const { runner, log, batches } = recordingRunner();
    const queue = new WriteQueue(1000, runner);
    const results = [
      queue.group(() => log.push('a1'), 0),
      queue.group(() => log.push('a2'), 0),
      queue.write(() => log.push('finish')),
      queue.group(() => log.push('b1'), 0),
    ];
    await Promise.all(results);
    expect(log).toEqual(['begin 2', 'a1', 'a2', 'commit', 'finish', 'begin 1', 'b1', 'commit']);
    expect(batches).toEqual([2, 1]);
  });

  it('closes a batch at maxWrites and at maxBytes', async () => {
    const byCount = recordingRunner({ maxWrites: 3 });
    const counted = new WriteQueue(1000, byCount.runner);
    await Promise.all(Array.from({ length: 7 }, (_, i) => counted.group(() => i, 1)));
    expect(byCount.batches).toEqual([3, 3, 1]);

    const byBytes = recordingRunner({ maxBytes: 100 });
    const sized = new WriteQueue(1000, byBytes.runner);
    await Promise.all([60, 30, 20, 200, 5].map((bytes) => sized.group(() => bytes, bytes)));
    // 60 + 30 + 20 reaches 100: closed; 200 alone; 5 opens the next
    expect(byBytes.batches).toEqual([3, 1, 1]);
  });

  it('rejects only the write that refused; the others of its batch resolve', async () => {
    const { runner, batches } = recordingRunner();
    const queue = new WriteQueue(1000, runner);
    const refusal = RunStoreError.runNotFound('nope');
    const results = await Promise.allSettled([
      queue.group(() => 1, 0),
      queue.group(() => {
        throw refusal;
      }, 0),
      queue.group(() => 3, 0),
    ]);
    expect(batches).toEqual([3]);
    expect(results).toEqual([
      { status: 'fulfilled', value: 1 },
      { status: 'rejected', reason: refusal },
      { status: 'fulfilled', value: 3 },
    ]);
  });

  it('rejects every write of a batch whose commit failed, with a storage_failure', async () => {
    const { runner, failWith } = recordingRunner();
    const queue = new WriteQueue(1000, runner);
    failWith(Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' }));
    const results = await Promise.allSettled([queue.group(() => 1, 0), queue.group(() => 2, 0)]);
    for (const result of results) {
      expect(result.status).toBe('rejected');
      const reason = (result as PromiseRejectedResult).reason as RunStoreError;
      expect(reason.code).toBe('storage_failure');
      expect(reason.message).toContain('disk I/O error');
    }
    // the queue goes on: the next batch commits
    await expect(queue.group(() => 3, 0)).resolves.toBe(3);
  });

  it('runs a whole batch again when it met another connection’s lock', async () => {
    const { runner, batches, failWith } = recordingRunner();
    const queue = new WriteQueue(1000, runner);
    failWith(busy());
    await expect(Promise.all([queue.group(() => 1, 0), queue.group(() => 2, 0)])).resolves.toEqual([1, 2]);
    expect(batches).toEqual([2]);
  });

  it('rejects the batch with a storage_failure naming busyTimeoutMs when the lock outlasts it', async () => {
    const runner: GroupRunner = {
      maxWrites: 256,
      maxBytes: 1 << 20,
      run: () => {
        throw busy();
      },
    };
    const queue = new WriteQueue(30, runner);
    const results = await Promise.allSettled([queue.group(() => 1, 0), queue.group(() => 2, 0)]);
    for (const result of results) {
      expect((result as PromiseRejectedResult).reason).toMatchObject({
        code: 'storage_failure',
        message: expect.stringContaining('busyTimeoutMs'),
      });
    }
  });

  it('commits a lone writer’s next write at once, and shares the turn again as soon as another writer comes', async () => {
    const { runner, log, batches } = recordingRunner();
    const queue = new WriteQueue(1000, runner);
    await queue.group(() => log.push('a1'), 0, 'a');
    // a's last batch held only a's write: its next one commits in the call, without waiting a turn
    const a2 = queue.group(() => log.push('a2'), 0, 'a');
    expect(log).toEqual(['begin 1', 'a1', 'commit', 'begin 1', 'a2', 'commit']);
    await a2;
    // another writer: it waits for the turn, and a's next write shares its batch
    const b1 = queue.group(() => log.push('b1'), 0, 'b');
    const a3 = queue.group(() => log.push('a3'), 0, 'a');
    expect(log).toHaveLength(6);
    await Promise.all([b1, a3]);
    const a4 = queue.group(() => log.push('a4'), 0, 'a');
    expect(log).toHaveLength(10); // the last batch held two writers: a waits again
    await a4;
    expect(batches).toEqual([1, 1, 2, 1]);
  });

  it('refuses a lone writer’s write committed at once with its own error, a lock outlasting the budget as a storage_failure', async () => {
    let fail: unknown = null;
    const runner: GroupRunner = {
      maxWrites: 256,
      maxBytes: 1 << 20,
      run: (writes) => {
        if (fail !== null) throw fail;
        return writes.map((write) => {
          try {
            return { ok: true, value: write() };
          } catch (error) {
            return { ok: false, error };
          }
        });
      },
    };
    const queue = new WriteQueue(30, runner);
    await queue.group(() => 1, 0, 'a');
    const refusal = RunStoreError.runNotFound('a');
    await expect(
      queue.group(
        () => {
          throw refusal;
        },
        0,
        'a',
      ),
    ).rejects.toBe(refusal);
    fail = busy();
    await expect(queue.group(() => 2, 0, 'a')).rejects.toMatchObject({
      code: 'storage_failure',
      message: expect.stringContaining('busyTimeoutMs'),
    });
  });

  it('is a plain write without a runner', async () => {
    const queue = new WriteQueue(1000);
    const log: string[] = [];
    const done = queue.group(() => log.push('now'), 0);
    // as before group commit: an idle queue runs the write at once
    expect(log).toEqual(['now']);
    await expect(done).resolves.toBe(1);
  });

  it('drained waits for the open batch', async () => {
    const { runner, batches } = recordingRunner();
    const queue = new WriteQueue(1000, runner);
    void queue.group(() => 1, 0);
    await queue.drained();
    expect(batches).toEqual([1]);
  });
});

describe('WriteQueue.commits', () => {
  it('counts the writes and group batches that ran without an error, once each however often a lock made them run again', async () => {
    const { runner, failWith } = recordingRunner();
    const queue = new WriteQueue(1000, runner);
    expect(queue.commits).toBe(0);
    await queue.write(() => 1);
    await Promise.all([queue.group(() => 2, 1), queue.group(() => 3, 1)]);
    expect(queue.commits).toBe(2);
    // a write refused (not a lock) is no commit
    await expect(
      queue.write(() => {
        throw new Error('refused');
      }),
    ).rejects.toThrow();
    expect(queue.commits).toBe(2);
    // a batch that met a lock once and then committed counts once
    failWith(busy());
    await queue.group(() => 4, 1);
    let tries = 0;
    await queue.write(() => {
      if (++tries === 1) throw busy();
      return 5;
    });
    expect(queue.commits).toBe(4);
  });
});
