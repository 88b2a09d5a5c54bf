import pg from 'pg';
import { RunStoreError } from '@runledger/trace';

/**
 * Reads the schema version of a PostgreSQL schema on one short connection, without creating or
 * changing anything: null when the schema has no runledger store (no `schema_version` table).
 *
 * @internal
 */
export async function readSchemaVersion(connectionString: string, schema: string, quoted: string): Promise<number | null> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 10_000, application_name: 'runledger' });
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => undefined);
    throw RunStoreError.storageFailure(`cannot connect to PostgreSQL: ${error instanceof Error ? error.message : String(error)}`, error);
  }
  try {
    const table = await client.query<{ found: string | null }>('SELECT to_regclass($1)::text AS found', [`${quoted}.schema_version`]);
    if (table.rows[0]?.found === null || table.rows[0] === undefined) return null;
    const version = await client.query<{ version: number | null }>(`SELECT max(version) AS version FROM ${quoted}.schema_version`);
    return version.rows[0]?.version ?? 0;
  } catch (error) {
    throw RunStoreError.storageFailure(
      `cannot read the schema version of schema ${schema}: ${error instanceof Error ? error.message : String(error)}`,
      error,
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}
