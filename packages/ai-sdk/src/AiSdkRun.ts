import type { RunTrace } from '@runledger/trace';

/**
 * The part of a run the AI SDK integration needs: its trace and its signal (an `ActiveRun` from
 * `startRun` is one).
 *
 * @public
 */
export interface AiSdkRun {
  /**
   * The run's id (an `ActiveRun` has it). With it, under AI SDK 7 each tool of {@link mcpToolSet}
   * adds `runId` to its tool context (`toolsContext`), which ai 7 hands to `execute`, to per-tool
   * `toolApproval` functions and to the tool execution callbacks.
   */
  readonly id?: string;
  /** Records the run's steps. */
  readonly trace: RunTrace;
  /** The run's signal: every tool call and LLM call follows it (beside the loop's own `abortSignal`). */
  readonly signal: AbortSignal;
}
