import type { PostgresRunStore } from './PostgresRunStore.js';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { adminQuery, connectTestStore, dropSchema, randomSchema, TEST_PG_URL } from './testing/pgTest.js';
import type { RunQuery } from '@runledger/trace';

const schemas: string[] = [];
afterAll(async () => {
  for (const schema of schemas) await dropSchema(schema);
});

/** The statement a read sends (the last one whose text includes `marker`), caught on its way to the pool. */
async function sentSql(
  run: () => Promise<unknown>,
  marker = 'ORDER BY created_at DESC, id DESC',
): Promise<{ text: string; values: unknown[] }> {
  const original = pg.Pool.prototype.query;
  let caught: { text: string; values: unknown[] } | undefined;
  pg.Pool.prototype.query = function (this: pg.Pool, text: unknown, values?: unknown) {
    // a statement as text and values, or as a query config (a timed one)
    const config = typeof text === 'string' ? { text, values: values as unknown[] } : (text as { text?: unknown; values?: unknown[] });
    if (typeof config.text === 'string' && config.text.includes(marker)) {
      caught = { text: config.text, values: config.values ?? [] };
    }
    return (original as (...args: unknown[]) => unknown).call(this, text, values);
  } as typeof original;
  try {
    await run();
  } finally {
    pg.Pool.prototype.query = original;
  }
  if (caught === undefined) throw new Error(`no statement with ${JSON.stringify(marker)} was sent`);
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
        const { text, values } = await sentSql(() => store.listRuns(query));
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

/** The plan of a statement a read sends, with seq and bitmap scans off: the index scan the planner takes shows, and whether it sorts. */
async function planOf(client: pg.Client, read: () => Promise<unknown>, marker?: string): Promise<string> {
  const { text, values } = await sentSql(read, marker);
  return (await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, values)).rows.map((row) => row['QUERY PLAN']).join('\n');
}

describe('PostgresRunStore search reads at fleet size', () => {
  it('reads one server’s calls, the server / tool filters and an id prefix through the indexes of schemas 12 and 13', async () => {
    const schema = randomSchema('rl_fleet');
    schemas.push(schema);
    const store: PostgresRunStore = await connectTestStore(schema);
    // 3 000 runs of 10 ended calls each over 20 servers (tools t0–t4), one llm step each; and running calls (no outcome)
    await adminQuery(
      `INSERT INTO "${schema}".runs (id, status, configuration, created_at, next_sequence, tokens)
       SELECT gen_random_uuid(), 'completed', 'c', 1700000000000 + r * 1000, 11, r FROM generate_series(1, 3000) AS r;
       INSERT INTO "${schema}".steps (run_id, sequence, kind, round, duration_ms, created_at, payload, call_server, call_outcome, call_tool)
       SELECT id, i, CASE WHEN i = 10 THEN 'llm' ELSE 'tool' END, 0, 5, created_at + i, '{}',
              CASE WHEN i < 10 THEN 's' || ((hashtext(id::text) & 1023) + i) % 20 END,
              CASE WHEN i < 10 THEN (ARRAY['ok', 'failed', 'cancelled'])[i % 3 + 1] END,
              CASE WHEN i < 10 THEN 't' || i % 5 END
       FROM "${schema}".runs, generate_series(0, 10) AS i;
       ANALYZE "${schema}".runs`,
    );
    // vacuumed as autovacuum leaves a fleet's settled table (its visibility map set): without it the
    // planner's choice between an index-only scan and an index scan of the same index turned on
    // whether autovacuum had reached the fresh table yet (a Node 24 pass got the latter)
    await adminQuery(`VACUUM ANALYZE "${schema}".steps`);
    const client = new pg.Client({ connectionString: TEST_PG_URL });
    await client.connect();
    try {
      await client.query('SET enable_seqscan = off; SET enable_bitmapscan = off');
      // one server's calls: its own range of steps_call_server, backwards, already in page order
      const first = await store.listToolCalls({ server: 's7', limit: 5 });
      expect(first.calls.length).toBe(5);
      for (const query of [{ server: 's7' }, { server: 's7', outcome: 'ok' as const }, { server: 's7', cursor: first.nextCursor }]) {
        const plan = await planOf(client, () => store.listToolCalls(query), 's.sequence DESC');
        expect(plan, JSON.stringify(query)).toMatch(/Index (Only )?Scan Backward using steps_call_server on/);
        expect(plan, JSON.stringify(query)).toMatch(/Index Cond: \(+call_server = /);
        expect(plan, JSON.stringify(query)).not.toMatch(/Sort|Seq Scan/);
      }
      // its failed (or cancelled) calls alone, as a server page lists them: schema 13's index of those
      // calls only, never its ok calls read and dropped
      const failed = await store.listToolCalls({ server: 's7', outcome: 'failed', limit: 5 });
      expect(failed.calls.map((call) => call.outcome)).toEqual(Array(5).fill('failed'));
      for (const query of [
        { server: 's7', outcome: 'failed' as const },
        { server: 's7', outcome: 'failed' as const, since: 1700000500000, until: 1700002500000 },
        { server: 's7', outcome: 'failed' as const, cursor: failed.nextCursor },
        { server: 's7', outcome: 'cancelled' as const },
      ]) {
        const plan = await planOf(client, () => store.listToolCalls(query), 's.sequence DESC');
        expect(plan, JSON.stringify(query)).toMatch(/Index (Only )?Scan Backward using steps_call_server_trouble on/);
        expect(plan, JSON.stringify(query)).toMatch(/Index Cond: \(+call_server = [^\n]*call_outcome = /);
        expect(plan, JSON.stringify(query)).not.toMatch(/Sort|Seq Scan|Filter: .*call_outcome/);
      }
      // the server and tool filters: the run's own calls, by index
      const filters: RunQuery[] = [{ server: 's7' }, { tool: 't3' }, { server: 's7', tool: 't3' }];
      for (const query of filters) {
        const plan = await planOf(client, () => store.listRuns(query));
        expect(plan, JSON.stringify(query)).toMatch(
          /Index Only Scan using steps_run_calls on steps s[^\n]*\n\s*Index Cond: \(\(run_id = runs\.id\)/,
        );
        expect(plan, JSON.stringify(query)).not.toMatch(/Seq Scan|Sort/);
        // the totals read every matching run: by the runs' own calls or one server's calls, never the whole steps table
        const totals = await planOf(client, () => store.runTotals(query), 'AS runs');
        expect(totals, JSON.stringify(query)).toMatch(/Index Only Scan using (steps_run_calls|steps_call_server) on steps/);
        expect(totals, JSON.stringify(query)).not.toMatch(/Seq Scan/);
      }
      // counted up to a number of runs: the filters' own reads, stopped after upTo + 1 runs, never sorted
      for (const query of [{}, { configuration: 'c' }, { server: 's7' }]) {
        const plan = await planOf(client, () => store.runTotals({ ...query, upTo: 100 }), 'AS counted');
        // (a scan of runs in any order is fine: the Limit above it stops it)
        expect(plan, JSON.stringify(query)).toMatch(/Aggregate[^\n]*\n\s*->\s+Limit/);
        expect(plan, JSON.stringify(query)).not.toMatch(/Sort|Seq Scan on steps/);
      }
      expect(await store.runTotals({ upTo: 100 })).toMatchObject({ runs: 100, complete: false });
      expect(await store.runTotals({ upTo: 3000 })).toMatchObject({ runs: 3000, tokens: (3000 * 3001) / 2, complete: true });
      expect(await store.runTotals({ upTo: 2999 })).toMatchObject({ runs: 2999, tokens: (3000 * 3001) / 2 - 1, complete: false });
      // an id prefix: a range of the primary key
      const plan = await planOf(client, () => store.findRunIdsByPrefix('A1'), 'ORDER BY id');
      expect(plan).toMatch(/Index Scan using runs_pkey/);
      expect(plan).toMatch(
        /Index Cond: \(\(id >= '?a1000000-0000-0000-0000-000000000000'?::uuid\) AND \(id <= '?a1ffffff-ffff-ffff-ffff-ffffffffffff'?::uuid\)\)/,
      );
    } finally {
      await client.end();
      await store.close();
    }
  });

  it('finds a title through the pg_trgm index of schema 14 (built over the titles there were), page and totals alike', async () => {
    const schema = randomSchema('rl_fleet');
    schemas.push(schema);
    let store: PostgresRunStore = await connectTestStore(schema);
    // 3 000 titled runs, 6 of them deploys; laid out as schema 13 had them (no index), then migrated
    await adminQuery(
      `INSERT INTO "${schema}".runs (id, status, configuration, created_at, title)
       SELECT gen_random_uuid(), 'completed', 'c', 1700000000000 + r * 1000,
              CASE WHEN r % 500 = 7 THEN 'Deploy Needle ' || r ELSE 'Nightly run ' || r END
       FROM generate_series(1, 3000) AS r;
       DROP INDEX "${schema}".runs_title_trgm; DELETE FROM "${schema}".schema_version WHERE version >= 14`,
    );
    await store.close();
    store = await connectTestStore(schema);
    await adminQuery(`ANALYZE "${schema}".runs`);
    const client = new pg.Client({ connectionString: TEST_PG_URL });
    await client.connect();
    try {
      // the planner's own choice (no scan turned off): a rare title is read through the index
      const index = /Bitmap Index Scan on runs_title_trgm/;
      const list = await planOf(client, () => store.listRuns({ titleContains: 'NEEDLE' }));
      expect(list).toMatch(index);
      expect(list).not.toMatch(/Index Scan using runs_created|Seq Scan/);
      for (const upTo of [undefined, 100]) {
        const totals = await planOf(
          client,
          () => store.runTotals({ titleContains: 'NEEDLE', ...(upTo === undefined ? {} : { upTo }) }),
          'AS runs',
        );
        expect(totals).toMatch(index);
        expect(totals).not.toMatch(/Seq Scan/);
      }
      const deploys = [2507, 2007, 1507, 1007, 507, 7].map((r) => `Deploy Needle ${r}`);
      expect((await store.listRuns({ titleContains: 'needle' })).runs.map((run) => run.title)).toEqual(deploys);
      expect(await store.runTotals({ titleContains: 'needle' })).toMatchObject({ runs: 6, complete: true });
      // LIKE's characters are literal; shorter than a trigram: the same rule, read without the index
      expect((await store.listRuns({ titleContains: 'e_N' })).runs).toEqual([]);
      expect((await store.listRuns({ titleContains: 'le 2%' })).runs).toEqual([]);
      expect((await store.listRuns({ titleContains: 'y 7' })).runs.map((run) => run.title)).toEqual([]);
      const with07 = Array.from({ length: 3000 }, (_, i) => String(i + 1)).filter((r) => r.includes('07')).length;
      expect((await store.runTotals({ titleContains: '07' })).runs).toBe(with07);
    } finally {
      await client.end();
      await store.close();
    }
  });
});
