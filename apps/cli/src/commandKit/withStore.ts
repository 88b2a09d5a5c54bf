import type { RunStore } from '@runledger/trace';
import { openExistingStore } from './openStore.js';
import type { StoreTarget } from './commandArgs.js';

/**
 * Opens the store a command names (by default one that exists already: a read command never
 * creates one), uses it, closes it.
 *
 * @internal
 */
export async function withStore<T>(
  target: StoreTarget,
  use: (store: RunStore) => Promise<T>,
  open: (target: StoreTarget) => Promise<RunStore> = openExistingStore,
): Promise<T> {
  const store = await open(target);
  try {
    return await use(store);
  } finally {
    await store.close();
  }
}
