export { SqliteRunStore, type SqliteRunStoreInternals } from './SqliteRunStore.js';
export type { SqliteRunStoreOptions } from './SqliteRunStoreOptions.js';
