import { readFileSync } from 'node:fs';
import { buildRunTimeline, RunStoreError, type StoredStep } from '@runledger/trace';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresRunStore } from '../PostgresRunStore.js';
import pg from 'pg';
import { DURATION_HISTOGRAM_SLOTS, ROLLUP_LEVEL_SIZES, serverHealth, stepTokens } from '@runledger/trace/store';
import fc from 'fast-check';
import { POSTGRES_MIGRATIONS, POSTGRES_SCHEMA_VERSION, ROLLUP_LEVEL_SIZES_V8, ROLLUP_SLOTS_V2 } from './PostgresMigrations.js';
import { adminQuery, connectTestStore, dropSchema, randomSchema, requirePostgres, TEST_PG_URL } from '../testing/pgTest.js';
import { rollupAndRebuilt } from '../testing/pruneTest.js';

const schemas: string[] = [];
function schemaForTest(): string {
  const schema = randomSchema('rl_migrate');
  schemas.push(schema);
  return schema;
}
afterAll(async () => {
  for (const schema of schemas) await dropSchema(schema);
});

const LEGACY_SQL = readFileSync(new URL('../../fixtures/legacy-v1.sql', import.meta.url), 'utf8');
const RUN1 = '11111111-1111-4111-8111-111111111111';
const RUN2 = '22222222-2222-4222-8222-222222222222';
const RUN3 = '33333333-3333-4333-8333-333333333333';

async function loadLegacy(schema: string): Promise<void> {
  await requirePostgres();
  await adminQuery(`CREATE SCHEMA "${schema}"; SET search_path TO "${schema}"; ${LEGACY_SQL}`);
}

describe('the rollup layout of the migrations', () => {
  it("is trace's shared layout (a change there needs a migration that rebuilds the rollup)", () => {
    expect(ROLLUP_SLOTS_V2).toBe(DURATION_HISTOGRAM_SLOTS);
    expect(ROLLUP_LEVEL_SIZES_V8).toEqual(ROLLUP_LEVEL_SIZES);
  });
});

describe('schema migrations', () => {
  it('creates the schema on first connect and records every version once', async () => {
    const schema = schemaForTest();
    const store = await connectTestStore(schema);
    await store.close();
    const versions = await adminQuery<{ version: number }>(`SELECT version FROM "${schema}".schema_version ORDER BY version`);
    expect(versions.rows.map((r) => r.version)).toEqual(Array.from({ length: POSTGRES_SCHEMA_VERSION }, (_, i) => i + 1));
  });

  it('migrates exactly once when eight stores connect to a new schema at the same time', async () => {
    const schema = schemaForTest();
    await requirePostgres();
    const stores = await Promise.all(Array.from({ length: 8 }, () => connectTestStore(schema)));
    const runs = await Promise.all(stores.map((store, i) => store.createRun({ configuration: `c${i}` })));
    expect(new Set(runs.map((r) => r.id)).size).toBe(8);
    await Promise.all(stores.map((store) => store.close()));
    const versions = await adminQuery<{ version: number; n: string }>(
      `SELECT version, count(*) AS n FROM "${schema}".schema_version GROUP BY version ORDER BY version`,
    );
    expect(versions.rows.map((r) => [r.version, Number(r.n)])).toEqual(
      Array.from({ length: POSTGRES_SCHEMA_VERSION }, (_, i) => [i + 1, 1]),
    );
  });

  it('version 9 finds every run’s open calls in its steps exactly as appends keep them', async () => {
    const schema = schemaForTest();
    const store = await connectTestStore(schema);
    const runs: string[] = [];
    // ends before starts, reused ids, steps without calls, and a run past one page of the fold (5 000 call steps)
    for (const [r, count] of [40, 40, 40, 6_000].entries()) {
      const run = await store.createRun({ configuration: `open-${r}`, createdAt: 1_767_225_600_000 });
      runs.push(run.id);
      const steps = Array.from({ length: count }, (_, i) => {
        const kind = (i + r) % 3 === 0 ? 'tool' : i % 5 === 4 ? 'llm' : 'tool_start';
        const payload = kind === 'llm' ? { kind } : { kind, toolName: 'mcp_a_x', toolCallId: `c${(i * 7 + r) % 13}` };
        return { kind, round: 0, durationMs: 1, createdAt: 1_767_225_600_000 + i, payload, toolServer: null, toolOutcome: null };
      });
      for (const step of steps) await store.appendStep(run.id, step);
    }
    const kept = await Promise.all(runs.map((id) => store.readOpenCalls(id)));
    expect(kept.some((read) => read!.starts.length > 0)).toBe(true);
    const rowsOf = async (): Promise<unknown[]> =>
      (await adminQuery(`SELECT run_id, call_id, sequence, state FROM "${schema}".open_calls WHERE state <> 2 ORDER BY run_id, call_id`))
        .rows;
    const written = await rowsOf();
    await store.close();
    await adminQuery(`DROP TABLE "${schema}".open_calls; DELETE FROM "${schema}".schema_version WHERE version >= 9`);
    const migrated = await connectTestStore(schema);
    expect(await Promise.all(runs.map((id) => migrated.readOpenCalls(id)))).toEqual(kept);
    await migrated.close();
    // an end that came first keeps no sequence
    expect(await rowsOf()).toEqual(
      (written as { state: number; sequence: number }[]).map((row) => (row.state === 1 ? { ...row, sequence: 0 } : row)),
    );
  }, 120_000);

  it('version 11 adds runs.title: a version-10 schema keeps its runs without a title, and it runs again over its own result', async () => {
    const schema = schemaForTest();
    const store = await connectTestStore(schema);
    const run = await store.createRun({ configuration: 'c', createdAt: 1_767_225_600_000 });
    await store.close();
    // laid out as version 10 wrote it
    await adminQuery(`ALTER TABLE "${schema}".runs DROP COLUMN title; DELETE FROM "${schema}".schema_version WHERE version >= 11`);
    const migrated = await connectTestStore(schema);
    expect(await migrated.getRun(run.id)).toEqual({ ...run, title: null });
    const titled = await migrated.createRun({ configuration: 'c', title: 'Triage the inbox', createdAt: 1_767_225_600_001 });
    expect(titled.title).toBe('Triage the inbox');
    await migrated.close();
    // again over its own result (the column is there already)
    await adminQuery(`DELETE FROM "${schema}".schema_version WHERE version >= 11`);
    const reopened = await connectTestStore(schema);
    expect((await reopened.listRuns()).runs.map((r) => r.title)).toEqual(['Triage the inbox', null]);
    await reopened.close();
    expect((await adminQuery<{ v: number }>(`SELECT max(version) AS v FROM "${schema}".schema_version`)).rows[0]!.v).toBe(
      POSTGRES_SCHEMA_VERSION,
    );
  });

  it('refuses a schema written by a newer runledger with schema_too_new and leaves it untouched', async () => {
    const schema = schemaForTest();
    const store = await connectTestStore(schema);
    await store.close();
    await adminQuery(`INSERT INTO "${schema}".schema_version VALUES (${POSTGRES_SCHEMA_VERSION + 7}, 'from the future', 0)`);
    const error = await connectTestStore(schema).then(
      () => null,
      (e: unknown) => e,
    );
    expect(RunStoreError.is(error)).toBe(true);
    expect((error as RunStoreError).code).toBe('schema_too_new');
    expect((error as RunStoreError).message).toContain(String(POSTGRES_SCHEMA_VERSION + 7));
    const versions = await adminQuery(`SELECT version FROM "${schema}".schema_version`);
    expect(versions.rowCount).toBe(POSTGRES_SCHEMA_VERSION + 1);
  });

  it('refuses a bad schema name and a missing connection string with messages naming them', async () => {
    await expect(PostgresRunStore.connect({ connectionString: TEST_PG_URL, schema: 'Robert"; DROP' })).rejects.toThrow(
      /PostgresRunStoreOptions\.schema/,
    );
    const saved = { a: process.env['RUNLEDGER_PG_URL'], b: process.env['DATABASE_URL'] };
    delete process.env['RUNLEDGER_PG_URL'];
    delete process.env['DATABASE_URL'];
    try {
      await expect(PostgresRunStore.connect({})).rejects.toThrow(/connectionString is missing.*RUNLEDGER_PG_URL.*DATABASE_URL/);
    } finally {
      if (saved.a !== undefined) process.env['RUNLEDGER_PG_URL'] = saved.a;
      if (saved.b !== undefined) process.env['DATABASE_URL'] = saved.b;
    }
  });

  it('takes the connection string from RUNLEDGER_PG_URL when none is given', async () => {
    const schema = schemaForTest();
    await requirePostgres();
    const saved = process.env['RUNLEDGER_PG_URL'];
    process.env['RUNLEDGER_PG_URL'] = TEST_PG_URL;
    try {
      const store = await PostgresRunStore.connect({ schema });
      expect(store.schema).toBe(schema);
      await store.close();
    } finally {
      if (saved === undefined) delete process.env['RUNLEDGER_PG_URL'];
      else process.env['RUNLEDGER_PG_URL'] = saved;
    }
  });

  it('names the server when it cannot be reached', async () => {
    const error = await PostgresRunStore.connect({ connectionString: 'postgres://nobody@127.0.0.1:1/none', schema: 'x' }).then(
      () => null,
      (e: unknown) => e,
    );
    expect((error as RunStoreError).code).toBe('storage_failure');
    expect((error as Error).message).toMatch(/could not connect to PostgreSQL at 127\.0\.0\.1:1\/none/);
  });
});

describe('a version 1 store (legacy rows: only toolIsError, no server or outcome columns)', () => {
  it('migrates forward on connect and reads its rows as before', async () => {
    const schema = schemaForTest();
    await loadLegacy(schema);
    const store = await connectTestStore(schema);
    try {
      const page = await store.listRuns();
      expect(page.runs.map((r) => [r.id, r.status, r.stepCount, r.outcomeCounts])).toEqual([
        [RUN3, 'running', 2, { ok: 1, failed: 0, cancelled: 0 }],
        [RUN2, 'failed', 4, { ok: 1, failed: 1, cancelled: 0 }],
        [RUN1, 'completed', 6, { ok: 2, failed: 1, cancelled: 0 }],
      ]);
      expect((await store.listRuns({ hasOutcome: 'failed' })).runs.map((r) => r.id)).toEqual([RUN2, RUN1]);
      const run1 = await store.getRun(RUN1);
      expect(run1).toMatchObject({
        actor: 'ops@example.com',
        createdAt: 1748772000000,
        finishedAt: 1748772005000,
        heartbeatAt: 1748772004000,
      });

      const steps = await store.readSteps(RUN1);
      expect(steps.map((s) => s.sequence)).toEqual([0, 1, 2, 3, 4, 5]);
      // the payload text is untouched; the recorder's columns stay as they were (null)
      expect(steps[3]).toEqual<StoredStep>({
        runId: RUN1,
        sequence: 3,
        kind: 'tool',
        round: 0,
        durationMs: 340,
        createdAt: 1748772001500,
        payload: '{"kind":"tool","round":0,"durationMs":340,"toolName":"mcp_jira_get_ticket","toolIsError":true}',
        toolServer: null,
        toolOutcome: null,
      });
      // the damaged payload reads back as it is, with its sequence
      const damaged = (await store.readSteps(RUN2, { fromSequence: 3 }))[0]!;
      expect(damaged.sequence).toBe(3);
      expect(damaged.payload).toBe('{"kind":"tool","round":0,"durationMs":10,"toolName":"mcp_github_search_issues"');

      // the timeline renders them as before: outcomes from toolIsError, the damaged row unreadable
      const timeline1 = buildRunTimeline(run1, steps).filter((e) => e.sequence !== null);
      expect(timeline1.map((e) => [e.sequence, e.kind, e.outcome])).toEqual([
        [0, 'request', ''],
        [1, 'llm', ''],
        [2, 'tool', 'ok'],
        [3, 'tool', 'failed'],
        [4, 'tool', 'ok'],
        [5, 'llm', ''],
      ]);
      const timeline2 = buildRunTimeline(await store.getRun(RUN2), await store.readSteps(RUN2)).filter((e) => e.sequence !== null);
      expect(timeline2.map((e) => [e.sequence, e.outcome, e.unreadable])).toEqual([
        [0, '', false],
        [1, 'failed', false],
        [2, 'ok', false],
        [3, '', true],
      ]);

      // server health from the mcp_<server>_ prefix, exactly as the pure definition reads the rows
      const health = await store.serverHealth();
      expect(health.map((h) => [h.server, h.ok, h.failed, h.cancelled, h.lastFailureAt])).toEqual([
        ['github', 3, 0, 0, null],
        ['jira', 0, 2, 0, 1748772101000],
      ]);
      const all = [...(await store.readSteps(RUN1)), ...(await store.readSteps(RUN2)), ...(await store.readSteps(RUN3))];
      expect(health).toEqual(serverHealth(all));

      // and the migrated store goes on: sequences continue gap-free, new calls count
      expect(
        await store.appendStep(RUN3, {
          kind: 'tool',
          round: 1,
          durationMs: 42,
          createdAt: 1748772202000,
          payload: {
            kind: 'tool',
            round: 1,
            durationMs: 42,
            toolName: 'mcp_github_x',
            toolServer: 'github',
            toolIsError: true,
            toolOutcome: 'failed',
          },
          toolServer: 'github',
          toolOutcome: 'failed',
        }),
      ).toBe(2);
      const after = (await store.serverHealth()).find((h) => h.server === 'github');
      expect(after).toMatchObject({ ok: 3, failed: 1, lastFailureAt: 1748772202000 });
      expect((await store.getRun(RUN3))?.outcomeCounts).toEqual({ ok: 1, failed: 1, cancelled: 0 });
    } finally {
      await store.close();
    }
  });
});

describe('a version 3 store (rollup of every call, no failure causes)', () => {
  it('migrates to version 4: causes read from the payloads, the rollup rebuilt with latency over answered calls only', async () => {
    await requirePostgres();
    const schema = schemaForTest();
    const pool = new pg.Pool({ connectionString: TEST_PG_URL, max: 1 });
    const client = await pool.connect();
    const RUN = '44444444-4444-4444-8444-444444444444';
    const T = 1_767_225_600_000;
    try {
      await client.query(`CREATE SCHEMA "${schema}"; SET search_path TO "${schema}"`);
      await client.query('CREATE TABLE schema_version (version integer PRIMARY KEY, name text NOT NULL, applied_at bigint NOT NULL)');
      for (const migration of POSTGRES_MIGRATIONS.filter((m) => m.version <= 3)) {
        await migration.up(client);
        await client.query('INSERT INTO schema_version VALUES ($1, $2, 0)', [migration.version, migration.name]);
      }
      await client.query(`INSERT INTO runs (id, status, configuration, created_at, next_sequence) VALUES ($1, 'completed', 'c', $2, 12)`, [
        RUN,
        T,
      ]);
      // the demo's flaky server: nine answered calls of 1–9 ms (three of them error answers), one
      // cancelled call of 410 ms, a failure without a cause and one refused for invalid arguments
      const calls: [string, number, string | undefined][] = [
        ...Array.from({ length: 9 }, (_, i): [string, number, string | undefined] =>
          i % 3 === 2 ? ['failed', i + 1, 'server_error'] : ['ok', i + 1, undefined],
        ),
        ['cancelled', 410, undefined],
        ['failed', 2000, undefined],
        ['failed', 3, 'invalid_arguments'],
      ];
      for (const [i, [outcome, ms, cause]] of calls.entries()) {
        const payload = JSON.stringify({
          kind: 'tool',
          toolServer: 'flaky',
          toolIsError: outcome !== 'ok',
          toolOutcome: outcome,
          ...(cause ? { toolFailureCause: cause } : {}),
        });
        await client.query(
          `INSERT INTO steps (run_id, sequence, kind, round, duration_ms, created_at, payload, tool_server, tool_outcome, call_server, call_outcome)
           VALUES ($1, $2, 'tool', 0, $3, $4, $5, 'flaky', $6, 'flaky', $6)`,
          [RUN, i, ms, T + i * 1000, payload, outcome],
        );
      }
      await client.query('SELECT rollup_add_runs(ARRAY[$1::uuid])', [RUN]);
    } finally {
      client.release();
      await pool.end();
    }
    const store = await connectTestStore(schema);
    try {
      const [health] = await store.serverHealth();
      expect(health).toMatchObject({
        calls: 12,
        ok: 6,
        failed: 5,
        cancelled: 1,
        invalidArguments: 1,
        answered: 10,
        p95DurationMs: 9,
        failureRate: 4 / 10,
      });
      expect(health!.failureCauses).toEqual([
        { cause: 'server_error', calls: 3 },
        { cause: 'invalid_arguments', calls: 1 },
        { cause: 'unknown', calls: 1 },
      ]);
      expect(health).toEqual(serverHealth(await store.readSteps(RUN))[0]);
      const causes = await adminQuery(
        `SELECT call_cause, call_answered, call_counted FROM "${schema}".steps WHERE call_outcome = 'failed' ORDER BY sequence`,
      );
      expect(causes.rows.map((r) => [r['call_cause'], r['call_answered'], r['call_counted']])).toEqual([
        ['server_error', true, true],
        ['server_error', true, true],
        ['server_error', true, true],
        [null, false, true],
        ['invalid_arguments', true, false],
      ]);
    } finally {
      await store.close();
    }
  });
});

describe('a version 5 store (before retention)', () => {
  it('migrates to version 6: every run visible, runs_ended and runs_pruned made, and its old runs prune with an exact rollup', async () => {
    await requirePostgres();
    const schema = schemaForTest();
    const pool = new pg.Pool({ connectionString: TEST_PG_URL, max: 1 });
    const client = await pool.connect();
    const T = 1_767_225_600_000;
    const runs = [
      ['55555555-5555-4555-8555-555555555551', 'completed', T + 10_000],
      ['55555555-5555-4555-8555-555555555552', 'failed', T + 90_000_000],
      ['55555555-5555-4555-8555-555555555553', 'running', null],
    ] as const;
    try {
      await client.query(`CREATE SCHEMA "${schema}"; SET search_path TO "${schema}"`);
      await client.query('CREATE TABLE schema_version (version integer PRIMARY KEY, name text NOT NULL, applied_at bigint NOT NULL)');
      for (const migration of POSTGRES_MIGRATIONS.filter((m) => m.version <= 5)) {
        await migration.up(client);
        await client.query('INSERT INTO schema_version VALUES ($1, $2, 0)', [migration.version, migration.name]);
      }
      for (const [r, [id, status, finishedAt]] of runs.entries()) {
        await client.query(
          `INSERT INTO runs (id, status, configuration, created_at, finished_at, next_sequence) VALUES ($1, $2, 'c', $3, $4, 4)`,
          [id, status, T, finishedAt],
        );
        for (let i = 0; i < 4; i++) {
          const outcome = i === r ? 'failed' : 'ok';
          await client.query(
            `INSERT INTO steps (run_id, sequence, kind, round, duration_ms, created_at, payload, tool_server, tool_outcome,
               call_server, call_outcome, call_cause, call_answered, call_counted)
             VALUES ($1, $2, 'tool', 0, $3, $4, $7, 'flaky', $5, 'flaky', $5, $6, true, true)`,
            [
              id,
              i,
              5 + i * r,
              T + i * 1000,
              outcome,
              outcome === 'failed' ? 'server_error' : null,
              JSON.stringify({
                kind: 'tool',
                toolServer: 'flaky',
                toolOutcome: outcome,
                toolIsError: outcome === 'failed',
                ...(outcome === 'failed' ? { toolFailureCause: 'server_error' } : {}),
              }),
            ],
          );
        }
      }
      await client.query('SELECT rollup_add_runs(ARRAY(SELECT id FROM runs))');
    } finally {
      client.release();
      await pool.end();
    }
    const store = await connectTestStore(schema);
    try {
      expect((await store.listRuns()).runs.map((r) => r.id).sort()).toEqual(runs.map(([id]) => id));
      const indexes = await adminQuery<{ indexname: string }>('SELECT indexname FROM pg_indexes WHERE schemaname = $1', [schema]);
      expect(indexes.rows.map((r) => r.indexname)).toEqual(expect.arrayContaining(['runs_ended', 'runs_pruned']));
      expect(await store.pruneRuns({ olderThan: T + 60_000 })).toMatchObject({ runs: 1, steps: 4, oldestFinishedAt: T + 10_000 });
      expect((await store.listRuns()).runs.map((r) => r.id).sort()).toEqual([runs[1][0], runs[2][0]]);
      const steps = [...(await store.readSteps(runs[1][0])), ...(await store.readSteps(runs[2][0]))];
      expect(await store.serverHealth()).toEqual(serverHealth(steps));
      const { actual, rebuilt } = await rollupAndRebuilt(schema);
      expect(actual).toEqual(rebuilt);
    } finally {
      await store.close();
    }
  });
});

describe('a version 7 store (levels up to a day)', () => {
  it('migrates to version 8: 32-day rows summed from the day rows equal those made from the steps, and health over a year reads them', async () => {
    await requirePostgres();
    const schema = schemaForTest();
    const pool = new pg.Pool({ connectionString: TEST_PG_URL, max: 1 });
    const client = await pool.connect();
    const DAY = 86_400_000;
    const T = 1_767_225_600_000 + 5 * DAY + 17;
    const id = '77777777-7777-4777-8777-777777777777';
    try {
      await client.query(`CREATE SCHEMA "${schema}"; SET search_path TO "${schema}"`);
      await client.query('CREATE TABLE schema_version (version integer PRIMARY KEY, name text NOT NULL, applied_at bigint NOT NULL)');
      for (const migration of POSTGRES_MIGRATIONS.filter((m) => m.version <= 7)) {
        await migration.up(client);
        await client.query('INSERT INTO schema_version VALUES ($1, $2, 0)', [migration.version, migration.name]);
      }
      const steps = 300;
      await client.query(
        `INSERT INTO runs (id, status, configuration, created_at, finished_at, next_sequence) VALUES ($1, 'completed', 'c', $2, $3, $4)`,
        [id, T, T + 100 * DAY, steps],
      );
      // 100 days, three servers, every outcome, answered and not
      await client.query(
        `INSERT INTO steps (run_id, sequence, kind, round, duration_ms, created_at, payload, tool_server, tool_outcome,
           call_server, call_outcome, call_cause, call_answered, call_counted)
         SELECT $1, i, 'tool', 0, 1 + (i * 37) % 5000 / 7.0, $2 + (i::bigint * 100 * ${DAY}) / ${steps},
           jsonb_strip_nulls(jsonb_build_object('kind', 'tool', 'toolServer', 's' || (i % 3), 'toolOutcome', o, 'toolIsError', o <> 'ok',
             'toolFailureCause', CASE WHEN o = 'failed' THEN 'server_error' END))::text,
           's' || (i % 3), o, 's' || (i % 3), o, CASE WHEN o = 'failed' THEN 'server_error' END, o <> 'cancelled', o <> 'cancelled'
         FROM generate_series(0, ${steps - 1}) AS i, LATERAL (SELECT (ARRAY['ok', 'failed', 'cancelled', 'ok'])[i % 4 + 1] AS o) AS x`,
        [id, T],
      );
      await client.query('SELECT rollup_add_runs(ARRAY(SELECT id FROM runs))');
      const before = await client.query('SELECT count(*)::int AS n FROM health_rollup WHERE level = 5');
      expect(before.rows[0].n).toBe(0);
    } finally {
      client.release();
      await pool.end();
    }
    const store = await connectTestStore(schema);
    try {
      const monthly = await adminQuery<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}".health_rollup WHERE level = 5`);
      expect(monthly.rows[0]!.n).toBeGreaterThanOrEqual(4 * 3); // four 32-day buckets over 100 days, three servers
      const { actual, rebuilt } = await rollupAndRebuilt(schema);
      expect(actual).toEqual(rebuilt);
      const all = await store.readSteps(id);
      expect(await store.serverHealth({ since: T - 200 * DAY, until: T + 200 * DAY })).toEqual(
        serverHealth(all, { since: T - 200 * DAY, until: T + 200 * DAY }),
      );
    } finally {
      await store.close();
    }
  });
});

describe('a version 11 store (before run tokens and call tools)', () => {
  /** The model tokens of a run by the one rule, read from its stored steps (an unreadable payload counts 0), summed exactly. */
  const tokensOfSteps = (steps: readonly StoredStep[]): number =>
    Number(
      steps.reduce((sum, step) => {
        let payload: unknown;
        try {
          payload = JSON.parse(step.payload);
        } catch {
          return sum;
        }
        return typeof payload === 'object' && payload !== null && !Array.isArray(payload)
          ? sum + BigInt(stepTokens(step.kind, payload as Record<string, unknown>))
          : sum;
      }, 0n),
    );

  it('migrates to version 12: tokens and call tools filled from the steps exactly as appends keep them, and again over its own result', async () => {
    const schema = schemaForTest();
    const store = await connectTestStore(schema);
    const T = 1_767_225_600_000;
    // token values of every sort (not non-negative safe integers count 0), on llm and other steps
    const tokenValue = fc.oneof(
      fc.nat(),
      fc.integer({ min: -1_000, max: -1 }),
      fc.double(),
      fc.string({ maxLength: 4 }),
      fc.constantFrom(null, true, 2 ** 53, 2 ** 53 - 1, 1e300, '12', [3], { n: 1 }),
    );
    const steps = fc.sample(
      fc.record({
        run: fc.nat({ max: 5 }),
        kind: fc.constantFrom('llm', 'llm', 'tool', 'request'),
        prompt: tokenValue,
        completion: tokenValue,
      }),
      { seed: 20_261_204, numRuns: 240 },
    );
    const runs: string[] = [];
    for (let r = 0; r < 6; r++) runs.push((await store.createRun({ configuration: `tokens-${r}`, createdAt: T + r })).id);
    for (const [i, step] of steps.entries()) {
      const tool = step.kind === 'tool';
      await store.appendStep(runs[step.run]!, {
        kind: step.kind,
        round: 0,
        durationMs: 1,
        createdAt: T + i,
        payload: {
          kind: step.kind,
          promptTokens: step.prompt,
          completionTokens: step.completion,
          ...(tool ? { toolName: i % 5 === 0 ? i : `tool_${i % 3}`, toolServer: 'srv', toolOutcome: 'ok', toolIsError: false } : {}),
        },
        toolServer: tool ? 'srv' : null,
        toolOutcome: tool ? 'ok' : null,
      });
    }
    const kept = await Promise.all(runs.map((id) => store.getRun(id)));
    const calls = await store.listToolCalls({ server: 'srv', limit: 200 });
    expect(calls.calls.some((call) => call.tool === null) && calls.calls.some((call) => call.tool === 'tool_1')).toBe(true);
    await store.close();
    // laid out as version 11 wrote it, with rows an append cannot write: an unreadable payload, one that
    // is not an object, and a run of 6 000 llm steps (more than a batch of the backfill)
    const BIG = '99999999-9999-4999-8999-999999999999';
    await adminQuery(`SET search_path TO "${schema}";
      ALTER TABLE runs DROP COLUMN tokens;
      ALTER TABLE steps DROP COLUMN call_tool;
      DROP INDEX steps_call_server;
      CREATE INDEX steps_call_server ON steps (call_server, created_at) INCLUDE (call_outcome, duration_ms, call_answered)
        WHERE call_server IS NOT NULL AND call_outcome IS NOT NULL;
      DELETE FROM schema_version WHERE version >= 12;
      INSERT INTO steps (run_id, sequence, kind, round, duration_ms, created_at, payload)
        VALUES ('${runs[0]}', 1000, 'llm', 0, 1, ${T}, '{"promptTokens":5,"completionTokens":'),
               ('${runs[0]}', 1001, 'llm', 0, 1, ${T}, '[{"promptTokens":5}]');
      INSERT INTO runs (id, status, configuration, created_at, next_sequence) VALUES ('${BIG}', 'completed', 'big', ${T}, 6000);
      INSERT INTO steps (run_id, sequence, kind, round, duration_ms, created_at, payload)
        SELECT '${BIG}', i, 'llm', 0, 1, ${T} + i, '{"kind":"llm","promptTokens":' || i || ',"completionTokens":2}'
        FROM generate_series(0, 5999) AS i`);
    const migrated = await connectTestStore(schema);
    try {
      expect(await Promise.all(runs.map((id) => migrated.getRun(id)))).toEqual(kept);
      for (const id of runs) expect((await migrated.getRun(id))!.tokens).toBe(tokensOfSteps(await migrated.readSteps(id)));
      expect((await migrated.getRun(BIG))!.tokens).toBe((5999 * 6000) / 2 + 2 * 6000);
      expect(await migrated.listToolCalls({ server: 'srv', limit: 200 })).toEqual(calls);
      expect((await migrated.listRuns({ tool: 'tool_1' })).runs.length).toBeGreaterThan(0);
      const indexes = await adminQuery<{ indexdef: string }>('SELECT indexdef FROM pg_indexes WHERE schemaname = $1 ORDER BY indexname', [
        schema,
      ]);
      expect(indexes.rows.map((r) => r.indexdef).join('\n')).toMatch(
        /steps_call_server ON .* \(call_server, created_at, run_id, sequence\)/,
      );
      expect(indexes.rows.map((r) => r.indexdef).join('\n')).toMatch(/steps_run_calls ON .* \(run_id, call_server, call_tool\)/);
    } finally {
      await migrated.close();
    }
    // again over its own result: the totals are set, never added twice
    await adminQuery(`DELETE FROM "${schema}".schema_version WHERE version >= 12`);
    const again = await connectTestStore(schema);
    try {
      expect(await Promise.all(runs.map((id) => again.getRun(id)))).toEqual(kept);
      expect((await again.getRun(BIG))!.tokens).toBe((5999 * 6000) / 2 + 2 * 6000);
      expect(await again.listToolCalls({ server: 'srv', limit: 200 })).toEqual(calls);
    } finally {
      await again.close();
    }
  }, 60_000);
});
