import type pg from 'pg';
import type { PostgresCancelWatch } from './PostgresCancelWatch.js';
import type { PostgresHealthPending } from './health/PostgresHealthPending.js';

/** What this package's tests may observe of a store without it being part of its public surface. */
interface StoreInternals {
  readonly watcher: PostgresCancelWatch;
  readonly pool: pg.Pool;
  /** Its calls pending for the health rollup, and when it moves them. */
  readonly pending: PostgresHealthPending;
}

const internals = new WeakMap<object, StoreInternals>();

/**
 * Remembers a store's cancel watcher, pool and pending calls, so that this package's tests can observe them (and set when it moves them).
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

/**
 * Makes a store of this package move its pending calls into the health rollup every `calls` calls
 * (tests: some calls moved, some pending).
 *
 * @internal
 */
export function setRollPendingAt(store: object, calls: number): void {
  internalsOf(store).pending.rollAt = calls;
}

/**
 * Resolves once the store has no move of pending calls under way (tests read the tables after it).
 *
 * @internal
 */
export function movesSettled(store: object): Promise<void> {
  return internalsOf(store).pending.settled();
}
