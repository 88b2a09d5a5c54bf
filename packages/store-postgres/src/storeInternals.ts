import type { CancelWatcher } from './CancelWatcher.js';

const watchers = new WeakMap<object, CancelWatcher>();

/**
 * Remembers a store's cancel watcher, so that this package's tests can observe it without it
 * being part of the store's public surface.
 *
 * @internal
 */
export function registerCancelWatcher(store: object, watcher: CancelWatcher): void {
  watchers.set(store, watcher);
}

/**
 * The cancel watcher of a store made by this package.
 *
 * @internal
 */
export function cancelWatcherOf(store: object): CancelWatcher {
  const watcher = watchers.get(store);
  if (watcher === undefined) throw new TypeError('not a PostgresRunStore of this package');
  return watcher;
}
