// The one way this store runs several statements as one transaction on one pooled connection.
import type pg from 'pg';
import { checkoutClient } from './checkoutClient.js';
import { isQueryTimeout, timedQuery } from './postgresConnections.js';

/** How a transaction begins, and how long its own statements may wait for an answer. */
export interface TransactionOptions {
  /** The statement that opens it (an isolation level, `READ ONLY`); `BEGIN` by default. */
  readonly begin?: string;
  /** BEGIN, COMMIT and ROLLBACK without an answer within this many ms fail (PostgresRunStoreOptions.queryTimeoutMs); no limit by default. */
  readonly timeoutMs?: number;
}

/**
 * Runs `work` in one transaction on a connection checked out of the pool: BEGIN, `work`, COMMIT.
 *
 * @remarks
 * On any failure the transaction is rolled back, and the connection goes back to the pool only
 * when the ROLLBACK answered: a backend that was killed, a network that went away or a statement
 * that timed out (its answer still on the way; no ROLLBACK is sent after it) destroy the connection
 * instead of handing it out again. Rejects with what failed, unchanged (a failed checkout too), so
 * that the caller names the operation in its `storage_failure`.
 *
 * @internal
 */
export async function withTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
  options: TransactionOptions = {},
): Promise<T> {
  const { timeoutMs } = options;
  const statement = (text: string): string | pg.QueryConfig => (timeoutMs === undefined ? text : timedQuery(text, [], timeoutMs));
  const checkedOut = await checkoutClient(pool);
  const { client } = checkedOut;
  let broken = true;
  try {
    await client.query(statement(options.begin ?? 'BEGIN'));
    const value = await work(client);
    await client.query(statement('COMMIT'));
    broken = false;
    return value;
  } catch (error) {
    if (!isQueryTimeout(error)) {
      broken = !(await client.query(statement('ROLLBACK')).then(
        () => true,
        () => false,
      ));
    }
    throw error;
  } finally {
    checkedOut.release(broken);
  }
}
