// The shared contract once more on a file whose run numbers start at 2^30: a step's rowid,
// (run number << 32) + sequence, is then past 2^53, beyond a JS number's integers (a store that
// computed it in floating point stored every other step of such a run onto its neighbour's rowid).
import { runRunStoreContract } from '@runledger/store-contract';
import { SqliteRunStore } from './SqliteRunStore.js';
import { tempFolder } from './testing/tempDatabase.js';

const FIRST_RUN_NO = 2 ** 30;
let folder: ReturnType<typeof tempFolder> | null = null;

runRunStoreContract('sqlite, run numbers from 2^30', {
  async open() {
    folder?.remove();
    folder = tempFolder();
    return SqliteRunStore.openWith({ path: folder.file(), cancelPollMs: 20 }, { firstRunNo: FIRST_RUN_NO });
  },
  async openPeer() {
    if (folder === null) throw new Error('openPeer() before open()');
    return SqliteRunStore.openWith({ path: folder.file(), cancelPollMs: 20 }, { firstRunNo: FIRST_RUN_NO });
  },
  async cleanup() {
    folder?.remove();
    folder = null;
  },
});
