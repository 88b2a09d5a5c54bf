export type { RunStoreContractHarness } from './RunStoreContractHarness.js';
export { runRunStoreContract } from './runRunStoreContract.js';
