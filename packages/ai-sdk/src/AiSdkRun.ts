import type { RunTrace } from '@runledger/trace';

/**
 * The part of a run the AI SDK integration needs: its trace and its signal (an `ActiveRun` from
 * `startRun` is one).
 *
 * @public
 */
export interface AiSdkRun {
  /** Records the run's steps. */
  readonly trace: RunTrace;
  /** The run's signal: every tool call and LLM call follows it (beside the loop's own `abortSignal`). */
  readonly signal: AbortSignal;
}
