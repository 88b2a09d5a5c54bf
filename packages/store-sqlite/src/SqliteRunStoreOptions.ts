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
   * `storage_failure` error, in ms; default 5000. Waiting happens in slices of at most 100 ms
   * with asynchronous back-off in between, so the event loop is never blocked for long.
   */
  readonly busyTimeoutMs?: number;
  /** How often `watchCancel` looks for a cancel requested by another process, in ms; default 250. */
  readonly cancelPollMs?: number;
}
