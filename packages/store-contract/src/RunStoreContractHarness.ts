import type { RunStore } from '@runledger/trace';

/**
 * How the contract suite gets stores to test.
 *
 * @remarks
 * `open()` is called at the start of each test that needs a store and must return a store on an
 * EMPTY database (a fresh file, schema or database). `openPeer()`, when given, returns a second
 * store instance on the same database as the last `open()`, as another process would open it;
 * the cross-instance tests (cancel seen by a peer, watchCancel fired from a peer, appends from
 * two instances) run only when it is given. Open stores with a short cancel poll interval (say
 * 20 ms): watchCancel tests wait at most 5 s. After each test the suite closes every store it
 * opened, then calls `cleanup()` (drop the schema, delete the file).
 *
 * @public
 */
export interface RunStoreContractHarness {
  open(): Promise<RunStore>;
  openPeer?(): Promise<RunStore>;
  cleanup?(): Promise<void>;
}
