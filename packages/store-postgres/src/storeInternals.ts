import type pg from 'pg';
import type { CancelWatcher } from './CancelWatcher.js';

/** What this package's tests may observe of a store without it being part of its public surface. */
interface StoreInternals {
  readonly watcher: CancelWatcher;
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
export function cancelWatcherOf(store: object): CancelWatcher {
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
