import { isBusyError } from './isBusyError.js';
import { SQLITE_FAILED, storageFailure } from './storageFailure.js';

/**
 * How often a writer tries again for a lock another connection holds, while it has waited less
 * than {@link BUSY_POLL_WINDOW_MS}.
 *
 * @remarks
 * SQLite's write lock has no queue: a waiter gets it only by trying while it is free. A waiter
 * that sleeps long between tries misses the short gaps another writer leaves (a prune pauses a few
 * ms between its transactions); one that tries every ms takes the lock within about a ms of its
 * release. A try is one failed `BEGIN IMMEDIATE` (microseconds), on a timer, so the event loop runs
 * meanwhile.
 *
 * @internal
 */
export const BUSY_POLL_MS = 1;
/** How long a waiter polls every {@link BUSY_POLL_MS}; a lock held longer (a migration, a big import) is tried for with back-off. */
export const BUSY_POLL_WINDOW_MS = 250;
/** The longest back-off between two tries, after the poll window. */
const MAX_BACKOFF_MS = 25;

/**
 * How long to wait before the next try at a lock after waiting `waitedMs`: {@link BUSY_POLL_MS}
 * within the poll window, then 2, 4, 8 … up to 25 ms, with jitter.
 *
 * @internal
 */
export function busyDelayMs(waitedMs: number, attempt: number): number {
  if (waitedMs < BUSY_POLL_WINDOW_MS) return BUSY_POLL_MS;
  const base = Math.min(MAX_BACKOFF_MS, 2 ** Math.min(attempt + 1, 5));
  return base / 2 + Math.random() * base;
}

/**
 * Runs `fn` again while another connection holds the lock (see {@link busyDelayMs}), up to
 * `budgetMs`; then (or on any other failure) throws the store's storage_failure.
 *
 * @internal
 */
export async function retryBusy<T>(fn: () => T, budgetMs: number): Promise<T> {
  const start = Date.now();
  for (let backoffs = 0; ;) {
    try {
      return fn();
    } catch (error) {
      const waited = Date.now() - start;
      if (!isBusyError(error) || waited >= budgetMs) throw storageFailure(SQLITE_FAILED, error, budgetMs);
      const ms = busyDelayMs(waited, backoffs);
      if (waited >= BUSY_POLL_WINDOW_MS) backoffs++;
      await new Promise((resolve) => setTimeout(resolve, ms));
    }
  }
}
