// @runledger/store-postgres. The source mirrors store-sqlite file for file, so who knows one store
// knows the other: <Store>RunStore (the RunStore), <Store>RunStoreOptions, <Store>RunStoreInternals
// (what this package's tests reach), <Store>Migrations + migrateSchema + readSchemaVersion,
// <Store>HealthPending / <Store>HealthWriter / <Store>HealthReader (the server-health rollup, in
// trace's layout: calls noted as pending by appends, moved into the rollup in batches, read with it),
// <Store>CancelWatch, <store>Rows (row mapping: toStoredRun, toStoredStep), storageFailure.
// importRun.ts (importRun's transaction) and appendStatement.ts (the append, here one statement, and
// the batch of appends PostgresAppendBatcher sends) have their siblings of those names in store-sqlite.
// Only here: PostgresAppendBatcher.ts (group commit over a pool; SQLite groups in its WriteQueue),
// backfillLegacySteps.ts / backfillCallCounting.ts
// (migration backfills in batches over the network; SQLite's run inline in its migrations),
// quoteSchemaName.ts (SQLite has no schemas) and sessionSettings.ts (per-connection options).
export { PostgresRunStore } from './PostgresRunStore.js';
export type { PostgresRunStoreOptions } from './PostgresRunStoreOptions.js';
