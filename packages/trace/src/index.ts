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
export { RunStoreError, RunStoreErrorCode } from './RunStoreError.js';
export type { FlakyThreshold, ServerHealth, ServerHealthQuery } from './ServerHealth.js';
