import type pg from 'pg';

/**
 * The `extra_float_digits` every session of the store runs with: any value above 0 makes
 * PostgreSQL 12+ send a `double precision` as its shortest exact text (and 3 gives older servers
 * all 17 digits), so a duration reads back as the very number that was stored.
 */
export const EXACT_FLOAT_DIGITS = 3;

/**
 * Sets the store's own session settings on a new pooled connection: pins `extra_float_digits`
 * whatever the connection string, role or database set, and otherwise leaves alone what the
 * connection string set for the session (its `options=-c …`).
 *
 * @remarks
 * Durations are `double precision`, which pg reads as text: with `extra_float_digits` 0 or below
 * (a connection string's `-c extra_float_digits=-15`, an `ALTER ROLE … SET` or `ALTER DATABASE …
 * SET`) the server rounds them to 15 significant digits or fewer, and 0.30000000000000004 read
 * back as 0.3. So the store sets {@link EXACT_FLOAT_DIGITS} on every session, over any other
 * source; a connection that cannot take it fails its connect (the store's query then fails with
 * `storage_failure`), never reads rounded durations.
 *
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
  await client.query(`SELECT set_config('extra_float_digits', '${EXACT_FLOAT_DIGITS}', false)`);
  await client
    .query(
      `SELECT set_config('max_parallel_workers_per_gather', '0', false)
        WHERE (SELECT source FROM pg_settings WHERE name = 'max_parallel_workers_per_gather') <> 'client'`,
    )
    .catch(() => {
      // Only a tuning: a connection that cannot take it still serves the store.
    });
}
