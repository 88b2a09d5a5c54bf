import { RunStoreError } from '@runledger/trace';

/** A driver error as the store's `storage_failure` naming the operation; a RunStoreError passes through. */
export function storageFailure(what: string, error: unknown): RunStoreError {
  if (RunStoreError.is(error)) return error;
  return RunStoreError.storageFailure(`PostgreSQL ${what} failed: ${error instanceof Error ? error.message : String(error)}`, error);
}
