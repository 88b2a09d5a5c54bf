import pg from 'pg';
import { applySessionSettings } from './sessionSettings.js';
import { RunStoreError } from '@runledger/trace';

const INT8_OID = 20;

/** bigint columns hold ms times and counts, all far below 2^53: read them as numbers. */
const TYPES = {
  getTypeParser(oid: number, format?: string): unknown {
    if (oid === INT8_OID && format !== 'binary') return (value: string) => Number(value);
    return (pg.types.getTypeParser as (oid: number, format?: string) => unknown)(oid, format);
  },
} as unknown as pg.CustomTypesConfig;

/** Idle time before TCP keepalive probes a connection (the kernel's probe interval and count follow). */
const KEEPALIVE_DELAY_MS = 10_000;

/** What every connection of a store shares: its server, its type parsers, and keepalive (a peer gone without a word is found, also for the untimed reads). */
function connectionConfig(connectionString: string, applicationName: string): pg.ClientConfig {
  return {
    connectionString,
    types: TYPES,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
    application_name: applicationName,
  };
}

/** Where a connection string points, without its password, for messages. */
function describeTarget(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    return `${url.hostname || 'localhost'}:${url.port || '5432'}${url.pathname || ''}`;
  } catch {
    return 'the configured server';
  }
}

/**
 * The store's pool of `poolSize` connections, checked to reach the server.
 *
 * @throws RunStoreError `storage_failure` naming host, port and database (never the password) when the server cannot be reached.
 * @internal
 */
export async function openPool(connectionString: string, poolSize: number, applicationName: string): Promise<pg.Pool> {
  const pool = new pg.Pool({
    ...connectionConfig(connectionString, applicationName),
    max: poolSize,
    connectionTimeoutMillis: 10_000,
    // eslint-disable-next-line @typescript-eslint/no-misused-promises -- pg-pool awaits onConnect's promise (a rejection fails the connect); @types/pg says `=> void`
    onConnect: applySessionSettings,
  });
  pool.on('error', () => {
    // an idle connection died (server restart, network): the pool replaces it on next use
  });
  try {
    await pool.query('SELECT 1');
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw RunStoreError.storageFailure(
      `could not connect to PostgreSQL at ${describeTarget(connectionString)}: ${error instanceof Error ? error.message || error.name : String(error)}`,
      error,
    );
  }
  return pool;
}

/** Opens the cancel listener's own connection (`<applicationName>-cancel-listener`), its errors heard (the watch reconnects). @internal */
export function listenerConnector(connectionString: string, applicationName: string): () => Promise<pg.Client> {
  return async () => {
    const client = new pg.Client(connectionConfig(connectionString, `${applicationName}-cancel-listener`));
    client.on('error', () => undefined);
    await client.connect();
    return client;
  };
}

/**
 * A statement that pg gives up on after `timeoutMs` without an answer (PostgresRunStoreOptions.queryTimeoutMs):
 * through `pool.query` the connection is then dropped, not handed out again.
 * pg takes `query_timeout` per statement; its types know it only as a connection option.
 *
 * @internal
 */
export function timedQuery(text: string, values: unknown[], timeoutMs: number, name?: string): pg.QueryConfig {
  const config: pg.QueryConfig & { query_timeout: number } = {
    text,
    values,
    query_timeout: timeoutMs,
    ...(name === undefined ? {} : { name }),
  };
  return config;
}

/** What pg rejects a statement with when its `query_timeout` passed (its answer may still come: the connection is not reused). */
const QUERY_TIMEOUT_MESSAGE = 'Query read timeout';

/**
 * Tells whether a statement failed because it had no answer within its {@link timedQuery} timeout.
 *
 * @internal
 */
export function isQueryTimeout(error: unknown): boolean {
  return error instanceof Error && error.message === QUERY_TIMEOUT_MESSAGE;
}
