/**
 * Internal knobs for tests; not part of the options a caller passes.
 *
 * @internal
 */
export interface SqliteRunStoreInternals {
  /** Below this many calls in a window, health percentiles are exact (see SqliteHealthReader). */
  readonly exactHealthMaxCalls?: number;
  /** How many calls this store notes as pending before it moves them into the rollup (see SqliteHealthPending). */
  readonly rollPendingAt?: number;
  /** The run number of a file's first run (default 1): past 2^21, step rowids are no exact JS numbers. */
  readonly firstRunNo?: number;
}
