import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresRunStore } from './PostgresRunStore.js';
import { adminQuery, connectTestStore, dropSchema, randomSchema, requirePostgres, TEST_PG_URL } from './testing/pgTest.js';

/** Durations whose shortest exact text needs all 17 significant digits, and any other double a store keeps. */
const preciseDuration = fc.oneof(
  fc.constantFrom(0.1 + 0.2, 1 / 3, 2 / 3, 12.345678901234567, 8.64e15 - 1.5, 4503599627370495.5, Number.MIN_VALUE, 2 ** -1074 * 3),
  fc.double({ min: 0, max: 8.64e15, noNaN: true }),
);

/** Appends generated durations to a run of `store` and expects each to read back exactly. */
async function expectDurationsExact(store: PostgresRunStore): Promise<void> {
  await fc.assert(
    fc.asyncProperty(fc.array(preciseDuration, { minLength: 1, maxLength: 8 }), async (durations) => {
      const run = await store.createRun({ configuration: 'durations', createdAt: 1 });
      for (const durationMs of durations) {
        await store.appendStep(run.id, {
          kind: 'llm',
          round: 0,
          durationMs,
          createdAt: 2,
          payload: {},
          toolServer: null,
          toolOutcome: null,
        });
      }
      expect((await store.readSteps(run.id)).map((step) => step.durationMs)).toEqual(durations.map((d) => d + 0));
    }),
    { seed: 20_261_204, numRuns: 6 },
  );
}

describe('session settings on connect', () => {
  const schemas: string[] = [];
  afterAll(async () => {
    for (const schema of schemas) await dropSchema(schema);
  });

  it('connecting and querying emits no "already executing a query" deprecation warning', async () => {
    await requirePostgres();
    const warnings: string[] = [];
    const listen = (warning: Error): void => {
      warnings.push(`${warning.name}: ${warning.message}`);
    };
    process.on('warning', listen);
    try {
      const schema = randomSchema('rl_session');
      schemas.push(schema);
      const store = await connectTestStore(schema);
      try {
        // Many queries at once make the pool open several new connections, each of which gets the
        // session settings first; with an unawaited settings query the store's own query was sent
        // while it still ran.
        const runs = await Promise.all(
          Array.from({ length: 8 }, (_, i) => store.createRun({ configuration: `session-${i}`, actor: null, createdAt: Date.now() })),
        );
        await Promise.all(runs.map((run) => store.getRun(run.id)));
        await Promise.all([store.listRuns({ limit: 5 }), store.serverHealth({}), store.getRun(runs[0]!.id)]);
      } finally {
        await store.close();
      }
      // warnings are emitted on the next tick
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      process.off('warning', listen);
    }
    expect(warnings.filter((w) => /already executing a query/.test(w))).toEqual([]);
  });
});

describe('durations read back exactly whatever extra_float_digits the connection, role or database sets', () => {
  const schemas: string[] = [];
  afterAll(async () => {
    for (const schema of schemas) await dropSchema(schema);
  });

  it('with extra_float_digits = -15 in the connection string (options=-c …)', async () => {
    await requirePostgres();
    const url = new URL(TEST_PG_URL);
    url.searchParams.set('options', '-c extra_float_digits=-15');
    const schema = randomSchema('rl_floats');
    schemas.push(schema);
    const store = await PostgresRunStore.connect({ connectionString: url.toString(), schema, poolSize: 2 });
    try {
      await expectDurationsExact(store);
    } finally {
      await store.close();
    }
  });

  it('with extra_float_digits = -15 set on the role (ALTER ROLE … SET)', async () => {
    await requirePostgres();
    const role = `rl_floats_${randomBytes(4).toString('hex')}`;
    const database = new URL(TEST_PG_URL).pathname.slice(1);
    await adminQuery(`CREATE ROLE ${role} LOGIN`);
    const schema = randomSchema('rl_floats');
    try {
      await adminQuery(`GRANT CREATE ON DATABASE "${database}" TO ${role}`);
      await adminQuery(`ALTER ROLE ${role} SET extra_float_digits = -15`);
      const url = new URL(TEST_PG_URL);
      url.username = role;
      url.password = '';
      const store = await PostgresRunStore.connect({ connectionString: url.toString(), schema, poolSize: 2 });
      try {
        await expectDurationsExact(store);
      } finally {
        await store.close();
      }
    } finally {
      await adminQuery(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await adminQuery(`DROP OWNED BY ${role}`);
      await adminQuery(`DROP ROLE ${role}`);
    }
  });
});
