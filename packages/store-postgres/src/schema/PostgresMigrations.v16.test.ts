// Migration 16: who asked for a run's cancel, from where and why. A schema of version 15 has no
// such columns: a run cancelled there reads with its cancel time and no request, a new request is
// kept after the migration, and the migration runs again over its own result.
import { afterAll, describe, expect, it } from 'vitest';
import { POSTGRES_SCHEMA_VERSION } from './PostgresMigrations.js';
import { adminQuery, connectTestStore, dropSchema, randomSchema } from '../testing/pgTest.js';

const T = 1_767_225_600_000;
const schemas: string[] = [];
afterAll(async () => {
  for (const schema of schemas) await dropSchema(schema);
});

describe('migration 16', () => {
  it('reads a run cancelled in a version-15 schema without a request, keeps new requests, and runs again over its own result', async () => {
    expect(POSTGRES_SCHEMA_VERSION).toBeGreaterThanOrEqual(16);
    const schema = randomSchema('rl_cancel');
    schemas.push(schema);
    const store = await connectTestStore(schema);
    const old = await store.createRun({ configuration: 'c', createdAt: T });
    await store.requestCancel(old.id, T + 1, { from: 'app', by: 'gone with the columns' });
    await store.finishRun(old.id, { status: 'completed', finishedAt: T + 2 });
    const fresh = await store.createRun({ configuration: 'c', createdAt: T + 3 });
    await store.close();
    // laid out as version 15 wrote it: no request columns
    await adminQuery(
      `ALTER TABLE "${schema}".runs DROP COLUMN cancel_from, DROP COLUMN cancel_by, DROP COLUMN cancel_reason; DELETE FROM "${schema}".schema_version WHERE version >= 16`,
    );

    const migrated = await connectTestStore(schema);
    const read = await migrated.getRun(old.id);
    expect(read).toMatchObject({ status: 'cancelled', cancelRequestedAt: T + 1 });
    expect(read).not.toHaveProperty('cancelRequest');
    const asked = await migrated.requestCancel(fresh.id, T + 4, { from: 'cli', by: 'alice', reason: 'stuck' });
    expect(asked.cancelRequest).toEqual({ at: T + 4, from: 'cli', by: 'alice', reason: 'stuck' });
    await migrated.close();

    await adminQuery(`DELETE FROM "${schema}".schema_version WHERE version >= 16`);
    const reopened = await connectTestStore(schema);
    expect((await reopened.getRun(fresh.id))?.cancelRequest).toEqual({ at: T + 4, from: 'cli', by: 'alice', reason: 'stuck' });
    await reopened.close();
    expect((await adminQuery<{ v: number }>(`SELECT max(version) AS v FROM "${schema}".schema_version`)).rows[0]!.v).toBe(
      POSTGRES_SCHEMA_VERSION,
    );
  });
});
