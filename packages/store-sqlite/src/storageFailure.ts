import { RunStoreError } from '@runledger/trace/store';
import { isBusyError } from './isBusyError.js';

/** A driver error as the store's `storage_failure`, saying so when the file stayed locked; a RunStoreError passes through. */
export function storageFailure(error: unknown, budgetMs: number, context = 'SQLite failed'): RunStoreError {
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
