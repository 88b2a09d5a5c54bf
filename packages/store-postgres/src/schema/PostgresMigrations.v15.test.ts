// Migration 15: a run's termination as data. A schema of version 14 keeps each ended run's reason
// as prose; it opens with every reason read into its kind and facts, the sentences shown unchanged
// (words the kind's sentence would not repeat kept as they were), and the migration runs again over
// its own result without changing a row.
import { afterAll, describe, expect, it } from 'vitest';
import { LEGACY_PROSE_TIME, LEGACY_TERMINATION_PROSE } from '@runledger/store-contract';
import { POSTGRES_SCHEMA_VERSION } from './PostgresMigrations.js';
import { adminQuery, connectTestStore, dropSchema, randomSchema } from '../testing/pgTest.js';

const T = LEGACY_PROSE_TIME;
const schemas: string[] = [];
afterAll(async () => {
  for (const schema of schemas) await dropSchema(schema);
});

const PROSE = LEGACY_TERMINATION_PROSE;

async function terminationRows(schema: string): Promise<unknown[]> {
  return (await adminQuery(`SELECT id, termination_kind, termination_facts, termination_reason FROM "${schema}".runs ORDER BY id`)).rows;
}

describe('migration 15', () => {
  it("reads a version-14 schema's prose into kinds and facts, shows the same sentences, and runs again over its own result", async () => {
    expect(POSTGRES_SCHEMA_VERSION).toBeGreaterThanOrEqual(15);
    const schema = randomSchema('rl_term');
    schemas.push(schema);
    const store = await connectTestStore(schema);
    const ids: string[] = [];
    for (const [index] of PROSE.entries()) {
      const run = await store.createRun({ configuration: 'c', createdAt: T + index });
      await store.finishRun(run.id, { status: 'failed', finishedAt: T + 100 });
      ids.push(run.id);
    }
    const running = await store.createRun({ configuration: 'c', createdAt: T + 50 });
    await store.close();
    // laid out as version 14 wrote it: the prose, no kind
    for (const [index, [prose]] of PROSE.entries()) {
      await adminQuery(`UPDATE "${schema}".runs SET termination_reason = $1 WHERE id = $2`, [prose, ids[index]]);
    }
    await adminQuery(
      `ALTER TABLE "${schema}".runs DROP COLUMN termination_kind, DROP COLUMN termination_facts; DELETE FROM "${schema}".schema_version WHERE version >= 15`,
    );

    const migrated = await connectTestStore(schema);
    for (const [index, [prose, termination]] of PROSE.entries()) {
      expect(await migrated.getRun(ids[index]!)).toMatchObject({ termination, terminationReason: prose });
    }
    expect(await migrated.getRun(running.id)).toMatchObject({ termination: null, terminationReason: null });
    await migrated.close();
    const converted = await terminationRows(schema);
    // only the words the kind's sentence would not repeat are kept
    expect(converted.filter((row) => (row as { termination_reason: string | null }).termination_reason !== null)).toHaveLength(2);

    await adminQuery(`DELETE FROM "${schema}".schema_version WHERE version >= 15`);
    const reopened = await connectTestStore(schema);
    await reopened.close();
    expect(await terminationRows(schema)).toEqual(converted);
    expect((await adminQuery<{ v: number }>(`SELECT max(version) AS v FROM "${schema}".schema_version`)).rows[0]!.v).toBe(
      POSTGRES_SCHEMA_VERSION,
    );
  });
});
