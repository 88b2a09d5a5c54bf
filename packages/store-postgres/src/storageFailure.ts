import { isQueryTimeout } from './postgresConnections.js';
import { RunStoreError } from '@runledger/trace';

/** A driver error as the store's `storage_failure` naming the operation; a RunStoreError passes through. */
export function storageFailure(what: string, error: unknown, timeoutMs?: number): RunStoreError {
  if (RunStoreError.is(error)) return error;
  if (isQueryTimeout(error)) {
    return RunStoreError.storageFailure(
      `PostgreSQL ${what} failed: no answer within ${timeoutMs === undefined ? '' : `${timeoutMs} ms, `}PostgresRunStoreOptions.queryTimeoutMs; its connection was dropped (the server may have committed it)`,
      error,
    );
  }
  return RunStoreError.storageFailure(`PostgreSQL ${what} failed: ${error instanceof Error ? error.message : String(error)}`, error);
}
