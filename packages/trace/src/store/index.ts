// @runledger/trace/store — the entry point for store implementers: the input rules every store
// applies (RunStoreInput and the normalized shapes it returns) and the server-health tally a store
// folds its rows into. An agent author needs none of this; it is the main entry's business.
export {
  type NormalizedAppendStep,
  type NormalizedCreateRun,
  type NormalizedFinishRun,
  type NormalizedHealthQuery,
  type NormalizedRunQuery,
  type NormalizedStepQuery,
  type RunCursorPosition,
  RunStoreInput,
} from './RunStoreInput.js';
export {
  addToTally,
  healthOf,
  newServerHealthTally,
  type ServerHealthRow,
  type ServerHealthTally,
} from '../health/ServerHealth.js';
