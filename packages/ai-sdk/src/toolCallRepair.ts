import type { ToolCallRepairFunction, ToolSet } from 'ai';
import type { AiSdkRun } from './AiSdkRun.js';
import { roundTrackerOf } from './roundTracker.js';
import { isJsonInput, recordUnsentCall } from './unsentToolCalls.js';

/**
 * Wraps your `experimental_repairToolCall` so that a repaired tool call is recorded once: pass its
 * result to `generateText` / `streamText` on a run recorded by {@link recordingMiddleware}.
 *
 * @remarks
 * Without it, {@link recordingMiddleware} records a call the AI SDK refuses (an unknown tool,
 * arguments that are not JSON) as refused when the answer arrives, and a repair that fixes it
 * then runs it as a second call. With it, such a call waits for your repair: repaired into a call
 * the SDK takes, it is recorded once, as sent, when it ends (under the model's call id; a repair
 * into a tool that is not one of `mcpToolSet` leaves it to that tool); when the repair gives up
 * (`null`), throws, or returns a call the SDK still refuses, it is recorded as the one refused
 * step it always was (`unknown_tool`, `malformed_arguments`), before the SDK goes on. Pass it to
 * every loop of the run that uses the middleware: a refused call the repair never saw is recorded
 * when the next LLM call's prompt carries its tool error, else not at all.
 *
 * @throws TypeError from `recordingToolCallRepair` when `run` is not a run or `repair` not a function.
 * @public
 */
export function recordingToolCallRepair(run: AiSdkRun, repair: ToolCallRepairFunction<ToolSet>): ToolCallRepairFunction<ToolSet> {
  if (run === undefined || run === null || typeof run.trace?.recordToolResult !== 'function') {
    throw new TypeError('recordingToolCallRepair run must be a run with a trace and a signal (an ActiveRun from startRun)');
  }
  if (typeof repair !== 'function')
    throw new TypeError('recordingToolCallRepair repair must be a function (your experimental_repairToolCall)');
  const rounds = roundTrackerOf(run.trace);
  rounds.repairs = true;
  return async (options) => {
    const refusal = await rounds.takeRefusal(options.toolCall.toolCallId);
    let repaired: Awaited<ReturnType<typeof repair>>;
    try {
      repaired = await repair(options);
    } catch (error) {
      if (refusal !== undefined) await recordUnsentCall(run, refusal);
      throw error;
    }
    if (refusal !== undefined && !(await isTakenBySdk(repaired, options.tools))) await recordUnsentCall(run, refusal);
    return repaired;
  };

  /** Whether the SDK runs a repaired call: a tool of the step, and for a tool of mcpToolSet an input it parses. */
  async function isTakenBySdk(repaired: Awaited<ReturnType<typeof repair>>, tools: ToolSet): Promise<boolean> {
    if (repaired === null || typeof repaired !== 'object' || !Object.hasOwn(tools, repaired.toolName)) return false;
    return rounds.offered(repaired.toolName) === undefined || (await isJsonInput(repaired.input));
  }
}
