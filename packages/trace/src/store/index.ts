// @runledger/trace/store — the entry point for store implementers: the input rules every store
// applies (RunStoreInput and the normalized shapes it returns) and the server-health tally a store
// folds its rows into. An agent author needs none of this; it is the main entry's business.
// The types those signatures mention are exported here too (they are the main entry's as well):
// each entry point closes over its own surface, as the API gate checks (docs/api-surface.md).
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
export type { AppendStepInput, CreateRunInput, FinishRunInput, OutcomeCounts, RunQuery, StepQuery, StoredRun, StoredStep } from './RunStore.js';
export { RunStoreError, RunStoreErrorCode } from './RunStoreError.js';
export type { RunStatus, TerminalRunStatus } from '../recording/RunStatus.js';
export { type FlakyThreshold, type ServerFailureCauseCount, type ServerHealth, type ServerHealthQuery, type ServerLatency, UNKNOWN_FAILURE_CAUSE } from '../health/ServerHealth.js';
export type { ToolCallFacts, ToolCallSource } from '../health/ToolCallFacts.js';
