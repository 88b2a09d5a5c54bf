// The shared contract once more with `groupCommit: false` (one transaction per append); the
// default, grouped path runs it in SqliteRunStore.contract.test.ts.
import { runRunStoreContract } from '@runledger/store-contract';
import { SqliteRunStore } from './SqliteRunStore.js';
import { tempFolder } from './testing/tempDatabase.js';

let folder: ReturnType<typeof tempFolder> | null = null;

runRunStoreContract('sqlite, groupCommit: false', {
  async open() {
    folder?.remove();
    folder = tempFolder();
    return SqliteRunStore.open({ path: folder.file(), cancelPollMs: 20, groupCommit: false });
  },
  async openPeer() {
    if (folder === null) throw new Error('openPeer() before open()');
    return SqliteRunStore.open({ path: folder.file(), cancelPollMs: 20, groupCommit: false });
  },
  async cleanup() {
    folder?.remove();
    folder = null;
  },
});
