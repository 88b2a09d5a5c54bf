export { isRunStatus, isTerminalRunStatus, RUN_STATUSES, RunStatus, type TerminalRunStatus } from './RunStatus.js';
export { isRunStepKind, RUN_STEP_KINDS, RunStepKind } from './RunStepKind.js';
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
} from './RunStore.js';
export { isLateCancel } from './isLateCancel.js';
export { RunStoreError, RunStoreErrorCode } from './RunStoreError.js';
export type { FlakyThreshold, ServerFailureCauseCount, ServerHealth, ServerHealthQuery } from './ServerHealth.js';
export { InMemoryRunStore, type InMemoryRunStoreOptions } from './InMemoryRunStore.js';
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
  DEFAULT_FLAKY_THRESHOLD,
  healthOf,
  newServerHealthTally,
  type ServerHealthRow,
  type ServerHealthTally,
  type ServerLatency,
  serverHealth,
  UNKNOWN_FAILURE_CAUSE,
} from './ServerHealth.js';
export { ANSWERED_FAILURE_CAUSES, isAnsweredCall, isCountedCall, NOT_COUNTED_FAILURE_CAUSES } from './ToolCallCounting.js';
export { serverFromToolName } from './serverFromToolName.js';
export { type ToolCallFacts, type ToolCallSource, toolCallOf } from './ToolCallFacts.js';
export { applyPrivacy, type PrivacyOptions, redactText } from './applyPrivacy.js';
export { type CopyRunsOptions, type CopyRunsProgress, type CopyRunsResult, copyRuns } from './copyRuns.js';
export { isPrivacyLevel, PRIVACY_LEVELS, PrivacyLevel } from './PrivacyLevel.js';
export { RunCancelledError, type RunCancelSource } from './RunCancelledError.js';
export { RunRecordError } from './RunRecordError.js';
export {
  RunStep,
  type RunStepFields,
  type RunStepMessage,
  type RunStepPayload,
  type RunStepToolCall,
} from './RunStep.js';
export { RunStepError } from './RunStepError.js';
export { RunStepReadError } from './RunStepReadError.js';
export {
  RunCallState,
  RunLifecycleEvent,
  type RunTimelineDetail,
  RunTimelineEntry,
  type RunTimelineEntryFields,
  type RunTimelineOutcome,
} from './RunTimelineEntry.js';
export { RunTimelineFactory, type RunTimelineOptions } from './RunTimelineFactory.js';
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
} from './RunTrace.js';
export { type ActiveRun, type StartRunOptions, startRun } from './startRun.js';
export type { RecordRetryOptions } from './RecordRetry.js';
export { defaultSpoolDir } from './RunSpool.js';
export { inspectSpool, type SpoolFileSummary } from './inspectSpool.js';
export { type DeliverSpoolOptions, deliverSpool, type SpoolDeliveryResult, type SpoolFileDelivery } from './deliverSpool.js';
