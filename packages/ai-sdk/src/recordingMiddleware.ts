import { performance } from 'node:perf_hooks';
import type { LanguageModelMiddleware } from 'ai';
import type { AiSdkRun } from './AiSdkRun.js';
import { ABORTED, ERRORED, LlmCallRecord } from './llmCallRecord.js';
import { recordedStream } from './recordedStream.js';
import { roundTrackerOf } from './roundTracker.js';

/**
 * Language-model middleware that records every LLM call of the wrapped model as an `llm` step of
 * the run: model id, round, duration, token usage, finish reason and the tool calls it asked for.
 *
 * @remarks
 * Use it with the AI SDK's `wrapLanguageModel({ model, middleware: recordingMiddleware(run) })`.
 * Each call opens the next round of the run (from 1; round 0 is the run's request); the tools of {@link mcpToolSet} on the same
 * run record their calls in the round of the LLM call that asked for them. A generated answer is
 * recorded before it is handed on. A stream is recorded when it finishes, fails, or when the
 * call's signal is aborted — then with what was received so far and the finish reason `aborted`
 * (a failed call: `error`); an aborted stream is stopped at once, even if the provider does not
 * listen to the signal. What of the step is stored follows the run's privacy level.
 *
 * @public
 */
export function recordingMiddleware(run: AiSdkRun): LanguageModelMiddleware {
  if (run === undefined || run === null || typeof run.trace?.recordLlmCall !== 'function') {
    throw new TypeError('recordingMiddleware run must be a run with a trace and a signal (an ActiveRun from startRun)');
  }
  const rounds = roundTrackerOf(run.trace);
  return {
    specificationVersion: 'v3',
    wrapGenerate: async ({ doGenerate, params, model }) => {
      const round = rounds.nextLlmRound();
      const call = new LlmCallRecord(model.modelId);
      const started = performance.now();
      let result: Awaited<ReturnType<typeof doGenerate>>;
      try {
        result = await doGenerate();
      } catch (error) {
        await run.trace.recordLlmCall(
          call.toOptions(round, performance.now() - started, params.abortSignal?.aborted === true ? ABORTED : ERRORED),
        );
        throw error;
      }
      call.addGenerateResult(result);
      for (const id of call.toolCallIds) rounds.requested(id, round);
      await run.trace.recordLlmCall(call.toOptions(round, performance.now() - started));
      return result;
    },
    wrapStream: async ({ doStream, params, model }) => {
      const round = rounds.nextLlmRound();
      const call = new LlmCallRecord(model.modelId);
      const started = performance.now();
      let result: Awaited<ReturnType<typeof doStream>>;
      try {
        result = await doStream();
      } catch (error) {
        await run.trace.recordLlmCall(
          call.toOptions(round, performance.now() - started, params.abortSignal?.aborted === true ? ABORTED : ERRORED),
        );
        throw error;
      }
      const stream = recordedStream(result.stream, {
        signal: params.abortSignal,
        onPart: (part) => {
          call.addStreamPart(part);
          if (part.type === 'tool-call') rounds.requested(part.toolCallId, round);
        },
        end: async (finishReason) => {
          await run.trace.recordLlmCall(call.toOptions(round, performance.now() - started, finishReason));
        },
      });
      return { ...result, stream };
    },
  };
}
