// @runledger/trace/store — the entry point for store implementers: the input rules every store
// applies (the `check…` functions and the normalized shapes they return), the server-health tally
// a store folds its rows into, the row readers of SQL stores, and the one duration histogram and
// rollup levels of every store's health rollup. An agent author needs none of this.
// Each name has one entry: what the users of a store need (RunStore, its optional parts and their
// `can…` tests, the shapes the checks take and return: StoredRun, RunQuery, ServerHealth,
// RunStoreError, ...) is the main entry's, and a store imports it from `@runledger/trace`. The
// modules behind this entry import those shapes by the package's name too (type imports), so this
// entry's declarations do, and the API gate reads them as another module's (docs/api-surface.md).
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
  duplicateRunIdError,
  isSameStep,
  type NormalizedAppendStep,
  type NormalizedCreateRun,
  type NormalizedFinishRun,
  type NormalizedHealthQuery,
  type NormalizedRunQuery,
  type NormalizedStepQuery,
  sequencePastEndError,
} from './storeInputChecks.js';
export { MAX_NAME_LENGTH } from './storeValueRules.js';
export { cancelWhileRunningReason, recoveryReason } from '../step/RunTerminationReason.js';
export {
  checkTermination,
  NO_TERMINATION,
  type TerminationColumns,
  terminationColumns,
  terminationColumnsOfText,
  terminationOfColumns,
  terminationTextOfColumns,
} from './storedTermination.js';
export { addToTally, healthOf, newServerHealthTally, type ServerHealthTally, type ServerLatency } from '../health/ServerHealthTally.js';
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
export { runPageOf } from './runPageOf.js';
export { storedRunOfRow, type StoredRunRow } from './storedRunOfRow.js';
export { type CancelRequestColumns, cancelRequestOfColumns } from './CancelRequestColumns.js';
export { storedStepReader, type StoredStepRow } from './storedStepReader.js';
export { callIdOfPayload } from './OpenCalls.js';
export {
  checkPruneRunsQuery,
  DEFAULT_PRUNE_BATCH_SIZE,
  isPrunableRun,
  MAX_PRUNE_BATCH_RUNS,
  MAX_PRUNE_BATCH_SIZE,
  type NormalizedPruneRunsQuery,
  planPruneBatches,
  PruneRunsTally,
} from './PruneRuns.js';
export { type ToolCallFacts, type ToolCallSource, toolCallOf } from '../health/ToolCallFacts.js';
export {
  checkToolCallTotalsQuery,
  type NormalizedToolCallTotalsQuery,
  type ToolCallSums,
  ToolCallTotalsFold,
  toolNameOfPayload,
} from './toolCallTotalsFold.js';
export { storedStepTokens, stepTokens } from '../step/stepTokens.js';
export { checkRunIdPrefix, checkRunTotalsQuery, type NormalizedRunTotalsQuery, runTotalsOf } from './RunSearch.js';
export {
  checkToolCallQuery,
  decodeToolCallCursor,
  encodeToolCallCursor,
  type NormalizedToolCallQuery,
  type ToolCallCursorPosition,
  toolCallPageOf,
} from './ToolCallListing.js';
