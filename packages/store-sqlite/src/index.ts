export { SqliteRunStore } from './SqliteRunStore.js';
export type { SqliteRunStoreInternals } from './SqliteRunStoreInternals.js';
export type { SqliteRunStoreOptions } from './SqliteRunStoreOptions.js';
