import type { RunQuery } from '@runledger/trace/store';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { adminQuery, connectTestStore, dropSchema, randomSchema, TEST_PG_URL } from './testing/pgTest.js';

const schemas: string[] = [];
afterAll(async () => {
  for (const schema of schemas) await dropSchema(schema);
});

/** The statements listRuns sends, caught on their way to the pool. */
async function listRunsSql(run: () => Promise<unknown>): Promise<{ text: string; values: unknown[] }> {
  const original = pg.Pool.prototype.query;
  let caught: { text: string; values: unknown[] } | undefined;
  pg.Pool.prototype.query = function (this: pg.Pool, text: unknown, values?: unknown) {
    // a statement as text and values, or as a query config (a timed one)
    const config = typeof text === 'string' ? { text, values: values as unknown[] } : (text as { text?: unknown; values?: unknown[] });
    if (typeof config.text === 'string' && config.text.includes('ORDER BY created_at DESC, id DESC')) {
      caught = { text: config.text, values: config.values ?? [] };
    }
    return (original as (...args: unknown[]) => unknown).call(this, text, values);
  } as typeof original;
  try {
    await run();
  } finally {
    pg.Pool.prototype.query = original;
  }
  if (caught === undefined) throw new Error('listRuns sent no statement');
  return caught;
}

describe('PostgresRunStore.listRuns at fleet size', () => {
  it('reads a filter through an index made for it (no scan of every run, no sort of the matches)', async () => {
    const schema = randomSchema('rl_fleet');
    schemas.push(schema);
    const store = await connectTestStore(schema);
    // 3 000 runs; the rare ones: interrupted (1 in 50), with cancelled calls (1 in 30), with failed calls (1 in 7)
    await adminQuery(
      `INSERT INTO "${schema}".runs (id, status, configuration, created_at, failed_count, cancelled_count)
       SELECT gen_random_uuid(), CASE WHEN r % 50 = 0 THEN 'interrupted' ELSE 'completed' END, 'c', 1700000000000 + r * 1000,
              (r % 7 = 0)::int, (r % 30 = 0)::int
       FROM generate_series(1, 3000) AS r;
       ANALYZE "${schema}".runs`,
    );
    const client = new pg.Client({ connectionString: TEST_PG_URL });
    await client.connect();
    try {
      // seq and bitmap scans off: the planner takes an index scan whenever one can serve the query, so the
      // plan shows which, and whether it hands out the rows in page order (no Sort)
      await client.query('SET enable_seqscan = off; SET enable_bitmapscan = off');
      const cases: [RunQuery, RegExp][] = [
        [{ status: 'interrupted' }, /runs_status_created/],
        [{ hasOutcome: 'cancelled' }, /runs_cancelled_created/],
        [{ hasOutcome: 'failed' }, /runs_failed_created/],
        [{ status: 'interrupted', hasOutcome: 'cancelled' }, /runs_status_created|runs_cancelled_created/],
      ];
      for (const [query, index] of cases) {
        const { text, values } = await listRunsSql(() => store.listRuns(query));
        const plan = (await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, values)).rows
          .map((row) => row['QUERY PLAN'])
          .join('\n');
        expect(plan, JSON.stringify(query)).toMatch(index);
        expect(plan, JSON.stringify(query)).not.toMatch(/runs_created|Sort/);
        const page = await store.listRuns({ ...query, limit: 5 });
        expect(page.runs.length).toBe(5);
        if (query.status !== undefined) expect(page.runs.every((run) => run.status === query.status)).toBe(true);
        if (query.hasOutcome !== undefined) expect(page.runs.every((run) => run.outcomeCounts[query.hasOutcome!] > 0)).toBe(true);
      }
    } finally {
      await client.end();
      await store.close();
    }
  });
});
