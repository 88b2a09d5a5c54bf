// The batching rules of PostgresGroupCommit against a pool that records what it is sent (the
// statement itself runs against the real PostgreSQL in PostgresRunStore.test.ts, "group commit").
import { RunStoreError } from '@runledger/trace';
import { checkAppendStep } from '@runledger/trace/store';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { appendValues } from './ledger/appendStatement.js';
import { BATCH_MAX_APPENDS, PostgresGroupCommit } from './PostgresGroupCommit.js';
import { openPool } from './postgresConnections.js';
import { quoteSchemaName } from './quoteSchemaName.js';
import { connectTestStore, dropSchema, randomSchema, TEST_PG_URL } from './testing/pgTest.js';

/** An append's values (APPEND_VALUE_COUNT): run id, …, payload (index 5), …, the sequence it names (index 10, null: none), …, tokens (0) */
const valuesOf = (runId: string, payload = '{}', sequence: number | null = null): unknown[] => [
  runId,
  'tool',
  0,
  1,
  0,
  payload,
  null,
  null,
  null,
  null,
  sequence,
  null,
  null,
  null,
  null,
  null,
  0,
];

/** A pool whose batch statement answers every append with a sequence (or fails), and remembers the run ids of each batch. */
function fakePool(answer: (runIds: string[]) => { ord: number; sequence: number }[] | Error): { pool: pg.Pool; batches: string[][] } {
  const batches: string[][] = [];
  const pool = {
    query: async (config: { values: unknown[][] }) => {
      const runIds = config.values[0] as string[];
      batches.push(runIds);
      await new Promise((resolve) => setTimeout(resolve, 5));
      const result = answer(runIds);
      if (result instanceof Error) throw result;
      return { rows: result };
    },
  } as unknown as pg.Pool;
  return { pool, batches };
}

const everyOne = (runIds: string[]) => runIds.map((_, i) => ({ ord: i + 1, sequence: 100 + i }));

describe('PostgresGroupCommit', () => {
  it('sends the appends of one turn as one batch and resolves each with its own sequence', async () => {
    const { pool, batches } = fakePool(everyOne);
    const batcher = new PostgresGroupCommit(pool, '"s"', { queryTimeoutMs: 30_000 });
    const results = await Promise.all(['a', 'b', 'c'].map((run) => batcher.append(valuesOf(run))));
    expect(batches).toEqual([['a', 'b', 'c']]);
    expect(results).toEqual([100, 101, 102]);
  });

  it('leaves an append alone to its caller (null), without a batch', async () => {
    const { pool, batches } = fakePool(everyOne);
    const batcher = new PostgresGroupCommit(pool, '"s"', { queryTimeoutMs: 30_000 });
    expect(await batcher.append(valuesOf('a'))).toBeNull();
    expect(batches).toEqual([]);
  });

  it('gathers the appends that arrive while a batch is on its way into the next', async () => {
    const { pool, batches } = fakePool(everyOne);
    const batcher = new PostgresGroupCommit(pool, '"s"', { queryTimeoutMs: 30_000 });
    const first = Promise.all(['a', 'b'].map((run) => batcher.append(valuesOf(run))));
    await new Promise((resolve) => setImmediate(resolve)); // the first batch is on its way
    const second = Promise.all(['c', 'd', 'e'].map((run) => batcher.append(valuesOf(run))));
    await Promise.all([first, second]);
    expect(batches).toEqual([
      ['a', 'b'],
      ['c', 'd', 'e'],
    ]);
  });

  it('holds at most one append per run, in order, and at most BATCH_MAX_APPENDS', async () => {
    const { pool, batches } = fakePool(everyOne);
    const batcher = new PostgresGroupCommit(pool, '"s"', { queryTimeoutMs: 30_000 });
    const runs = ['a', 'b', 'a', 'c', 'a', ...Array.from({ length: BATCH_MAX_APPENDS + 10 }, (_, i) => `r${i}`)];
    const results = await Promise.all(runs.map((run) => batcher.append(valuesOf(run))));
    expect(batches[0]).toHaveLength(BATCH_MAX_APPENDS);
    expect(batches[0]!.slice(0, 3)).toEqual(['a', 'b', 'c']);
    // the second 'a' waits for the next batch (with the appends past the limit), the third for the
    // one after, where it is alone: its caller runs it (null)
    expect(batches).toHaveLength(2);
    expect(batches[1]).toEqual(['a', ...runs.slice(5 + BATCH_MAX_APPENDS - 3)]);
    expect(results[4]).toBeNull();
    expect(results.filter((sequence) => sequence === null)).toHaveLength(1);
  });

  it('hands back (null) the appends the statement left out, and all of them when it fails', async () => {
    const left = fakePool((runIds) => runIds.map((_, i) => ({ ord: i + 1, sequence: i })).filter((row) => row.ord !== 2));
    const some = new PostgresGroupCommit(left.pool, '"s"', { queryTimeoutMs: 30_000 });
    expect(await Promise.all(['a', 'b', 'c'].map((run) => some.append(valuesOf(run))))).toEqual([0, null, 2]);
    // the server refused the statement: rolled back whole, so each runs alone, named sequence or not
    const refused = fakePool(() => new pg.DatabaseError('deadlock detected', 0, 'error'));
    const none = new PostgresGroupCommit(refused.pool, '"s"', { queryTimeoutMs: 30_000 });
    expect(await Promise.all([none.append(valuesOf('a')), none.append(valuesOf('b', '{}', 4))])).toEqual([null, null]);
  });

  it('never runs alone an append without a named sequence whose batch may have committed (a dead or silent connection)', async () => {
    for (const lost of [new Error('Connection terminated unexpectedly'), new Error('Query read timeout')]) {
      const { pool } = fakePool(() => lost);
      const batcher = new PostgresGroupCommit(pool, '"s"', { queryTimeoutMs: 1_500 });
      const [unnamed, named] = await Promise.allSettled([batcher.append(valuesOf('a')), batcher.append(valuesOf('b', '{}', 4))]);
      // the one that named its sequence is stored once whichever way: alone it finds its step, or stores it
      expect(named).toEqual({ status: 'fulfilled', value: null });
      expect(unnamed.status).toBe('rejected');
      const error = (unnamed as PromiseRejectedResult).reason as unknown;
      expect(RunStoreError.is(error) && error.code).toBe('storage_failure');
      expect((error as Error).message).toContain(lost.message === 'Query read timeout' ? 'no answer within 1500 ms' : lost.message);
    }
  });

  it('lets nothing wait behind a batch gone silent: past stallMs, waiting and new appends run alone (null)', async () => {
    let sent = 0;
    const pool = {
      // the first batch's connection never answers
      query: () => (sent++ === 0 ? new Promise(() => {}) : Promise.reject(new Error('no second batch expected'))),
    } as unknown as pg.Pool;
    const batcher = new PostgresGroupCommit(pool, '"s"', { queryTimeoutMs: 30_000, stallMs: 50 });
    void Promise.all(['a', 'b'].map((run) => batcher.append(valuesOf(run))));
    await new Promise((resolve) => setImmediate(resolve)); // the first batch is on its way, and stays
    let early: number | null | 'waiting' = 'waiting';
    void batcher.append(valuesOf('c')).then((result) => (early = result));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(early, 'within stallMs an append waits for the next batch').toBe('waiting');
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(early, 'past stallMs what waited is its caller’s to run alone').toBeNull();
    expect(await batcher.append(valuesOf('d')), 'and so is what arrives while the batch stays silent').toBeNull();
    expect(sent, 'no second batch was sent while the first is on its way').toBe(1);
  });

  it('batches again once a stalled batch answers, and resolves the stalled appends with their sequences', async () => {
    const answers: (() => void)[] = [];
    const pool = {
      query: (config: { values: unknown[][] }) => {
        const rows = (config.values[0] as string[]).map((_, i) => ({ ord: i + 1, sequence: i }));
        return new Promise((resolve) => answers.push(() => resolve({ rows })));
      },
    } as unknown as pg.Pool;
    const batcher = new PostgresGroupCommit(pool, '"s"', { queryTimeoutMs: 30_000, stallMs: 30 });
    const first = Promise.all(['a', 'b'].map((run) => batcher.append(valuesOf(run))));
    await new Promise((resolve) => setImmediate(resolve));
    const waiting = Promise.all(['c', 'd'].map((run) => batcher.append(valuesOf(run))));
    expect(await waiting).toEqual([null, null]);
    answers.shift()!();
    expect(await first).toEqual([0, 1]);
    const again = Promise.all(['e', 'f'].map((run) => batcher.append(valuesOf(run))));
    await new Promise((resolve) => setImmediate(resolve));
    expect(answers, 'a new batch is on its way').toHaveLength(1);
    answers.shift()!();
    expect(await again).toEqual([0, 1]);
    await batcher.idle();
  });

  it('closes a batch before its payloads pass 2 MiB', async () => {
    const { pool, batches } = fakePool(everyOne);
    const batcher = new PostgresGroupCommit(pool, '"s"', { queryTimeoutMs: 30_000 });
    const big = 'x'.repeat(900 * 1024);
    await Promise.all(['a', 'b', 'c', 'd'].map((run) => batcher.append(valuesOf(run, big))));
    expect(batches.map((batch) => batch.length)).toEqual([2, 2]);
  });
});

/** What the process saw while `action` ran: errors no promise handled and exceptions nothing caught. */
async function escapes(action: () => Promise<void>): Promise<unknown[]> {
  const seen: unknown[] = [];
  const heard = (error: unknown): void => {
    seen.push(error);
  };
  process.on('unhandledRejection', heard);
  process.on('uncaughtException', heard);
  try {
    await action();
    // a rejection counts as unhandled once the microtasks after it have run
    await new Promise((resolve) => setTimeout(resolve, 10));
  } finally {
    process.off('unhandledRejection', heard);
    process.off('uncaughtException', heard);
  }
  return seen;
}

/** Whatever can sit where an append's payload text goes: text, or what a broken caller or check could leave there. */
const payloadSlot: fc.Arbitrary<() => unknown> = fc.oneof(
  { arbitrary: fc.jsonValue({ maxDepth: 1 }).map((json) => () => JSON.stringify({ json })), weight: 3 },
  {
    arbitrary: fc.constantFrom<() => unknown>(
      () => undefined,
      () => null,
      () => 42,
      () => 1n,
      () => ({ toJSON: () => undefined }),
      () => ({
        toJSON: () => {
          throw new Error('toJSON failed');
        },
      }),
      () => ({
        toPostgres: () => {
          throw new Error('toPostgres failed');
        },
      }),
      () => ({
        toPostgres: () => {
          throw Object.create(null) as Error; // not an Error, and String() of it throws
        },
      }),
      () => {
        const self: Record<string, unknown> = {};
        self['self'] = self;
        return self;
      },
      () => Symbol('s'),
      () => {
        const { proxy, revoke } = Proxy.revocable({}, {});
        revoke();
        return proxy;
      },
    ),
    weight: 2,
  },
);

describe('PostgresGroupCommit against PostgreSQL: total flush', () => {
  const schema = randomSchema('rl_batcher');
  afterAll(async () => {
    await dropSchema(schema);
  });

  it('settles every append and lets nothing escape, whatever sits in the payload slots of a batch (generated)', async () => {
    // the store creates the schema; the batcher gets a pool of its own, set up as the store's
    const store = await connectTestStore(schema);
    const pool = await openPool(TEST_PG_URL, 2, 'runledger-batcher-test');
    try {
      const runs = await Promise.all(Array.from({ length: 4 }, (_, i) => store.createRun({ configuration: `batcher-${i}`, createdAt: 1 })));
      const seen = await escapes(async () => {
        await fc.assert(
          fc.asyncProperty(
            fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), payloadSlot), { minLength: 2, maxLength: 5 }),
            async (appends) => {
              // a batcher of its own: a failure shrinks to its own input, not to a batcher left broken
              const batcher = new PostgresGroupCommit(pool, quoteSchemaName(schema)!, { queryTimeoutMs: 5_000 });
              const promises = appends.map(([run, slot]) => {
                const values = appendValues(
                  runs[run]!.id,
                  checkAppendStep({ kind: 'llm', round: 0, durationMs: 1, createdAt: 2, payload: {}, toolServer: null, toolOutcome: null }),
                );
                values[5] = slot();
                return batcher.append(values);
              });
              const settled = await Promise.race([
                Promise.allSettled(promises),
                new Promise<'waiting'>((resolve) => setTimeout(() => resolve('waiting'), 1_000)),
              ]);
              expect(settled, 'every append of the batch settles').not.toBe('waiting');
              for (const outcome of settled as PromiseSettledResult<number | null>[]) {
                if (outcome.status === 'rejected') expect(RunStoreError.is(outcome.reason), String(outcome.reason)).toBe(true);
                else expect(outcome.value === null || Number.isInteger(outcome.value)).toBe(true);
              }
              await batcher.idle();
            },
          ),
          { seed: 20_261_204, numRuns: 12 },
        );
      });
      expect(seen, 'no unhandled rejection, no uncaught exception').toEqual([]);
    } finally {
      await pool.end();
      await store.close();
    }
  });
});
