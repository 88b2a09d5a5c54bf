import { storageError } from './storageFailure.js';

/**
 * Tells whether a driver error means that another connection holds a lock, which waiting fixes.
 *
 * @internal
 */
export function isBusyError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

/**
 * Waits a little before the next attempt: 2, 4, 8 … up to 50 ms, with jitter.
 *
 * @internal
 */
export function backoffDelay(attempt: number): Promise<void> {
  const base = Math.min(50, 2 ** Math.min(attempt + 1, 6));
  const ms = base / 2 + Math.random() * base;
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Runs `fn` again while another connection holds the lock, with back-off, up to `budgetMs`;
 * then (or on any other failure) throws the store's storage_failure.
 *
 * @internal
 */
export async function retryBusy<T>(fn: () => T, budgetMs: number): Promise<T> {
  const start = Date.now();
  for (let attempt = 0; ; attempt++) {
    try {
      return fn();
    } catch (error) {
      if (!isBusyError(error) || Date.now() - start >= budgetMs) throw storageError(error, budgetMs);
      await backoffDelay(attempt);
    }
  }
}
