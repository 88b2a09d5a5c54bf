/**
 * Options of {@link PostgresRunStore.connect}.
 *
 * @public
 */
export interface PostgresRunStoreOptions {
  /**
   * A PostgreSQL connection string (`postgres://user:password@host:5432/database`). When absent,
   * the environment variable `RUNLEDGER_PG_URL` is used, then `DATABASE_URL`.
   */
  readonly connectionString?: string;
  /** The schema that holds every table of the store; created when missing. Default `runledger`. */
  readonly schema?: string;
  /** The most connections of the pool (the cancel listener uses one more). Default 10. */
  readonly poolSize?: number;
  /**
   * How often cancel requests are polled while the LISTEN connection is down, in ms. Default 1000.
   * While it is up, requests are pushed by NOTIFY and nothing is polled.
   */
  readonly cancelPollMs?: number;
  /**
   * The `application_name` of the store's connections (the cancel listener's gets
   * `-cancel-listener` appended), as `pg_stat_activity` shows it. Default `runledger`.
   */
  readonly applicationName?: string;
  /**
   * Group commit, default true: appends of different runs that arrive while another batch of
   * appends is on its way share one statement and one commit; each still resolves only once that
   * commit is done. An append alone goes at once, on its own. `false`: every append is a statement
   * and a transaction of its own. See "Group commit" in docs/storage.md.
   */
  readonly groupCommit?: boolean;
}
