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
  /** The run's signal; a tool call without the AI SDK's `abortSignal` listens to it. */
  readonly signal: AbortSignal;
}
