import {
  DEFAULT_CHANNEL_BOUNDS,
  type ToolArtifact,
  ToolFailureCause,
  type ToolFailureFacts,
  ToolOutcome,
  ToolResult,
  type WriteTarget,
} from '@runledger/core';
import { stepPayloadAt } from '../privacy/applyPrivacy.js';
import { isPrivacyLevel, PrivacyLevel } from '../privacy/PrivacyLevel.js';
import { RunRecordError } from './RunRecordError.js';
import { RunStep } from '../step/RunStep.js';
import type {
  RecordAssembledMessagesOptions,
  RecordContextBudgetOptions,
  RecordDroppedSourcesOptions,
  RecordLlmCallOptions,
  RecordRequestOptions,
  RecordToolCallOptions,
  RecordToolExecutionOptions,
  RecordToolResultOptions,
  RecordToolStartOptions,
} from './RecordOptions.js';
import { RunStepKind } from '../step/RunStepKind.js';
import { serverFromToolName } from '../health/serverFromToolName.js';
import { checkKeepSteps, StepWindow } from './StepWindow.js';

/**
 * What the `onRecord` hook gets beside the step.
 *
 * @public
 */
export interface RunRecord {
  /** The step's place in record order, from 0. */
  readonly index: number;
  /** When it was recorded, in ms since the epoch. */
  readonly recordedAt: number;
  /** `step.toPayload()` after the privacy filter: what may be stored. */
  readonly payload: Readonly<Record<string, unknown>>;
  /** True for the step of a write: its hook failure fails the record call. */
  readonly isWrite: boolean;
}

/**
 * Receives each recorded step, in record order; may be async (the next call waits for it).
 *
 * @public
 */
export type RunRecordHook = (step: RunStep, record: RunRecord) => void | Promise<void>;

/**
 * Options of {@link RunTrace.create}.
 *
 * @public
 */
export interface RunTraceOptions {
  /** Hands each step on, e.g. to a store. */
  readonly onRecord?: RunRecordHook;
  /** What of a step's content the hook's payload keeps; default `metadata`. */
  readonly privacy?: PrivacyLevel;
  /** Told about a hook failure that was kept away from the agent loop. */
  readonly onRecordError?: (error: unknown, step: RunStep) => void;
  /** The clock for `recordedAt`; default `Date.now`. */
  readonly clock?: () => number;
  /**
   * How many of the latest steps {@link RunTrace.steps} holds: a non-negative integer, or
   * `Infinity` for every step (the default). A bounded trace holds O(keepSteps) memory however
   * long the run, and each record stays O(1); {@link RunTrace.stepCount} still counts every
   * step, and the hook still gets each one. See docs/recording.md, "Long runs: memory".
   */
  readonly keepSteps?: number;
}

/**
 * Records the steps of one run, in order, and hands each to an `onRecord` hook.
 *
 * @remarks
 * Each record call builds a {@link RunStep}, appends it to {@link RunTrace.steps} at once, and
 * runs the hook after the hooks of the earlier steps have settled. The returned promise
 * resolves with the step once its hook settled. A failing hook never rejects it — the failure
 * goes to `onRecordError` — except for the step of a write (a result with a write target, or a
 * tool declared with `writes: true`): that promise rejects with a {@link RunRecordError}.
 * Both tool record calls go through one private builder, where `toolIsError` is derived from
 * the outcome, never passed beside it.
 *
 * @public
 */
export class RunTrace {
  readonly #steps: StepWindow<RunStep>;
  readonly #onRecord: RunRecordHook | undefined;
  readonly #onRecordError: ((error: unknown, step: RunStep) => void) | undefined;
  readonly #privacy: PrivacyLevel;
  readonly #clock: () => number;
  /** The outcome of the last hook in flight (it may reject: a lost write), or a settled promise. */
  #tail: Promise<unknown> = Promise.resolve();
  #pending = 0;
  #failures = 0;

  private constructor(options: RunTraceOptions) {
    const privacy = options.privacy ?? PrivacyLevel.METADATA;
    if (!isPrivacyLevel(privacy)) {
      throw new TypeError(`RunTraceOptions.privacy must be one of "none", "metadata", "redacted", "full", got ${JSON.stringify(privacy)}`);
    }
    this.#privacy = privacy;
    this.#steps = new StepWindow(
      options.keepSteps === undefined ? Infinity : checkKeepSteps(options.keepSteps, 'RunTraceOptions.keepSteps'),
    );
    this.#onRecord = options.onRecord;
    this.#onRecordError = options.onRecordError;
    this.#clock = options.clock ?? Date.now;
  }

  /**
   * Makes a trace.
   *
   * @throws TypeError from `RunTrace.create` when the privacy level is unknown or `keepSteps`
   * is not a number; RangeError when `keepSteps` is neither a non-negative integer nor Infinity.
   */
  static create(options: RunTraceOptions = {}): RunTrace {
    return new RunTrace(options);
  }

  /** The privacy level of the payloads handed to the hook. */
  get privacy(): PrivacyLevel {
    return this.#privacy;
  }

  /**
   * The recorded steps in record order: every one by default, else the last `keepSteps`
   * (see {@link RunTraceOptions.keepSteps}). A frozen array, the same one until the next record.
   */
  get steps(): readonly RunStep[] {
    return this.#steps.view();
  }

  /** How many steps were recorded, whether or not {@link RunTrace.steps} still holds them. */
  get stepCount(): number {
    return this.#steps.total;
  }

  /** How many hook failures were kept away from the agent loop. */
  get recordFailures(): number {
    return this.#failures;
  }

  /** Resolves when the hooks of every step recorded so far have settled. */
  flush(): Promise<void> {
    return this.#tail.then(ignore, ignore);
  }

  /**
   * Records the incoming request.
   *
   * @throws RunStepError from `RunTrace.recordRequest` when a field breaks a RunStep rule.
   */
  recordRequest(options: RecordRequestOptions): Promise<RunStep> {
    return this.#record(
      RunStep.of({ kind: RunStepKind.REQUEST, round: options.round ?? 0, durationMs: options.durationMs ?? 0, content: options.content }),
      false,
    );
  }

  /**
   * Records one LLM call.
   *
   * @throws RunStepError from `RunTrace.recordLlmCall` when a field breaks a RunStep rule.
   */
  recordLlmCall(options: RecordLlmCallOptions): Promise<RunStep> {
    return this.#record(
      RunStep.of({
        kind: RunStepKind.LLM,
        round: options.round ?? 0,
        durationMs: options.durationMs ?? 0,
        model: options.model,
        provider: options.provider,
        content: options.content,
        thinking: options.thinking,
        finishReason: options.finishReason,
        promptTokens: options.promptTokens,
        completionTokens: options.completionTokens,
        costUsd: options.costUsd,
        requestedToolCalls: options.requestedToolCalls,
        raw: options.raw,
      }),
      false,
    );
  }

  /**
   * Records the context budget of a round.
   *
   * @throws RunStepError from `RunTrace.recordContextBudget` when a field breaks a RunStep rule.
   */
  recordContextBudget(options: RecordContextBudgetOptions): Promise<RunStep> {
    return this.#record(
      RunStep.of({
        kind: RunStepKind.CONTEXT,
        round: options.round ?? 0,
        durationMs: options.durationMs ?? 0,
        tokenBudget: options.tokenBudget,
        tokensUsed: options.tokensUsed,
      }),
      false,
    );
  }

  /**
   * Records the sources dropped from the context of a round.
   *
   * @throws RunStepError from `RunTrace.recordDroppedSources` when a field breaks a RunStep rule.
   */
  recordDroppedSources(options: RecordDroppedSourcesOptions): Promise<RunStep> {
    return this.#record(
      RunStep.of({
        kind: RunStepKind.DROPPED,
        round: options.round ?? 0,
        durationMs: options.durationMs ?? 0,
        droppedSources: options.sources,
      }),
      false,
    );
  }

  /**
   * Records the messages assembled for an LLM call.
   *
   * @throws RunStepError from `RunTrace.recordAssembledMessages` when a field breaks a RunStep rule.
   */
  recordAssembledMessages(options: RecordAssembledMessagesOptions): Promise<RunStep> {
    return this.#record(
      RunStep.of({
        kind: RunStepKind.ASSEMBLED,
        round: options.round ?? 0,
        durationMs: options.durationMs ?? 0,
        messages: options.messages,
      }),
      false,
    );
  }

  /**
   * Records that a tool call is going on the wire, before it is sent.
   *
   * @remarks
   * Stores a `tool_start` step naming the call (`toolCallId`, a fresh UUID unless given). Pass
   * the returned step's `toolCallId` to {@link RunTrace.recordToolResult} or
   * {@link RunTrace.recordToolExecution} when the call ends: readers then show the call as on
   * the wire until that step arrives, and as interrupted when the run ends without it. Await it
   * before sending, so that another process reading the store (the app, `runledger runs show`)
   * sees the call while it runs.
   *
   * @throws RunStepError from `RunTrace.recordToolStart` when a field breaks a RunStep rule.
   */
  recordToolStart(options: RecordToolStartOptions): Promise<RunStep> {
    const writes = options.writes === true;
    const step = RunStep.of({
      kind: RunStepKind.TOOL_START,
      round: options.round ?? 0,
      durationMs: 0,
      toolName: options.toolName,
      toolServer: options.toolServer ?? serverFromToolName(options.toolName),
      toolArguments: options.toolArguments ?? {},
      toolWrites: writes ? true : undefined,
      toolCallId: options.toolCallId ?? crypto.randomUUID(),
    });
    return this.#record(step, writes);
  }

  /**
   * Records a tool call from its typed result: the outcome is the result's own.
   *
   * @remarks
   * The result passes `withBoundedChannels()` first (a no-op for a result already bounded at
   * the tool seam).
   *
   * @throws TypeError from `RunTrace.recordToolResult` when `result` is not a ToolResult;
   * RunStepError when a field breaks a RunStep rule.
   */
  recordToolResult(options: RecordToolResultOptions): Promise<RunStep> {
    if (!ToolResult.is(options.result)) throw new TypeError('RunTrace.recordToolResult result must be a ToolResult');
    const given = options.result;
    // A short, well-formed result without artifacts is bounded already: skip the rebuild.
    const content = given.content;
    const bounded =
      given.artifacts.length === 0 &&
      content.length * 3 <= DEFAULT_CHANNEL_BOUNDS.contentBytes &&
      (content as unknown as { isWellFormed(): boolean }).isWellFormed();
    const result = bounded ? given : given.withBoundedChannels();
    return this.#recordTool(
      options,
      result.content,
      result.outcome,
      result.artifacts,
      result.writeTarget,
      result.failureCause ?? null,
      // A result of an older core has no sends: unknown, as for a result its tool did not count.
      result.sends ?? null,
      result.failureFacts ?? null,
    );
  }

  /**
   * Records a tool call known only by a boolean: true → `failed`, false → `ok`.
   *
   * @throws TypeError from `RunTrace.recordToolExecution` when `isError` is not a boolean;
   * RunStepError when a field breaks a RunStep rule (artifacts or a write target on a failed call).
   */
  recordToolExecution(options: RecordToolExecutionOptions): Promise<RunStep> {
    if (typeof options.isError !== 'boolean') {
      throw new TypeError(`RunTrace.recordToolExecution isError must be a boolean, got ${typeof options.isError}`);
    }
    return this.#recordTool(
      options,
      options.toolResult,
      options.isError ? ToolOutcome.FAILED : ToolOutcome.OK,
      options.artifacts ?? [],
      options.writeTarget ?? null,
      // The caller's own code said the call failed: no transport or server answer is known.
      ToolFailureCause.RECORDER_ERROR,
    );
  }

  /**
   * The one builder of tool steps: toolIsError is derived from the outcome here, and only here.
   * (Positional on purpose: it is private and on the hot path, where object spreads cost.)
   */
  #recordTool(
    call: RecordToolCallOptions,
    content: string,
    outcome: ToolOutcome,
    artifacts: readonly ToolArtifact[],
    writeTarget: WriteTarget | null,
    failureCause: ToolFailureCause | null = null,
    sends: number | null = null,
    failureFacts: ToolFailureFacts | null = null,
  ): Promise<RunStep> {
    const step = RunStep.of({
      kind: RunStepKind.TOOL,
      round: call.round ?? 0,
      durationMs: call.durationMs ?? 0,
      toolName: call.toolName,
      toolServer: call.toolServer ?? serverFromToolName(call.toolName),
      toolArguments: call.toolArguments ?? {},
      toolResult: content,
      toolIsError: outcome !== ToolOutcome.OK,
      toolOutcome: outcome,
      toolFailureCause: outcome === ToolOutcome.FAILED ? failureCause : null,
      toolFailureFacts: outcome === ToolOutcome.FAILED ? failureFacts : null,
      toolArtifacts: artifacts,
      toolWriteTarget: writeTarget,
      toolWrites: writeTarget !== null || call.writes === true ? true : undefined,
      toolCallId: call.toolCallId,
      toolSends: sends,
      toolApproval: call.toolApproval,
    });
    return this.#record(step, writeTarget !== null || call.writes === true);
  }

  #record(step: RunStep, isWrite: boolean): Promise<RunStep> {
    const index = this.#steps.total;
    this.#steps.add(step);
    const hook = this.#onRecord;
    if (hook === undefined) return Promise.resolve(step);
    const record: RunRecord = {
      index,
      recordedAt: this.#clock(),
      payload: stepPayloadAt(step, this.#privacy),
      isWrite,
    };
    if (this.#pending === 0) {
      // Nothing in flight: run the hook now; only a hook that returns a promise holds up the next one.
      let result: void | Promise<void>;
      try {
        result = hook(step, record);
      } catch (error) {
        return this.#failed(step, isWrite, error);
      }
      if (!isThenable(result)) return Promise.resolve(step);
      return this.#hold(result, step, isWrite);
    }
    // after the hooks in flight have settled, whether they fulfilled or rejected (a lost write's
    // rejection is its own caller's)
    const next = (): RunStep | Promise<RunStep> => {
      let result: void | Promise<void>;
      try {
        result = hook(step, record);
      } catch (error) {
        return this.#failed(step, isWrite, error);
      }
      if (!isThenable(result)) return step;
      return this.#settled(result, step, isWrite);
    };
    this.#pending++;
    const outcome = this.#tail.then(next, next);
    const done = (): void => {
      this.#pending--;
    };
    this.#tail = outcome.then(done, done);
    return outcome;
  }

  /**
   * The step once its hook's promise settles; the next hook waits for it. One promise per step: the
   * count of hooks in flight drops in the same callbacks that make the outcome.
   */
  #hold(result: Promise<void>, step: RunStep, isWrite: boolean): Promise<RunStep> {
    this.#pending++;
    const outcome = result.then(
      () => {
        this.#pending--;
        return step;
      },
      (error: unknown) => {
        this.#pending--;
        return this.#failed(step, isWrite, error);
      },
    );
    // may reject (a write the store lost): the caller is given it, and whatever waits on the tail
    // waits for either end
    this.#tail = outcome;
    return outcome;
  }

  #settled(result: Promise<void>, step: RunStep, isWrite: boolean): Promise<RunStep> {
    return result.then(
      () => step,
      (error: unknown) => this.#failed(step, isWrite, error),
    );
  }

  #failed(step: RunStep, isWrite: boolean, error: unknown): Promise<RunStep> {
    if (isWrite) return Promise.reject(new RunRecordError(step, error));
    this.#failures++;
    try {
      this.#onRecordError?.(error, step);
    } catch {
      // the error listener's own failure stays away from the agent loop too
    }
    return Promise.resolve(step);
  }
}

function isThenable(value: unknown): value is Promise<void> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

function ignore(): void {
  // flush() resolves once the hooks have settled, however they ended
}
