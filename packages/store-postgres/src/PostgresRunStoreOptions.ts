import { quoteSchemaName } from './quoteSchemaName.js';
import { RunStoreError } from '@runledger/trace';

/**
 * Options of {@link PostgresRunStore.connect}.
 *
 * @public
 */
export interface PostgresRunStoreOptions {
  /**
   * A PostgreSQL connection string (`postgres://user:password@host:5432/database`). When absent,
   * the environment variable `RUNLEDGER_PG_URL` is used, then `DATABASE_URL`.
   */
  readonly connectionString?: string;
  /** The schema that holds every table of the store; created when missing. Default `runledger`. */
  readonly schema?: string;
  /** The most connections of the pool (the cancel listener uses one more). Default 10. */
  readonly poolSize?: number;
  /**
   * How often cancel requests are polled while the LISTEN connection is down, in ms. Default 1000.
   * While it is up, requests are pushed by NOTIFY and nothing is polled.
   */
  readonly cancelPollMs?: number;
  /**
   * The `application_name` of the store's connections (the cancel listener's gets
   * `-cancel-listener` appended), as `pg_stat_activity` shows it. Default `runledger`.
   */
  readonly applicationName?: string;
  /**
   * Group commit, default true: appends of different runs that arrive while another batch of
   * appends is on its way share one statement and one commit; each still resolves only once that
   * commit is done. An append alone goes at once, on its own. `false`: every append is a statement
   * and a transaction of its own. See "Group commit" in docs/storage.md.
   */
  readonly groupCommit?: boolean;
  /**
   * How long a write of a run (`createRun`, `appendStep`, `finishRun`, `requestCancel`,
   * `heartbeat`, `recoverInterrupted`) and each statement of a read (`getRun`, `listRuns`,
   * `readSteps`, `readOpenCalls`, `serverHealth`) wait for PostgreSQL's answer, in ms; default
   * 30000. Past it the store drops the statement's connection (the pool opens another) and the
   * call fails with `storage_failure` — the server may still have committed a write, so the
   * recorder's retry names the step's sequence and finds it stored. Without it, a connection that
   * went silent (a network path that drops packets, a hung server) would hold its call, and the
   * connection, for good. A run read whole comes back in pages of one snapshot, so no statement
   * grows with the run. Prunes, imports and migrations are not timed: their length grows with what
   * they change. See docs/storage.md (PostgreSQL) and docs/reliability.md.
   */
  readonly queryTimeoutMs?: number;
}

const DEFAULT_SCHEMA = 'runledger';
const DEFAULT_POOL_SIZE = 10;
const DEFAULT_CANCEL_POLL_MS = 1_000;
const DEFAULT_QUERY_TIMEOUT_MS = 30_000;
/** The longest timer Node keeps (2³¹ − 1 ms, about 24.8 days). */
const MAX_TIMER_MS = 2_147_483_647;

/** Where a store lives: the connection string (given or from the environment) and its schema, quoted. @internal */
export interface PostgresTarget {
  readonly connectionString: string;
  readonly schema: string;
  readonly quoted: string;
}

/** Every option of {@link PostgresRunStoreOptions}, checked, with its default. @internal */
export interface CheckedPostgresRunStoreOptions extends PostgresTarget {
  readonly poolSize: number;
  readonly cancelPollMs: number;
  readonly applicationName: string;
  readonly groupCommit: boolean;
  readonly queryTimeoutMs: number;
}

/**
 * The connection string (`RUNLEDGER_PG_URL`, then `DATABASE_URL` when none is given) and the schema.
 *
 * @throws RunStoreError `invalid_input` naming the option and its rule.
 * @internal
 */
export function checkPostgresTarget(options: Pick<PostgresRunStoreOptions, 'connectionString' | 'schema'>): PostgresTarget {
  const connectionString = options.connectionString ?? process.env['RUNLEDGER_PG_URL'] ?? process.env['DATABASE_URL'];
  if (typeof connectionString !== 'string' || connectionString.length === 0) {
    throw RunStoreError.invalidInput(
      'PostgresRunStoreOptions.connectionString is missing, and neither RUNLEDGER_PG_URL nor DATABASE_URL is set: pass a postgres:// connection string',
    );
  }
  const schema = options.schema ?? DEFAULT_SCHEMA;
  const quoted = quoteSchemaName(schema);
  if (quoted === null) {
    throw RunStoreError.invalidInput(
      `PostgresRunStoreOptions.schema must be a lower-case identifier (letters, digits, _; at most 63), got ${JSON.stringify(schema)}`,
    );
  }
  return { connectionString, schema, quoted };
}

/**
 * Every option of `PostgresRunStore.connect`, checked, with the defaults filled in.
 *
 * @throws RunStoreError `invalid_input` naming the option and its rule.
 * @internal
 */
export function checkPostgresRunStoreOptions(options: PostgresRunStoreOptions): CheckedPostgresRunStoreOptions {
  const target = checkPostgresTarget(options);
  const poolSize = options.poolSize ?? DEFAULT_POOL_SIZE;
  if (!Number.isSafeInteger(poolSize) || poolSize < 1) {
    throw RunStoreError.invalidInput(`PostgresRunStoreOptions.poolSize must be a positive integer, got ${String(poolSize)}`);
  }
  const cancelPollMs = options.cancelPollMs ?? DEFAULT_CANCEL_POLL_MS;
  if (typeof cancelPollMs !== 'number' || !Number.isFinite(cancelPollMs) || cancelPollMs < 1) {
    throw RunStoreError.invalidInput(`PostgresRunStoreOptions.cancelPollMs must be a number ≥ 1, got ${String(cancelPollMs)}`);
  }
  if (options.groupCommit !== undefined && typeof options.groupCommit !== 'boolean') {
    throw RunStoreError.invalidInput(`PostgresRunStoreOptions.groupCommit must be true or false, got ${String(options.groupCommit)}`);
  }
  const queryTimeoutMs = options.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
  if (!Number.isSafeInteger(queryTimeoutMs) || queryTimeoutMs < 1 || queryTimeoutMs > MAX_TIMER_MS) {
    throw RunStoreError.invalidInput(
      `PostgresRunStoreOptions.queryTimeoutMs must be a whole number of ms from 1 to ${MAX_TIMER_MS}, got ${String(queryTimeoutMs)}`,
    );
  }
  const applicationName = options.applicationName ?? 'runledger';
  if (
    typeof applicationName !== 'string' ||
    applicationName === '' ||
    applicationName.length > 48 ||
    !/^[\x20-\x7e]+$/.test(applicationName)
  ) {
    throw RunStoreError.invalidInput(
      `PostgresRunStoreOptions.applicationName must be 1 to 48 printable ASCII characters, got ${JSON.stringify(applicationName)}`,
    );
  }
  return { ...target, poolSize, cancelPollMs, applicationName, groupCommit: options.groupCommit ?? true, queryTimeoutMs };
}
