// A run read back in pages (readStepsOf with a page of 3 steps) against real PostgreSQL: the whole
// run in order from any sequence, a limited read as one statement, and never a part of a run whose
// steps are being deleted in chunks (as a prune deletes a run bigger than its batch).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPool } from '../postgresConnections.js';
import { PostgresRunStore } from '../PostgresRunStore.js';
import { readStepsOf, type StepsReadContext } from './PostgresStepsRead.js';
import { dropSchema, randomSchema, requirePostgres, TEST_PG_URL } from '../testing/pgTest.js';
import { BASE, seedRun, stepAt } from '../testing/pruneTest.js';

const schema = randomSchema('rl_read');
let store: PostgresRunStore;
let pool: pg.Pool;
let context: StepsReadContext;

beforeAll(async () => {
  await requirePostgres();
  store = await PostgresRunStore.connect({ connectionString: TEST_PG_URL, schema, poolSize: 2 });
  // the store's own kind of pool: its type parsers and session settings
  pool = await openPool(TEST_PG_URL, 4, 'runledger-test');
  context = { pool, q: `"${schema}"`, timeoutMs: 10_000, page: 3 };
});

afterAll(async () => {
  await pool?.end();
  await store?.close();
  await dropSchema(schema);
});

/** A finished run of `n` steps (imported). */
function seed(n: number): Promise<string> {
  const steps = Array.from({ length: n }, (_, i) => stepAt({ createdAt: BASE + i, server: i % 2 === 0 ? 'alpha' : null }));
  return seedRun(store, { steps, finishedAt: BASE + n, via: 'import' });
}

describe('readStepsOf', () => {
  it('reads a run longer than a page whole, in order, from any sequence; a limit is one page of that size', async () => {
    const id = await seed(10);
    const sequences = async (from: number, limit: number | null): Promise<number[]> =>
      (await readStepsOf(context, id, from, limit)).map((s) => s.sequence);
    expect(await sequences(0, null)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(await sequences(4, null)).toEqual([4, 5, 6, 7, 8, 9]);
    expect(await sequences(7, null)).toEqual([7, 8, 9]);
    expect(await sequences(9, null)).toEqual([9]);
    expect(await sequences(10, null)).toEqual([]);
    expect(await sequences(1, 5)).toEqual([1, 2, 3, 4, 5]);
    // exactly a page, and one more
    expect((await readStepsOf(context, await seed(3), 0, null)).length).toBe(3);
    expect((await readStepsOf(context, await seed(4), 0, null)).length).toBe(4);
    // the same steps as the store's own read
    expect(await readStepsOf(context, id, 0, null)).toEqual(await store.readSteps(id));
  });

  it(
    'never returns part of a run whose steps another connection deletes in chunks (one snapshot for all its pages)',
    { timeout: 60_000 },
    async () => {
      const steps = 120;
      const deleter = new pg.Client({ connectionString: TEST_PG_URL });
      await deleter.connect();
      const seen = new Map<number, number>();
      try {
        for (let round = 0; round < 4; round++) {
          const id = await seed(steps);
          let deleting = true;
          // hides the run, then deletes its steps 10 at a time, each chunk its own transaction, then the row
          const deleted = (async () => {
            // some reads begin first
            await new Promise((resolve) => setTimeout(resolve, 5));
            await deleter.query(`UPDATE "${schema}".runs SET pruned_at = $2 WHERE id = $1`, [id, Date.now()]);
            for (let from = 0; from < steps; from += 10) {
              await deleter.query(`DELETE FROM "${schema}".steps WHERE run_id = $1 AND sequence >= $2 AND sequence < $3`, [
                id,
                from,
                from + 10,
              ]);
            }
            await deleter.query(`DELETE FROM "${schema}".runs WHERE id = $1`, [id]);
            deleting = false;
          })();
          // reads that began before the hide see the run whole; later ones none of it
          const reads: Promise<number>[] = [];
          while (deleting) {
            reads.push(readStepsOf(context, id, 0, null).then((read) => read.length));
            await new Promise((resolve) => setTimeout(resolve, 1));
          }
          await deleted;
          for (const length of await Promise.all(reads)) seen.set(length, (seen.get(length) ?? 0) + 1);
        }
      } finally {
        await deleter.end();
      }
      expect(
        [...seen.keys()].filter((length) => length !== 0 && length !== steps),
        `lengths read: ${JSON.stringify([...seen])}`,
      ).toEqual([]);
      console.info(`whole-run reads (length: how many) while a run's steps were deleted in chunks: ${JSON.stringify([...seen])}`);
      // reads that began before the hide went on through the deletes, and came back whole
      expect(seen.get(steps) ?? 0, `lengths read: ${JSON.stringify([...seen])}`).toBeGreaterThan(0);
    },
  );
});
