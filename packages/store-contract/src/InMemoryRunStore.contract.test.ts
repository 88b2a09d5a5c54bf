import { InMemoryRunStore } from '@runledger/trace';
import { runRunStoreContract } from './runRunStoreContract.js';

let last: InMemoryRunStore | null = null;

runRunStoreContract('InMemoryRunStore', {
  async open() {
    last = InMemoryRunStore.create();
    return last;
  },
  async openPeer() {
    if (last === null) throw new Error('open() first');
    return last.openPeer();
  },
  async cleanup() {
    last = null;
  },
});
