import { performance } from 'node:perf_hooks';
import type { LanguageModelMiddleware } from 'ai';
import type { AiSdkRun } from './AiSdkRun.js';
import { followSignals } from './followSignals.js';
import { ABORTED, ERRORED, LlmCallRecord } from './llmCallRecord.js';
import { recordedStream } from './recordedStream.js';
import { roundTrackerOf } from './roundTracker.js';
import {
  callsOfCutAnswer,
  callsTheSdkRefuses,
  CUT_OFF_FINISH_REASON,
  deniedCalls,
  type ModelToolCall,
  recordUnsentCall,
  refusalOf,
  refusalsLeftOver,
  type StartedToolInput,
  type UnsentCall,
} from './unsentToolCalls.js';

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
 * listen to the signal. Each call follows the run's signal beside its own, and once the run is
 * cancelled no new call is made: the middleware throws the run's own abort reason (its
 * `RunCancelledError`). A tool call of the model's answer that the AI SDK refuses before any tool
 * sees it (a name the step does not offer, arguments of a tool of {@link mcpToolSet} that are not
 * JSON), and a call held for approval that the prompt answers as denied, is recorded as one
 * `failed` tool step (`unknown_tool`, `malformed_arguments`, `not_approved`). So is every call of
 * an answer cut off by the model's output limit (finish reason `length`, which the AI SDK never
 * executes; also a streamed call whose input started but was cut before it was whole):
 * `malformed_arguments`. What of each step
 * is stored follows the run's privacy level.
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
      refuseOnceCancelled(run);
      for (const left of await refusalsLeftOver(run, params.prompt)) await recordUnsentCall(run, left);
      for (const denied of deniedCalls(run, params.prompt)) await recordUnsentCall(run, denied);
      const round = rounds.nextLlmRound();
      const call = new LlmCallRecord(model.modelId, model.provider);
      const started = performance.now();
      const followed = followSignals([params.abortSignal, run.signal]);
      let result: Awaited<ReturnType<typeof doGenerate>>;
      try {
        result =
          followed.signal === params.abortSignal ? await doGenerate() : await model.doGenerate({ ...params, abortSignal: followed.signal });
      } catch (error) {
        await run.trace.recordLlmCall(call.toOptions(round, performance.now() - started, followed.signal.aborted ? ABORTED : ERRORED));
        throw error;
      } finally {
        followed.release();
      }
      call.addGenerateResult(result);
      for (const id of call.toolCallIds) rounds.requested(id, round);
      await run.trace.recordLlmCall(call.toOptions(round, performance.now() - started));
      const toolCalls = result.content.filter((part) => part.type === 'tool-call');
      let unsent = await callsTheSdkRefuses(run, toolCalls, params.tools);
      if (call.finishReason === CUT_OFF_FINISH_REASON) unsent = callsOfCutAnswer(run, toolCalls, [], unsent, params.tools);
      else if (rounds.repairs) unsent = deferToRepair(rounds, unsent);
      for (const refused of unsent) await recordUnsentCall(run, refused);
      return result;
    },
    wrapStream: async ({ doStream, params, model }) => {
      refuseOnceCancelled(run);
      for (const left of await refusalsLeftOver(run, params.prompt)) await recordUnsentCall(run, left);
      for (const denied of deniedCalls(run, params.prompt)) await recordUnsentCall(run, denied);
      const round = rounds.nextLlmRound();
      const call = new LlmCallRecord(model.modelId, model.provider);
      const started = performance.now();
      const followed = followSignals([params.abortSignal, run.signal]);
      let result: Awaited<ReturnType<typeof doStream>>;
      try {
        result =
          followed.signal === params.abortSignal ? await doStream() : await model.doStream({ ...params, abortSignal: followed.signal });
      } catch (error) {
        followed.release();
        await run.trace.recordLlmCall(call.toOptions(round, performance.now() - started, followed.signal.aborted ? ABORTED : ERRORED));
        throw error;
      }
      const toolCalls: ModelToolCall[] = [];
      /** Streamed calls whose input started and whose tool-call part has not come (yet). */
      const inputs = new Map<string, { toolCallId: string; toolName: string; input: string; providerExecuted?: boolean }>();
      const stream = recordedStream(result.stream, {
        signal: followed.signal,
        onPart: (part) => {
          call.addStreamPart(part);
          if (part.type === 'tool-call') {
            rounds.requested(part.toolCallId, round);
            toolCalls.push(part);
            inputs.delete(part.toolCallId);
            // the SDK may repair the call as soon as it reads this part: its refusal waits for the repair
            if (rounds.repairs) rounds.deferRefusal(part.toolCallId, refusalOf(run, part, params.tools));
          } else if (part.type === 'tool-input-start') {
            rounds.requested(part.id, round);
            inputs.set(part.id, {
              toolCallId: part.id,
              toolName: part.toolName,
              input: '',
              ...(part.providerExecuted === true && { providerExecuted: true }),
            });
          } else if (part.type === 'tool-input-delta') {
            const input = inputs.get(part.id);
            if (input !== undefined) input.input += part.delta;
          }
        },
        end: async (finishReason) => {
          followed.release();
          await run.trace.recordLlmCall(call.toOptions(round, performance.now() - started, finishReason));
          const cutOff = (finishReason ?? call.finishReason) === CUT_OFF_FINISH_REASON;
          // with a repair, the calls are its own unless the answer was cut (the SDK runs none of them)
          // and the repair has not taken them yet
          const mine = !rounds.repairs ? toolCalls : cutOff ? toolCalls.filter((c) => rounds.takeRefusal(c.toolCallId) !== undefined) : [];
          let unsent = await callsTheSdkRefuses(run, mine, params.tools);
          if (cutOff) {
            const cut: StartedToolInput[] = [...inputs.values()];
            unsent = callsOfCutAnswer(run, mine, cut, unsent, params.tools);
          }
          for (const refused of unsent) await recordUnsentCall(run, refused);
        },
      });
      return { ...result, stream };
    },
  };
}

/** Leaves each refusal to the run's repair, which records it unless it repairs the call; none is left to record now. */
function deferToRepair(rounds: ReturnType<typeof roundTrackerOf>, refused: readonly UnsentCall[]): UnsentCall[] {
  for (const refusal of refused) rounds.deferRefusal(refusal.toolCallId, Promise.resolve(refusal));
  return [];
}

/** A run that was cancelled makes no new LLM call: the loop ends with the run's own abort reason. */
function refuseOnceCancelled(run: AiSdkRun): void {
  if (run.signal.aborted) throw run.signal.reason;
}
