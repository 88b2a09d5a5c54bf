import type pg from 'pg';
import type { PostgresCancelWatch } from './PostgresCancelWatch.js';

/** What this package's tests may observe of a store without it being part of its public surface. */
interface StoreInternals {
  readonly watcher: PostgresCancelWatch;
  readonly pool: pg.Pool;
}

const internals = new WeakMap<object, StoreInternals>();

/**
 * Remembers a store's cancel watcher and pool, so that this package's tests can observe them.
 *
 * @internal
 */
export function registerStoreInternals(store: object, parts: StoreInternals): void {
  internals.set(store, parts);
}

function internalsOf(store: object): StoreInternals {
  const parts = internals.get(store);
  if (parts === undefined) throw new TypeError('not a PostgresRunStore of this package');
  return parts;
}

/**
 * The cancel watcher of a store made by this package.
 *
 * @internal
 */
export function cancelWatchOf(store: object): PostgresCancelWatch {
  return internalsOf(store).watcher;
}

/**
 * The connection pool of a store made by this package.
 *
 * @internal
 */
export function poolOf(store: object): pg.Pool {
  return internalsOf(store).pool;
}
