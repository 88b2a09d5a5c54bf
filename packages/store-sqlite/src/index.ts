// @runledger/store-sqlite. The source mirrors store-postgres file for file, so who knows one store
// knows the other: <Store>RunStore (the RunStore), <Store>RunStoreOptions, <Store>RunStoreInternals
// (what this package's tests reach of a store, registered in a WeakMap: never on the public surface),
// the capabilities the class delegates to, one folder each (docs/architecture.md, "a store"): ledger/
// (<Store>Ledger: a run's life and reads, appendStatement.ts), search/ (<Store>RunSearch over
// listRunsStatement and runFilterConditions), import/ (importRun.ts: prepareImportRun), <Store>Access (what
// they all use of the database), <Store>GroupCommit (appends sharing a commit),
// schema/ (<Store>Migrations + migrateSchema + readSchemaVersion), health/ (<Store>HealthPending /
// <Store>HealthWriter / <Store>HealthReader: the server-health rollup, in trace's layout: calls noted
// as pending by appends, moved into the rollup in batches, read with it), prune/ (<Store>Prune and
// <Store>PruneRollup), <Store>CancelWatch, <store>Rows (the tables' columns; rows are read back
// through trace's storedRunOfRow / storedStepReader and listed through runPageOf, as in every SQL
// store), storageFailure.
// Only here: WriteQueue.ts (one connection, so writes are queued in-process and concurrent runs'
// appends grouped into one commit by SqliteGroupCommit.ts; PostgreSQL has a pool) and busyRetry.ts
// (SQLITE_BUSY from another process's lock; PostgreSQL waits on locks); health/SqliteRollupDeltas.ts
// sums calls per bucket in JS for the moves and the prune (PostgreSQL sums in SQL); prune/SqlitePrunePace.ts
// paces the prune between appends. SQLite's append is a few statements run in the append's
// transaction, PostgreSQL's one statement.
export { SqliteRunStore } from './SqliteRunStore.js';
export type { SqliteRunStoreOptions } from './SqliteRunStoreOptions.js';
