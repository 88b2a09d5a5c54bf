import { runRunStoreContract } from '@runledger/store-contract';
import type { PostgresRunStore } from './PostgresRunStore.js';
import { connectTestStore, dropSchema, randomSchema } from './testing/pgTest.js';

// Every test of the contract gets an empty schema of its own, dropped afterwards.
let schema: string | null = null;

runRunStoreContract('postgres', {
  async open(): Promise<PostgresRunStore> {
    schema = randomSchema('rl_contract');
    return connectTestStore(schema);
  },
  async openPeer(): Promise<PostgresRunStore> {
    if (schema === null) throw new Error('open() first');
    return connectTestStore(schema);
  },
  async cleanup(): Promise<void> {
    if (schema !== null) await dropSchema(schema);
    schema = null;
  },
});
