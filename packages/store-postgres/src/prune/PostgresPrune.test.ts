// PostgresRunStore.pruneRuns beyond the shared contract: the rollup equals the one rebuilt from
// the steps left for generated runs, cutoffs and batch sizes; appends and a second prune race it;
// a hidden run is gone for readers and writers and the next prune finishes it.
import { RunStoreError } from '@runledger/trace';
import { isPrunableRun, ROLLUP_LEVEL_SIZES } from '@runledger/trace/store';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { POSTGRES_PRUNE_BATCH_STEPS } from './PostgresPrune.js';
import { extremesOfLevelStatement } from './PostgresPruneRollup.js';
import type { PostgresRunStore } from '../PostgresRunStore.js';
import { movesSettled, setRollPendingAt } from '../PostgresRunStoreInternals.js';
import { adminQuery, connectTestStore, dropSchema, randomSchema, TEST_PG_URL } from '../testing/pgTest.js';
import { BASE, HOUR, MINUTE, rollupAndRebuilt, runIdsIn, seedRun, stepAt } from '../testing/pruneTest.js';

const schemas: string[] = [];
afterAll(async () => {
  for (const schema of schemas) await dropSchema(schema);
});

async function open(): Promise<{ store: PostgresRunStore; schema: string }> {
  const schema = randomSchema('rl_prune');
  schemas.push(schema);
  return { store: await connectTestStore(schema), schema };
}

const SERVERS = ['alpha', 'beta', 'gamma'] as const;
/** Times from 2 h before a day boundary to 4 h after it: every level's buckets are crossed. */
const timeArb = fc.integer({ min: BASE - 2 * HOUR, max: BASE + 4 * HOUR });
const stepArb = fc.record({
  createdAt: timeArb,
  server: fc.constantFrom(...SERVERS, null),
  outcome: fc.constantFrom('ok' as const, 'ok' as const, 'failed' as const, 'cancelled' as const),
  cause: fc.constantFrom(undefined, 'server_error' as const, 'mcp_timeout' as const, 'invalid_arguments' as const),
  durationMs: fc.double({ min: 0, max: 5000, noNaN: true }),
});
const runArb = fc.record({
  steps: fc.array(stepArb, { maxLength: 40 }),
  finishedAt: fc.option(fc.integer({ min: BASE - 2 * HOUR, max: BASE + 5 * HOUR }), { nil: null }),
  via: fc.constantFrom('import' as const, 'append' as const),
});

describe('PostgresRunStore.pruneRuns', () => {
  it(
    'deletes exactly the runs that ended before the cutoff, and leaves the rollup what the remaining steps make (generated)',
    { timeout: 120_000 },
    async () => {
      const { store, schema } = await open();
      try {
        await fc.assert(
          fc.asyncProperty(
            fc.array(runArb, { minLength: 1, maxLength: 6 }),
            timeArb,
            fc.integer({ min: 1, max: 30 }),
            // how often the store moves pending calls into the rollup: a prune meets some of each
            fc.integer({ min: 1, max: 40 }),
            async (runs, cutoff, batchSize, rollPendingAt) => {
              setRollPendingAt(store, rollPendingAt);
              await adminQuery(
                `DELETE FROM "${schema}".runs; DELETE FROM "${schema}".health_rollup; DELETE FROM "${schema}".health_causes;
                 DELETE FROM "${schema}".health_pending; DELETE FROM "${schema}".tool_rollup; DELETE FROM "${schema}".tool_causes`,
              );
              const seeded: { id: string; steps: number; finishedAt: number | null }[] = [];
              for (const run of runs) {
                const steps = run.steps.map((s) =>
                  stepAt({ ...s, ...(s.outcome === 'failed' && s.cause ? { cause: s.cause } : { cause: undefined }) }),
                );
                seeded.push({
                  id: await seedRun(store, { steps, finishedAt: run.finishedAt, via: run.via }),
                  steps: steps.length,
                  finishedAt: run.finishedAt,
                });
              }
              const old = seeded.filter((r) =>
                isPrunableRun({ status: r.finishedAt === null ? 'running' : 'completed', finishedAt: r.finishedAt }, cutoff),
              );
              const kept = seeded.filter((r) => !old.includes(r));
              const result = await store.pruneRuns({ olderThan: cutoff, batchSize });
              await movesSettled(store);
              expect(result).toMatchObject({ runs: old.length, steps: old.reduce((n, r) => n + r.steps, 0), complete: true });
              expect(await runIdsIn(schema)).toEqual(kept.map((r) => r.id).sort());
              for (const run of kept) expect((await store.readSteps(run.id)).length).toBe(run.steps);
              const { actual, rebuilt } = await rollupAndRebuilt(schema);
              expect(actual).toEqual(rebuilt);
            },
          ),
          { numRuns: 20 },
        );
      } finally {
        await store.close();
      }
    },
  );

  it(
    'races appends into the same buckets and a second prune: each run deleted once, no append lost, the rollup exact',
    { timeout: 60_000 },
    async () => {
      const { store, schema } = await open();
      const peer = await connectTestStore(schema);
      const writer = await connectTestStore(schema);
      // the writer moves its pending calls into the rollup every 5 calls: moves race the prunes too
      setRollPendingAt(writer, 5);
      let pruning = false;
      let appenders: Promise<void>[] = [];
      try {
        const calls = (n: number, salt: number) =>
          Array.from({ length: n }, (_, i) =>
            stepAt({
              createdAt: BASE + ((i * 7919 + salt * 104_729) % (90 * MINUTE)),
              server: SERVERS[(i + salt) % 3]!,
              outcome: (['ok', 'failed', 'cancelled', 'ok'] as const)[(i * 3 + salt) % 4]!,
              ...((i * 3 + salt) % 4 === 1 ? { cause: 'server_error' as const } : {}),
              durationMs: 1 + ((i * 31 + salt) % 900),
            }),
          );
        const old: string[] = [];
        let oldSteps = 0;
        for (let r = 0; r < 4; r++) {
          old.push(await seedRun(store, { steps: calls(600, r), finishedAt: BASE + 2 * HOUR, via: 'import' }));
          oldSteps += 600;
        }
        for (let r = 0; r < 20; r++) {
          old.push(await seedRun(store, { steps: calls(10, 10 + r), finishedAt: BASE + 2 * HOUR + r, via: 'import' }));
          oldSteps += 10;
        }
        const running = await Promise.all(
          [0, 1, 2].map((r) => seedRun(store, { steps: calls(5, 50 + r), finishedAt: null, via: 'import' })),
        );
        pruning = true;
        const appended = [0, 0, 0];
        appenders = running.map(async (id, r) => {
          // calls in the very minutes the prunes rebuild
          for (let i = 0; pruning; i++) {
            await writer.appendStep(id, calls(1, 200 + r * 1000 + i)[0]!);
            appended[r]!++;
          }
        });
        const [a, b] = await Promise.all([
          store.pruneRuns({ olderThan: BASE + 3 * HOUR, batchSize: 50 }),
          peer.pruneRuns({ olderThan: BASE + 3 * HOUR, batchSize: 70 }),
        ]);
        pruning = false;
        await Promise.all(appenders);
        await movesSettled(writer);
        expect(a.runs + b.runs).toBe(old.length);
        expect(a.steps + b.steps).toBe(oldSteps);
        expect(await runIdsIn(schema)).toEqual([...running].sort());
        for (const [r, id] of running.entries()) {
          const steps = await store.readSteps(id);
          expect(steps.map((s) => s.sequence)).toEqual(Array.from({ length: 5 + appended[r]! }, (_, i) => i));
        }
        expect(appended.every((n) => n > 0)).toBe(true);
        const { actual, rebuilt } = await rollupAndRebuilt(schema);
        expect(actual).toEqual(rebuilt);
      } finally {
        pruning = false;
        await Promise.allSettled(appenders);
        await Promise.all([store.close(), peer.close(), writer.close()]);
      }
    },
  );

  it('treats a run a prune hid as gone for readers and writers, and the next prune finishes it whatever its cutoff', async () => {
    const { store, schema } = await open();
    try {
      const steps = Array.from({ length: 30 }, (_, i) =>
        stepAt({ createdAt: BASE + i * 1000, server: 'alpha', outcome: i % 5 === 0 ? 'failed' : 'ok' }),
      );
      const hidden = await seedRun(store, { steps, finishedAt: BASE + HOUR, via: 'import' });
      const kept = await seedRun(store, { steps: steps.slice(0, 7), finishedAt: BASE + HOUR, via: 'import' });
      // what a prune killed between hiding the run and deleting its first chunk leaves
      await adminQuery(`UPDATE "${schema}".runs SET pruned_at = $2 WHERE id = $1`, [hidden, BASE + 2 * HOUR]);
      expect(await store.getRun(hidden)).toBeNull();
      expect(await store.readSteps(hidden)).toEqual([]);
      expect((await store.listRuns()).runs.map((r) => r.id)).toEqual([kept]);
      const appendError = await store.appendStep(hidden, stepAt({ createdAt: BASE, server: null })).catch((e: unknown) => e);
      expect(RunStoreError.is(appendError) && appendError.code).toBe('run_not_found');
      const cancelError = await store.requestCancel(hidden).catch((e: unknown) => e);
      expect(RunStoreError.is(cancelError) && cancelError.code).toBe('run_not_found');
      expect(await store.pruneRuns({ olderThan: BASE, dryRun: true })).toMatchObject({ runs: 0, steps: 0 });
      expect(await runIdsIn(schema)).toContain(hidden);

      const result = await store.pruneRuns({ olderThan: BASE, batchSize: 8 });
      expect(result).toEqual({
        runs: 0,
        steps: 30,
        oldestFinishedAt: null,
        newestFinishedAt: null,
        batches: 4,
        dryRun: false,
        complete: true,
      });
      expect(await runIdsIn(schema)).toEqual([kept]);
      const { actual, rebuilt } = await rollupAndRebuilt(schema);
      expect(actual).toEqual(rebuilt);
      expect((await store.serverHealth())[0]).toMatchObject({ server: 'alpha', calls: 7 });
    } finally {
      await store.close();
    }
  });

  it('deletes 500 steps a transaction when no batchSize is given, and keeps a given one', async () => {
    expect(POSTGRES_PRUNE_BATCH_STEPS).toBe(500);
    const { store } = await open();
    try {
      const seed = async (): Promise<void> => {
        for (let r = 0; r < 3; r++) {
          const steps = Array.from({ length: 400 }, (_, i) => stepAt({ createdAt: BASE - 2 * HOUR + i, server: 'alpha' }));
          await seedRun(store, { steps, finishedAt: BASE - HOUR, via: 'import' });
        }
      };
      await seed();
      // 3 runs of 400 steps: two never share a transaction of 500
      expect(await store.pruneRuns({ olderThan: BASE })).toMatchObject({ runs: 3, steps: 1200, batches: 3, complete: true });
      await seed();
      expect(await store.pruneRuns({ olderThan: BASE, batchSize: 2000 })).toMatchObject({
        runs: 3,
        steps: 1200,
        batches: 1,
        complete: true,
      });
    } finally {
      await store.close();
    }
  });

  it('recomputes a coarse bucket from the rows inside it, however long the history of its server', async () => {
    const { store, schema } = await open();
    await store.close();
    const DAY_LEVEL = 4;
    const day = ROLLUP_LEVEL_SIZES[DAY_LEVEL]!;
    const below = ROLLUP_LEVEL_SIZES[DAY_LEVEL - 1]!;
    // 20 000 six-hour rows of one server and shard (13 years), as a long-lived store holds
    await adminQuery(
      `INSERT INTO "${schema}".health_rollup (level, bucket_start, server, shard, ok, failed, cancelled, duration_min, duration_max, histogram)
       SELECT ${DAY_LEVEL - 1}, g * ${below}::bigint, 'alpha', 0, 1, 0, 0, g, g, array_fill(0, ARRAY[114])
       FROM generate_series(0, 19999) AS g;
       INSERT INTO "${schema}".health_rollup (level, bucket_start, server, shard, ok, failed, cancelled, duration_min, duration_max, histogram)
       VALUES (${DAY_LEVEL}, ${day * 2000}, 'alpha', 0, 4, 0, 0, 0, 0, array_fill(0, ARRAY[114]))`,
    );
    const client = new pg.Client({ connectionString: TEST_PG_URL });
    await client.connect();
    try {
      await client.query('BEGIN');
      const explained = await client.query<{ 'QUERY PLAN': unknown }>(
        `EXPLAIN (ANALYZE, FORMAT JSON) ${extremesOfLevelStatement(`"${schema}"`)}`,
        [[DAY_LEVEL], [day * 2000], ['alpha'], [0], day, below],
      );
      // rows the statement read from the level below (alias f): those inside the bucket, not the server's history
      let read = 0;
      const walk = (node: Record<string, unknown>): void => {
        if (node['Alias'] === 'f') read += (node['Actual Rows'] as number) * (node['Actual Loops'] as number);
        for (const child of (node['Plans'] as Record<string, unknown>[] | undefined) ?? []) walk(child);
      };
      walk((explained.rows[0]!['QUERY PLAN'] as { Plan: Record<string, unknown> }[])[0]!.Plan);
      expect(read).toBe(day / below);
      const row = await client.query(`SELECT duration_min, duration_max FROM "${schema}".health_rollup WHERE level = ${DAY_LEVEL}`);
      expect(row.rows[0]).toEqual({ duration_min: 8000, duration_max: 8003 });
      await client.query('ROLLBACK');
    } finally {
      await client.end();
    }
  });

  it('lists its candidates from the runs_ended index, and a hidden run from runs_pruned', async () => {
    const { store, schema } = await open();
    await store.close();
    const plan = async (sql: string): Promise<string> => {
      const client = new pg.Client({ connectionString: TEST_PG_URL });
      await client.connect();
      try {
        // on a table this small a sequential scan wins: ask which index the planner would take
        await client.query('SET enable_seqscan = off');
        return (await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`)).rows.map((row) => row['QUERY PLAN']).join('\n');
      } finally {
        await client.end();
      }
    };
    expect(
      await plan(`SELECT id FROM "${schema}".runs WHERE status <> 'running' AND finished_at < 5 AND pruned_at IS NULL
        AND (finished_at, id) > (-1, '00000000-0000-0000-0000-000000000000') ORDER BY finished_at, id LIMIT 2000`),
    ).toContain('runs_ended');
    expect(await plan(`SELECT id FROM "${schema}".runs WHERE pruned_at IS NOT NULL ORDER BY id`)).toContain('runs_pruned');
  });
});
