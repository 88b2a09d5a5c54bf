import type pg from 'pg';

/**
 * Sets the store's own session settings on a new pooled connection, leaving alone whatever the
 * connection string set for the session (its `options=-c …`), which is never replaced.
 *
 * @remarks
 * The store's queries are short index scans: starting parallel workers for them costs more than
 * it saves (it made a 5 ms health query take 100+ ms on a busy machine), so
 * `max_parallel_workers_per_gather` is 0, unless the connection string set it itself (its
 * setting then has the source `client`). It is the pool's `onConnect` hook: the pool awaits it
 * before it hands the new connection to any query of the store, so no query is ever sent while it
 * runs (pg deprecates that: "Calling client.query() when the client is already executing a query
 * is deprecated"), which the pool's `connect` event, which does not wait, could not promise.
 *
 * @internal
 */
export async function applySessionSettings(client: pg.ClientBase): Promise<void> {
  await client
    .query(
      `SELECT set_config('max_parallel_workers_per_gather', '0', false)
        WHERE (SELECT source FROM pg_settings WHERE name = 'max_parallel_workers_per_gather') <> 'client'`,
    )
    .catch(() => {
      // Only a tuning: a connection that cannot take it still serves the store.
    });
}
