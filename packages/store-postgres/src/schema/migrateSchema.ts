import type { Pool } from 'pg';
import { withTransaction } from '../withTransaction.js';
import { POSTGRES_MIGRATIONS, POSTGRES_SCHEMA_VERSION } from './PostgresMigrations.js';
import { RunStoreError } from '@runledger/trace';

/**
 * Brings a schema up to {@link POSTGRES_SCHEMA_VERSION}, creating it when missing.
 *
 * @remarks
 * One transaction, serialised across every process and machine by a transaction-scoped advisory
 * lock keyed on the schema name: of many stores connecting at once, one migrates and the others
 * wait, then find nothing left to do. A failing migration rolls everything back. A schema
 * version newer than this code knows is refused, never migrated backwards. Returns the versions
 * applied.
 *
 * @throws RunStoreError `schema_too_new` from `migrateSchema` for a newer database.
 * @internal
 */
export async function migrateSchema(pool: Pool, schema: string, quoted: string): Promise<number[]> {
  try {
    return await withTransaction(pool, async (client) => {
      const applied: number[] = [];
      await client.query("SELECT pg_advisory_xact_lock(hashtext('runledger.migrate'), hashtext($1))", [schema]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoted}`);
      await client.query(`SET LOCAL search_path TO ${quoted}`);
      await client.query(
        'CREATE TABLE IF NOT EXISTS schema_version (version integer PRIMARY KEY, name text NOT NULL, applied_at bigint NOT NULL)',
      );
      const current: { rows: { version: number | null }[] } = await client.query('SELECT max(version) AS version FROM schema_version');
      const found = current.rows[0]?.version ?? 0;
      if (found > POSTGRES_SCHEMA_VERSION) throw RunStoreError.schemaTooNew(found, POSTGRES_SCHEMA_VERSION);
      for (const migration of POSTGRES_MIGRATIONS) {
        if (migration.version <= found) continue;
        await migration.up(client);
        await client.query('INSERT INTO schema_version (version, name, applied_at) VALUES ($1, $2, $3)', [
          migration.version,
          migration.name,
          Date.now(),
        ]);
        applied.push(migration.version);
      }
      return applied;
    });
  } catch (error) {
    if (RunStoreError.is(error)) throw error;
    throw RunStoreError.storageFailure(
      `could not migrate the PostgreSQL schema ${JSON.stringify(schema)}: ${error instanceof Error ? error.message : String(error)}`,
      error,
    );
  }
}
