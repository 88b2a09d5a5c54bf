// @runledger/trace — read this file as the package's table of contents: one group per part, each
// under a header saying what the part is for and where its sources live (src/<folder>/). The
// packages and their one-way dependencies are described in docs/architecture.md.

// ── Outcomes and statuses ───────────────────────────────────────────────────────────────────────
// The closed vocabularies a run and its steps are described in (src/step). A tool call's outcome
// itself is @runledger/core's ToolOutcome, the one string from the wire to the screen. The
// termination reasons runledger writes are spelled once, with their reader.
export { isRunStatus, isTerminalRunStatus, RUN_STATUSES, RunStatus, type TerminalRunStatus } from './step/RunStatus.js';
export {
  readRunTerminationReason,
  type RunTermination,
  RunTerminationKind,
  RunTerminationReason,
  runTerminationText,
} from './step/RunTerminationReason.js';
export { runTerminationOf } from './store/storedTermination.js';
export { isRunStepKind, RUN_STEP_KINDS, RunStepKind } from './step/RunStepKind.js';

// ── Recording a run (src/recording) ─────────────────────────────────────────────────────────────
// startRun opens a run in a store and hands back its RunTrace; the trace records the steps of the
// agent loop, each through the privacy filter, and the run ends completed, failed or cancelled.
export { type ActiveRun, type RunCancelOptions, type StartRunOptions, startRun } from './recording/startRun.js';
export type { ReadRunStepsOptions } from './recording/readRunSteps.js';
export { type RunRecord, type RunRecordHook, RunTrace, type RunTraceOptions } from './recording/RunTrace.js';
export type {
  RecordAssembledMessagesOptions,
  RecordContextBudgetOptions,
  RecordDroppedSourcesOptions,
  RecordLlmCallOptions,
  RecordRequestOptions,
  RecordStepOptions,
  RecordToolCallOptions,
  RecordToolExecutionOptions,
  RecordToolResultOptions,
  RecordToolStartOptions,
} from './recording/RecordOptions.js';
export type { RecordRetryOptions } from './store/RecordRetry.js';
export { RunCancelledError, type RunCancelSource } from './recording/RunCancelledError.js';
export { RunRecordError } from './recording/RunRecordError.js';
export { RunFinishRefusedError } from './recording/RunFinishRefusedError.js';

// ── Steps (src/step) ────────────────────────────────────────────────────────────────────────────
// One recorded step: made by RunStep.of, stored as its payload (toPayload), read back by
// RunStep.fromPayload. Its fields, keys and reader come from one schema (step/RunStepSchema.ts),
// which also flags the fields that are content (RUN_STEP_CONTENT_KEYS).
export { RunStep, type RunStepFields, type RunStepMessage, type RunStepPayload, type RunStepToolCall } from './step/RunStep.js';
export type { ToolApproval } from './step/ToolApproval.js';
export { RunStepError } from './step/RunStepError.js';
export { RunStepReadError } from './step/RunStepReadError.js';
export { RUN_STEP_CONTENT_KEYS } from './step/runStepContentKeys.js';

// ── Privacy (src/privacy) ───────────────────────────────────────────────────────────────────────
// What of a step may be stored: the privacy levels and the filter every payload passes.
export { isPrivacyLevel, PRIVACY_LEVELS, PrivacyLevel } from './privacy/PrivacyLevel.js';
export { applyPrivacy, type PrivacyOptions, redactText } from './privacy/applyPrivacy.js';

// ── Spool (src/spool) ───────────────────────────────────────────────────────────────────────────
// Steps a store could not take, kept on disk, inspected and delivered later.
export { defaultSpoolDir } from './spool/RunSpool.js';
export { inspectSpool, type SpoolFileSummary } from './spool/inspectSpool.js';
export {
  type DeliverSpoolOptions,
  deliverSpool,
  type SpoolDeliveryResult,
  type SpoolFileDelivery,
  type SpoolLateFinish,
} from './spool/deliverSpool.js';

// ── The store contract (src/store) ──────────────────────────────────────────────────────────────
// What a run store is to its users: the RunStore interface and its shapes, its error, the
// in-memory store, its optional parts (each with its `can…` test), the calls on the wire of a run
// read from its steps (OpenCallSet), and copying runs between stores. Writing a store:
// @runledger/trace/store, the entry of the names only a store implementer needs (the input checks,
// the health tally, the row readers). Each name is exported by one entry: the /store entry's
// declarations import the shapes of this contract they mention from here, by the package's name.
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
export { RunStoreError, RunStoreErrorCode } from './store/RunStoreError.js';
export { isLateCancel } from './store/isLateCancel.js';
export {
  type CancelRequestInput,
  CancelRequestSource,
  checkCancelRequest,
  isCancelRequestSource,
  type NormalizedCancelRequest,
  type StoredCancelRequest,
} from './store/CancelRequest.js';
export { decodeRunCursor, encodeRunCursor, type RunCursorPosition } from './store/runCursor.js';
export { InMemoryRunStore, type InMemoryRunStoreOptions } from './store/InMemoryRunStore.js';
export { canPruneRuns, type PruneRunsQuery, type PruneRunsResult, type PruningRunStore } from './store/PruningRunStore.js';
export { callIdOfStoredStep, canReadOpenCalls, OpenCallSet, type OpenCallsRead, type OpenCallsRunStore } from './store/OpenCalls.js';
export { canSearchRuns, type RunTotals, type RunTotalsQuery, type SearchingRunStore } from './store/SearchingRunStore.js';
export type { StoredToolCall, ToolCallPage, ToolCallQuery } from './store/StoredToolCall.js';
export { canReadToolCallTotals, type ToolCallTotals, type ToolCallTotalsQuery, type ToolTotalsRunStore } from './store/ToolCallTotals.js';
export { TOOL_DURATION_BUCKET_COUNT, TOOL_DURATION_BUCKETS_SECONDS, toolDurationBucket } from './health/toolDurationBuckets.js';
export { type CopyRunsOptions, type CopyRunsProgress, type CopyRunsResult, copyRuns } from './store/copyRuns.js';

// ── Timeline (src/timeline) ─────────────────────────────────────────────────────────────────────
// A run as the screen shows it: buildRunTimeline turns a stored run and its steps into entries
// (metadata only, never content); stepOutcome reads the outcome a stored payload states.
export { buildRunTimeline, RUN_TIMELINE_DETAIL_KEYS, type RunTimelineOptions } from './timeline/buildRunTimeline.js';
export { stepOutcome } from './timeline/stepOutcome.js';
export {
  RunCallState,
  RunLifecycleEvent,
  type RunTimelineDetail,
  RunTimelineEntry,
  type RunTimelineEntryFields,
  type RunTimelineOutcome,
} from './timeline/RunTimelineEntry.js';

// ── Server health (src/health) ──────────────────────────────────────────────────────────────────
// How each MCP server is doing, from its recorded tool calls: the health a store reports, which
// calls count, the server a tool belongs to, and when a server is flaky. How a store folds its rows
// into that health (toolCallOf, serverHealth) is @runledger/trace/store's.
export type { ServerFailureCauseCount, ServerHealth, ServerHealthQuery } from './health/ServerHealth.js';
export { UNKNOWN_FAILURE_CAUSE } from './health/ServerHealth.js';
export { DEFAULT_FLAKY_THRESHOLD, type FlakyThreshold } from './health/FlakyThreshold.js';
export { ANSWERED_FAILURE_CAUSES, isAnsweredCall, isCountedCall, NOT_COUNTED_FAILURE_CAUSES } from './health/ToolCallCounting.js';
export { serverFromToolName } from './health/serverFromToolName.js';
