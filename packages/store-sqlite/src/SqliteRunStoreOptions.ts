import { RunStoreError } from '@runledger/trace';

/**
 * How a {@link SqliteRunStore} opens its database file.
 *
 * @public
 */
export interface SqliteRunStoreOptions {
  /** The database file; created with its folder's permissions when absent. `:memory:` is refused. */
  readonly path: string;
  /**
   * How long a write waits for another process's write lock before it fails with a
   * `storage_failure` error, in ms; default 5000. The write tries again every ms on a timer (after
   * a quarter of a second with back-off up to 25 ms), so the event loop is never blocked and the
   * lock is taken within about a ms of its release.
   */
  readonly busyTimeoutMs?: number;
  /**
   * Group commit, default true: the appends that arrive in the same turn of the event loop (from
   * the concurrent runs of this process) share one transaction and one fsync, each in its own
   * savepoint; each still resolves only once that commit is durable. `false`: every append is a
   * transaction of its own (the same promise, one fsync per step). See "Group commit" in
   * docs/storage.md.
   */
  readonly groupCommit?: boolean;
  /** How often `watchCancel` looks for a cancel requested by another process, in ms; default 250. */
  readonly cancelPollMs?: number;
}

const DEFAULT_BUSY_TIMEOUT_MS = 5000;
const DEFAULT_CANCEL_POLL_MS = 250;

/** The options of `SqliteRunStore.open`, checked, with the defaults filled in. @internal */
export interface CheckedSqliteRunStoreOptions {
  readonly path: string;
  readonly busyTimeoutMs: number;
  readonly groupCommit: boolean;
  readonly cancelPollMs: number;
}

/**
 * Every option of `SqliteRunStore.open`, checked, with the defaults filled in (the sibling of
 * store-postgres's checkPostgresRunStoreOptions).
 *
 * @throws RunStoreError `invalid_input` naming the option and its rule.
 * @internal
 */
export function checkSqliteRunStoreOptions(options: SqliteRunStoreOptions): CheckedSqliteRunStoreOptions {
  if (typeof options?.path !== 'string' || options.path === '') {
    throw RunStoreError.invalidInput('SqliteRunStoreOptions.path must be a non-empty file path');
  }
  if (options.groupCommit !== undefined && typeof options.groupCommit !== 'boolean') {
    throw RunStoreError.invalidInput(`SqliteRunStoreOptions.groupCommit must be true or false, got ${String(options.groupCommit)}`);
  }
  for (const key of ['busyTimeoutMs', 'cancelPollMs'] as const) {
    const value = options[key];
    if (value !== undefined && !(Number.isFinite(value) && value > 0)) {
      throw RunStoreError.invalidInput(`SqliteRunStoreOptions.${key} must be a positive number of ms, got ${String(value)}`);
    }
  }
  return {
    path: options.path,
    busyTimeoutMs: options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS,
    groupCommit: options.groupCommit ?? true,
    cancelPollMs: options.cancelPollMs ?? DEFAULT_CANCEL_POLL_MS,
  };
}
