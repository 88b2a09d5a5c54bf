import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { checkoutClient } from './checkoutClient.js';
import { adminQuery, requirePostgres, TEST_PG_URL } from './testing/pgTest.js';

describe('checkoutClient', () => {
  it('survives the backend of a checked-out connection being terminated between two statements: the next statement fails, the process lives', async () => {
    await requirePostgres();
    const pool = new pg.Pool({ connectionString: TEST_PG_URL, max: 1, application_name: 'rl-checkout-victim' });
    pool.on('error', () => undefined);
    try {
      const { client, release } = await checkoutClient(pool);
      await client.query('BEGIN');
      const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      const ended = new Promise<void>((resolve) => client.once('end', () => resolve()));
      // no statement in flight: pg reports the terminated backend as an 'error' event on the client,
      // which Node throws (and the process dies) when nothing listens
      expect((await adminQuery('SELECT pg_terminate_backend($1)', [pid])).rowCount).toBe(1);
      await ended;
      await expect(client.query('SELECT 1')).rejects.toThrow();
      release(true);
      // the pool replaces the dead connection
      expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows[0]!.one).toBe(1);
    } finally {
      await pool.end();
    }
  });
});
