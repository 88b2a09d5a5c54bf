// A prune whose connections are terminated (pg_terminate_backend from another connection) while
// it deletes several big runs: every run is whole or gone, the rollup is what the steps left make,
// and the next prune finishes the job.
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresRunStore } from '../PostgresRunStore.js';
import { adminQuery, connectTestStore, dropSchema, randomSchema, requirePostgres, TEST_PG_URL } from '../testing/pgTest.js';
import { BASE, HOUR, rollupAndRebuilt, runIdsIn, seedRun, stepAt } from '../testing/pruneTest.js';
import { RunStoreError } from '@runledger/trace';

const schemas: string[] = [];
afterAll(async () => {
  for (const schema of schemas) await dropSchema(schema);
});

const SERVERS = ['alpha', 'beta', 'gamma'];
const calls = (n: number, salt: number) =>
  Array.from({ length: n }, (_, i) =>
    stepAt({
      createdAt: BASE + Math.floor((i * 3 * HOUR) / n) + salt,
      server: i % 9 === 8 ? null : SERVERS[(i + salt) % 3]!,
      outcome: (['ok', 'ok', 'failed', 'cancelled'] as const)[(i + salt) % 4]!,
      ...((i + salt) % 4 === 2 ? { cause: (['server_error', 'mcp_timeout'] as const)[i % 2]! } : {}),
      durationMs: 1 + ((i * 37 + salt) % 2000),
    }),
  );

/** Whole (its row and all its steps) or gone (neither), as a reader sees it. */
async function state(store: PostgresRunStore, id: string): Promise<'whole' | 'gone' | string> {
  const run = await store.getRun(id);
  const steps = await store.readSteps(id);
  if (run === null) return steps.length === 0 ? 'gone' : `orphan steps ${steps.length}`;
  if (steps.length === run.stepCount) return 'whole';
  // two reads, two snapshots: a run the prune hid between them reads as no steps, and is gone now
  if (steps.length === 0 && (await store.getRun(id)) === null) return 'gone';
  return `part ${steps.length}/${run.stepCount}`;
}

describe('a prune whose connections are terminated mid-way', () => {
  it('leaves every run whole or gone and the rollup exact; the next prune finishes the job', { timeout: 120_000 }, async () => {
    await requirePostgres();
    const schema = randomSchema('rl_prune_fault');
    schemas.push(schema);
    const reader = await connectTestStore(schema);
    const victim = await PostgresRunStore.connect({
      connectionString: TEST_PG_URL,
      schema,
      poolSize: 2,
      applicationName: 'rl-prune-victim',
    });
    try {
      const cutoff = BASE + 4 * HOUR;
      const old: string[] = [];
      for (let r = 0; r < 5; r++)
        old.push(await seedRun(reader, { steps: calls(3000, r), finishedAt: BASE + 3 * HOUR + r, via: 'import' }));
      const kept = [
        await seedRun(reader, { steps: calls(500, 7), finishedAt: cutoff + 1, via: 'import' }),
        await seedRun(reader, { steps: calls(400, 8), finishedAt: null, via: 'import' }),
      ];
      const keptBefore = await Promise.all(kept.map(async (id) => [await reader.getRun(id), await reader.readSteps(id)]));

      const pruning = victim.pruneRuns({ olderThan: cutoff, batchSize: 100 });
      let settled = false;
      const outcome = pruning.then(
        (result) => ({ result, error: null }),
        (error: unknown) => ({ result: null, error }),
      );
      void outcome.then(() => (settled = true));
      // once a big run is hidden and part of its steps are gone, terminate the prune's backends
      // until the prune fails (an idle one only costs the pool a reconnect)
      const seen = new Set<string>();
      let kills = 0;
      for (let waited = 0; !settled; waited++) {
        for (const id of old) seen.add(await state(reader, id));
        const progress = await adminQuery<{ hidden: number; left: number }>(
          `SELECT (SELECT count(*)::int FROM "${schema}".runs WHERE pruned_at IS NOT NULL) AS hidden,
                  (SELECT count(*)::int FROM "${schema}".steps WHERE run_id = ANY ($1::uuid[])) AS left`,
          [old],
        );
        const { hidden, left } = progress.rows[0]!;
        if (hidden > 0 && left < 15_000 - 250) {
          const killed = await adminQuery(
            `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'rl-prune-victim' AND datname = current_database()`,
          );
          kills += killed.rowCount ?? 0;
        }
        expect(waited).toBeLessThan(20_000);
      }
      const { result, error } = await outcome;
      expect(result).toBeNull();
      expect(RunStoreError.is(error) && error.code).toBe('storage_failure');
      expect(kills).toBeGreaterThan(0);
      expect([...seen].filter((s) => s !== 'whole' && s !== 'gone')).toEqual([]);

      // stopped mid-way: some old runs still there, whole or hidden (gone for readers)
      const states = await Promise.all(old.map((id) => state(reader, id)));
      expect(states.every((s) => s === 'whole' || s === 'gone')).toBe(true);
      expect((await runIdsIn(schema)).filter((id) => old.includes(id)).length).toBeGreaterThan(0);
      let { actual, rebuilt } = await rollupAndRebuilt(schema);
      expect(actual).toEqual(rebuilt);
      const left = (
        await adminQuery<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}".steps WHERE run_id = ANY ($1::uuid[])`, [old])
      ).rows[0]!.n;
      expect(left).toBeGreaterThan(0);
      expect(left).toBeLessThan(15_000);

      // the next prune (another process's store) finishes the hidden run first, then the rest
      const next = await reader.pruneRuns({ olderThan: cutoff, batchSize: 100 });
      expect(next.complete).toBe(true);
      expect(next.steps).toBe(left);
      expect(await runIdsIn(schema)).toEqual([...kept].sort());
      for (const id of old) expect(await state(reader, id)).toBe('gone');
      ({ actual, rebuilt } = await rollupAndRebuilt(schema));
      expect(actual).toEqual(rebuilt);
      expect(await Promise.all(kept.map(async (id) => [await reader.getRun(id), await reader.readSteps(id)]))).toEqual(keptBefore);
    } finally {
      await victim.close().catch(() => undefined);
      await reader.close();
    }
  });
});
