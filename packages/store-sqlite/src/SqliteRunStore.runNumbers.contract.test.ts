// The shared contract once more on a file whose run numbers start at 2^30: a step's rowid,
// (run number << 32) + sequence, is then past 2^53, beyond a JS number's integers (a store that
// computed it in floating point stored every other step of such a run onto its neighbour's rowid).
import { runRunStoreContract } from '@runledger/store-contract';
import Database from 'better-sqlite3';
import { SqliteRunStore } from './SqliteRunStore.js';
import { tempFolder } from './testing/tempDatabase.js';

const FIRST_RUN_NO = 2 ** 30;
let folder: ReturnType<typeof tempFolder> | null = null;

runRunStoreContract('sqlite, run numbers from 2^30', {
  async open() {
    folder?.remove();
    folder = tempFolder();
    // a new file, its run counter moved on as if 2^30 - 1 runs had been handed out
    await (await SqliteRunStore.open({ path: folder.file() })).close();
    const db = new Database(folder.file());
    db.prepare('UPDATE run_counter SET last_run_no = ?').run(FIRST_RUN_NO - 1);
    db.close();
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
