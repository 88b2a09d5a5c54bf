export { PostgresRunStore } from './PostgresRunStore.js';
export type { PostgresRunStoreOptions } from './PostgresRunStoreOptions.js';
