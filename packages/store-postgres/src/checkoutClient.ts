import type pg from 'pg';

/** A connection checked out of the pool for several statements (a transaction). @internal */
export interface CheckedOutClient {
  readonly client: pg.PoolClient;
  /** Returns the connection to the pool; `broken` destroys it instead (a transaction left open, a dead backend). */
  release(broken: boolean): void;
}

/**
 * Checks a connection out of the pool for several statements, listening for its `'error'` event
 * while it is out.
 *
 * @remarks
 * A backend that dies between two statements (terminated, restarted, the network) reports to the
 * client, not to a query: pg emits `'error'` on the client, and with no listener Node throws it and
 * the process dies. The pool listens only while the connection is idle in it. Heard here instead,
 * the next statement fails and the caller rolls back as for any failed statement.
 *
 * @internal
 */
export async function checkoutClient(pool: pg.Pool): Promise<CheckedOutClient> {
  const client = await pool.connect();
  const ignore = (): void => undefined;
  client.on('error', ignore);
  return {
    client,
    release(broken) {
      client.off('error', ignore);
      client.release(broken);
    },
  };
}
