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
