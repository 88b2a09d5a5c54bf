import { runRunStoreContract } from '@runledger/store-contract';
import { SqliteRunStore } from './SqliteRunStore.js';
import { tempFolder } from './testing/tempDatabase.js';

let folder: ReturnType<typeof tempFolder> | null = null;

runRunStoreContract('sqlite', {
  async open() {
    folder?.remove();
    folder = tempFolder();
    return SqliteRunStore.open({ path: folder.file(), cancelPollMs: 20 });
  },
  async openPeer() {
    if (folder === null) throw new Error('openPeer() before open()');
    return SqliteRunStore.open({ path: folder.file(), cancelPollMs: 20 });
  },
  async cleanup() {
    folder?.remove();
    folder = null;
  },
});
