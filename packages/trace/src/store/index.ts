// @runledger/trace/store — the entry point for store implementers: the input rules every store
// applies (the `check…` functions and the normalized shapes they return), the server-health tally
// a store folds its rows into, and the one duration histogram and rollup levels of every store's
// health rollup. An agent author needs none of this; it is the main entry's business.
// The types those signatures mention are exported here too (they are the main entry's as well):
// each entry point closes over its own surface, as the API gate checks (docs/api-surface.md).
export {
  checkAppendStep,
  checkCreateRun,
  checkFinishRun,
  checkHealthQuery,
  checkHeartbeatAt,
  checkImportRun,
  checkRequestCancelAt,
  checkRunId,
  checkRunQuery,
  checkStaleBefore,
  checkStepQuery,
  compareNewestFirst,
  decodeRunCursor,
  duplicateRunIdError,
  encodeRunCursor,
  isSameStep,
  type NormalizedAppendStep,
  type NormalizedCreateRun,
  type NormalizedFinishRun,
  type NormalizedHealthQuery,
  type NormalizedRunQuery,
  type NormalizedStepQuery,
  type RunCursorPosition,
  sequencePastEndError,
} from './storeInputChecks.js';
export { MAX_NAME_LENGTH } from './storeValueRules.js';
export { cancelWhileRunningReason, recoveryReason, RunTerminationReason } from '../step/RunTerminationReason.js';
export { addToTally, healthOf, newServerHealthTally, type ServerHealthTally } from '../health/ServerHealth.js';
export { type ServerHealthRow, serverHealth } from './serverHealth.js';
export {
  DURATION_HISTOGRAM_MAX_RELATIVE_ERROR,
  DURATION_HISTOGRAM_SLOTS,
  durationSlot,
  durationSlotValue,
  histogramPercentile,
} from '../health/durationHistogram.js';
export {
  DAY_LEVEL,
  type LevelRange,
  type MsRange,
  planRollupWindow,
  ROLLUP_LEVEL_SIZES,
  type RollupWindowPlan,
  rollupBucketSpan,
  rollupBucketStart,
} from '../health/rollupLevels.js';
export type {
  AppendStepInput,
  CreateRunInput,
  FinishRunInput,
  OutcomeCounts,
  RunQuery,
  RunStore,
  RunPage,
  StepQuery,
  StoredRun,
  StoredStep,
} from './RunStore.js';
export { RunStoreError, RunStoreErrorCode } from './RunStoreError.js';
export { runPageOf } from './runPageOf.js';
export { storedRunOfRow, type StoredRunRow } from './storedRunOfRow.js';
export { storedStepReader, type StoredStepRow } from './storedStepReader.js';
export {
  callIdOfPayload,
  callIdOfStoredStep,
  canReadOpenCalls,
  OpenCallSet,
  type OpenCallsRead,
  type OpenCallsRunStore,
} from './OpenCalls.js';
export {
  canPruneRuns,
  checkPruneRunsQuery,
  DEFAULT_PRUNE_BATCH_SIZE,
  isPrunableRun,
  MAX_PRUNE_BATCH_RUNS,
  MAX_PRUNE_BATCH_SIZE,
  type NormalizedPruneRunsQuery,
  planPruneBatches,
  type PruneRunsQuery,
  type PruneRunsResult,
  PruneRunsTally,
  type PruningRunStore,
} from './PruneRuns.js';
export { isRunStatus, isTerminalRunStatus, RUN_STATUSES, RunStatus, type TerminalRunStatus } from '../step/RunStatus.js';
export { isLateCancel } from './isLateCancel.js';
export { DEFAULT_FLAKY_THRESHOLD, type FlakyThreshold } from '../health/FlakyThreshold.js';
export {
  type ServerFailureCauseCount,
  type ServerHealth,
  type ServerHealthQuery,
  type ServerLatency,
  UNKNOWN_FAILURE_CAUSE,
} from '../health/ServerHealth.js';
export { type ToolCallFacts, type ToolCallSource, toolCallOf } from '../health/ToolCallFacts.js';
export {
  canSearchRuns,
  checkRunIdPrefix,
  checkRunTotalsQuery,
  type NormalizedRunTotalsQuery,
  type RunTotals,
  type RunTotalsQuery,
  runTotalsOf,
  type SearchingRunStore,
} from './RunSearch.js';
export {
  checkToolCallQuery,
  decodeToolCallCursor,
  encodeToolCallCursor,
  type NormalizedToolCallQuery,
  type StoredToolCall,
  type ToolCallCursorPosition,
  type ToolCallPage,
  type ToolCallQuery,
  toolCallPageOf,
} from './ToolCallListing.js';
export { storedStepTokens, stepTokens } from '../step/stepTokens.js';
