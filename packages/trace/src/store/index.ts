// @runledger/trace/store — the entry point for store implementers: the input rules every store
// applies (the `check…` functions and the normalized shapes they return) and the server-health
// tally a store folds its rows into. An agent author needs none of this; it is the main entry's
// business.
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
  recoveryReason,
  type RunCursorPosition,
  RunStoreInput,
  sequencePastEndError,
} from './RunStoreInput.js';
export {
  addToTally,
  healthOf,
  newServerHealthTally,
  type ServerHealthRow,
  type ServerHealthTally,
} from '../health/ServerHealth.js';
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
  rollupBucketStart,
} from '../health/rollupLevels.js';
