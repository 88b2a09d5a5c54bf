export { isRunStatus, isTerminalRunStatus, RUN_STATUSES, RunStatus, type TerminalRunStatus } from './recording/RunStatus.js';
export { isRunStepKind, RUN_STEP_KINDS, RunStepKind } from './step/RunStepKind.js';
export type {
  AppendStepInput,
  CreateRunInput,
  FinishRunInput,
  OutcomeCounts,
  RunPage,
  RunQuery,
  RunStore,
  StepQuery,
  StoredRun,
  StoredStep,
} from './store/RunStore.js';
export { isLateCancel } from './store/isLateCancel.js';
export { RunStoreError, RunStoreErrorCode } from './store/RunStoreError.js';
export type { FlakyThreshold, ServerFailureCauseCount, ServerHealth, ServerHealthQuery } from './health/ServerHealth.js';
export { InMemoryRunStore, type InMemoryRunStoreOptions } from './store/InMemoryRunStore.js';
export {
  type NormalizedAppendStep,
  type NormalizedCreateRun,
  type NormalizedFinishRun,
  type NormalizedHealthQuery,
  type NormalizedRunQuery,
  type NormalizedStepQuery,
  type RunCursorPosition,
  RunStoreInput,
} from './store/RunStoreInput.js';
export {
  addToTally,
  DEFAULT_FLAKY_THRESHOLD,
  healthOf,
  newServerHealthTally,
  type ServerHealthRow,
  type ServerHealthTally,
  type ServerLatency,
  serverHealth,
  UNKNOWN_FAILURE_CAUSE,
} from './health/ServerHealth.js';
export { ANSWERED_FAILURE_CAUSES, isAnsweredCall, isCountedCall, NOT_COUNTED_FAILURE_CAUSES } from './health/ToolCallCounting.js';
export { serverFromToolName } from './health/serverFromToolName.js';
export { type ToolCallFacts, type ToolCallSource, toolCallOf } from './health/ToolCallFacts.js';
export { applyPrivacy, type PrivacyOptions, redactText } from './privacy/applyPrivacy.js';
export { type CopyRunsOptions, type CopyRunsProgress, type CopyRunsResult, copyRuns } from './store/copyRuns.js';
export { isPrivacyLevel, PRIVACY_LEVELS, PrivacyLevel } from './privacy/PrivacyLevel.js';
export { RunCancelledError, type RunCancelSource } from './recording/RunCancelledError.js';
export { RunRecordError } from './recording/RunRecordError.js';
export {
  RunStep,
  type RunStepFields,
  type RunStepMessage,
  type RunStepPayload,
  type RunStepToolCall,
} from './step/RunStep.js';
export { RunStepError } from './step/RunStepError.js';
export { RunStepReadError } from './step/RunStepReadError.js';
export {
  RunCallState,
  RunLifecycleEvent,
  type RunTimelineDetail,
  RunTimelineEntry,
  type RunTimelineEntryFields,
  type RunTimelineOutcome,
} from './timeline/RunTimelineEntry.js';
export { RunTimelineFactory, type RunTimelineOptions } from './timeline/RunTimelineFactory.js';
export {
  type RecordAssembledMessagesOptions,
  type RecordContextBudgetOptions,
  type RecordDroppedSourcesOptions,
  type RecordLlmCallOptions,
  type RecordRequestOptions,
  type RecordStepOptions,
  type RecordToolCallOptions,
  type RecordToolStartOptions,
  type RecordToolExecutionOptions,
  type RecordToolResultOptions,
  type RunRecord,
  type RunRecordHook,
  RunTrace,
  type RunTraceOptions,
} from './recording/RunTrace.js';
export { type ActiveRun, type StartRunOptions, startRun } from './recording/startRun.js';
export type { RecordRetryOptions } from './recording/RecordRetry.js';
export { defaultSpoolDir } from './spool/RunSpool.js';
export { inspectSpool, type SpoolFileSummary } from './spool/inspectSpool.js';
export { type DeliverSpoolOptions, deliverSpool, type SpoolDeliveryResult, type SpoolFileDelivery } from './spool/deliverSpool.js';
