// Once per store: the evaluating process holds a lock on the store, so that several processes
// serving the same store notify once. PostgreSQL: a session advisory lock (pg_try_advisory_lock)
// on a connection of its own, keyed by the store's schema. SQLite: a lock file beside the
// database naming the process that holds it (taken over when that process is gone).
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { StoreTarget } from '../commandKit/commandArgs.js';
import { POSTGRES_STORE_PACKAGE } from '../commandKit/loadPostgresStore.js';

/** A lock a process may hold on a store's alert evaluation. @internal */
export interface AlertLock {
  /** Takes the lock, or tells it is held already by this lock; false while another holds it. */
  tryAcquire(): Promise<boolean>;
  /** Gives the lock up (nothing when not held) and frees what it uses. */
  release(): Promise<void>;
}

interface PgClient {
  connect(): Promise<void>;
  query(text: string, values?: readonly unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  end(): Promise<void>;
  on(event: 'error', listener: (error: Error) => void): void;
}

/** The `pg` that `@runledger/store-postgres` uses (the CLI has no `pg` of its own). */
function pgClientClass(): new (config: { connectionString: string }) => PgClient {
  const fromCli = createRequire(import.meta.url);
  const storePackage = fromCli.resolve(`${POSTGRES_STORE_PACKAGE}/package.json`);
  return (createRequire(storePackage)('pg') as { Client: new (config: { connectionString: string }) => PgClient }).Client;
}

/** The advisory lock key's text: one per store (database and schema). */
export const pgAlertLockName = (schema: string | undefined): string => `runledger alerts ${schema ?? 'public'}`;

/** A PostgreSQL session advisory lock on its own connection. @internal */
export class PostgresAlertLock implements AlertLock {
  #client: PgClient | null = null;
  #held = false;

  constructor(
    private readonly url: string,
    private readonly schema: string | undefined,
  ) {}

  async tryAcquire(): Promise<boolean> {
    if (this.#held && this.#client !== null) return true;
    if (this.#client === null) {
      const Client = pgClientClass();
      const client = new Client({ connectionString: this.url });
      // a lost connection loses the lock: take it again on the next pass
      client.on('error', () => {
        this.#held = false;
        this.#client = null;
      });
      await client.connect();
      this.#client = client;
    }
    const { rows } = await this.#client.query('SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS held', [
      pgAlertLockName(this.schema),
    ]);
    this.#held = rows[0]?.['held'] === true;
    return this.#held;
  }

  async release(): Promise<void> {
    const client = this.#client;
    this.#client = null;
    this.#held = false;
    // ending the session releases its advisory locks
    if (client !== null) await client.end().catch(() => undefined);
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A lock file naming the process that holds it (single process per SQLite store). @internal */
export class FileAlertLock implements AlertLock {
  #held = false;

  constructor(readonly path: string) {}

  tryAcquire(): Promise<boolean> {
    if (this.#held) return Promise.resolve(true);
    for (let round = 0; round < 2; round++) {
      try {
        const fd = openSync(this.path, 'wx');
        writeSync(fd, `${process.pid}\n`);
        closeSync(fd);
        this.#held = true;
        return Promise.resolve(true);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      let pid = NaN;
      try {
        pid = Number.parseInt(readFileSync(this.path, 'utf8'), 10);
      } catch {
        continue; // gone in between: try again
      }
      if (Number.isSafeInteger(pid) && pid > 0 && processAlive(pid)) return Promise.resolve(false);
      rmSync(this.path, { force: true }); // its process is gone: a stale lock
    }
    return Promise.resolve(false);
  }

  release(): Promise<void> {
    if (this.#held) rmSync(this.path, { force: true });
    this.#held = false;
    return Promise.resolve();
  }
}

/** The lock of a store: advisory on PostgreSQL, `<file>.alerts.lock` beside a SQLite file. @internal */
export function alertLockFor(target: StoreTarget): AlertLock {
  return target.kind === 'postgres' ? new PostgresAlertLock(target.url, target.schema) : new FileAlertLock(`${target.path}.alerts.lock`);
}
