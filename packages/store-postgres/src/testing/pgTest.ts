import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { PostgresRunStore } from '../PostgresRunStore.js';

/** The server the tests use: RUNLEDGER_PG_URL, else the local trust-auth server. */
export const TEST_PG_URL = process.env['RUNLEDGER_PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

let checked: Promise<void> | null = null;

/**
 * Fails (never skips) with a clear message when the test server cannot be reached, on CI and
 * locally alike.
 */
export function requirePostgres(): Promise<void> {
  checked ??= (async () => {
    const client = new pg.Client({ connectionString: TEST_PG_URL, connectionTimeoutMillis: 5_000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
    } catch (error) {
      throw new Error(
        `PostgreSQL is not reachable at ${TEST_PG_URL.replace(/:[^:@/]*@/, ':***@')} (${error instanceof Error ? error.message : String(error)}). ` +
          'The store-postgres tests run against a real server: start PostgreSQL on 127.0.0.1:5432 (trust auth, database "test") ' +
          'or set RUNLEDGER_PG_URL. They are never skipped' +
          (process.env['CI'] === 'true' ? ' (CI=true).' : '.'),
      );
    } finally {
      await client.end().catch(() => undefined);
    }
  })();
  return checked;
}

/** A fresh random schema name for one test or file. */
export function randomSchema(prefix = 'rl_test'): string {
  return `${prefix}_${randomBytes(6).toString('hex')}`;
}

/** Runs SQL on the test database with a short-lived client. */
export async function adminQuery<T extends pg.QueryResultRow = pg.QueryResultRow>(
  sql: string,
  values: unknown[] = [],
): Promise<pg.QueryResult<T>> {
  const client = new pg.Client({ connectionString: TEST_PG_URL });
  await client.connect();
  try {
    return await client.query<T>(sql, values);
  } finally {
    await client.end();
  }
}

/** Drops a test schema and everything in it. */
export async function dropSchema(schema: string): Promise<void> {
  await adminQuery(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
}

/** Connects a store on a schema of the test database with a short cancel poll. */
export async function connectTestStore(schema: string, cancelPollMs = 20): Promise<PostgresRunStore> {
  await requirePostgres();
  return PostgresRunStore.connect({ connectionString: TEST_PG_URL, schema, poolSize: 4, cancelPollMs });
}
