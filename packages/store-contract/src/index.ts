export type { RunStoreContractHarness } from './RunStoreContractHarness.js';
export { runRunStoreContract } from './runRunStoreContract.js';
export { LEGACY_PROSE_TIME, LEGACY_TERMINATION_PROSE } from './legacyTerminationProse.js';
