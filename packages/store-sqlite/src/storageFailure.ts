import { isBusyError } from './isBusyError.js';
import { RunStoreError } from '@runledger/trace';

/** What a failure of a write or a wait for the lock says first. */
export const SQLITE_FAILED = 'SQLite failed';

/**
 * A driver error as the store's `storage_failure`, saying so when the file stayed locked; a
 * RunStoreError passes through. The same arguments, in the same order, as the PostgreSQL store's:
 * what failed, the error, the time budget.
 */
export function storageFailure(context: string, error: unknown, budgetMs: number): RunStoreError {
  if (RunStoreError.is(error)) return error;
  if (isBusyError(error)) {
    return RunStoreError.storageFailure(
      `${context}: the database stayed locked by another connection for more than ${budgetMs} ms (busyTimeoutMs)`,
      error,
    );
  }
  return RunStoreError.storageFailure(`${context}: ${messageOf(error)}`, error);
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
