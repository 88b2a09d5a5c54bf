// @runledger/store-postgres. The source mirrors store-sqlite file for file, so who knows one store
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
// store), storageFailure, ledger/appendStatement.ts (here one statement, and the batch
// of appends PostgresGroupCommit sends), the reads' statements (listToolCallsStatement,
// runIdsByPrefixStatement) and payloadFields (the tool name and tokens a step's payload gives).
// Only here: withTransaction.ts (the one way several statements run as one transaction on a pooled
// connection; SQLite's one connection uses better-sqlite3's db.transaction), schema/backfill*.ts (migration
// backfills in batches over the network; SQLite's run inline in its migrations), quoteSchemaName.ts
// (SQLite has no schemas) and sessionSettings.ts (per-connection options).
export { PostgresRunStore } from './PostgresRunStore.js';
export type { PostgresRunStoreOptions } from './PostgresRunStoreOptions.js';
