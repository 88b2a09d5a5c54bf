import type { SqliteHealthPending } from './health/SqliteHealthPending.js';
import type { SqliteHealthReader } from './health/SqliteHealthReader.js';

/** What this package's tests may observe of a store without it being part of its public surface. */
interface StoreInternals {
  /** Its calls pending for the health rollup, and when it moves them. */
  readonly pending: SqliteHealthPending;
  /** Its health reads, and up to how many calls they are exact. */
  readonly health: SqliteHealthReader;
}

const internals = new WeakMap<object, StoreInternals>();

/**
 * Remembers a store's pending calls and health reader, so that this package's tests can observe
 * them (and set when it moves them, and up to how many calls health is exact).
 *
 * @internal
 */
export function registerStoreInternals(store: object, parts: StoreInternals): void {
  internals.set(store, parts);
}

function internalsOf(store: object): StoreInternals {
  const parts = internals.get(store);
  if (parts === undefined) throw new TypeError('not a SqliteRunStore of this package');
  return parts;
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
 * Makes a store of this package compute health exactly from the steps only for windows of at most
 * `calls` calls (tests: 0 reads the rollup always).
 *
 * @internal
 */
export function setExactHealthMaxCalls(store: object, calls: number): void {
  internalsOf(store).health.exactMaxCalls = calls;
}
