import { RunStoreError } from '@runledger/trace';

/** What pg rejects a statement with when its `query_timeout` passed (it then drops the connection). */
const QUERY_TIMEOUT_MESSAGE = 'Query read timeout';

/** A driver error as the store's `storage_failure` naming the operation; a RunStoreError passes through. */
export function storageFailure(what: string, error: unknown, timeoutMs?: number): RunStoreError {
  if (RunStoreError.is(error)) return error;
  if (error instanceof Error && error.message === QUERY_TIMEOUT_MESSAGE) {
    return RunStoreError.storageFailure(
      `PostgreSQL ${what} failed: no answer within ${timeoutMs === undefined ? '' : `${timeoutMs} ms, `}PostgresRunStoreOptions.queryTimeoutMs; its connection was dropped (the server may have committed it)`,
      error,
    );
  }
  return RunStoreError.storageFailure(`PostgreSQL ${what} failed: ${error instanceof Error ? error.message : String(error)}`, error);
}
