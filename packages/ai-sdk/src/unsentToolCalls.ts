import { ToolFailureCause, ToolResult } from '@runledger/core';
import { parsePartialJson } from 'ai';
import type { AiSdkRun } from './AiSdkRun.js';
import { type CallParams, parseArguments } from './llmCallRecord.js';
import type { ToolApproval } from '@runledger/trace';
import { decidedThroughPrompt } from './approvalDecision.js';
import { roundTrackerOf } from './roundTracker.js';

/** A tool call that ends without being sent: why, and what the model reads. */
export interface UnsentCall {
  readonly toolCallId: string;
  readonly toolName: string;
  /** The server, when the tool is known; else read from a `mcp_<server>_<tool>` name. */
  readonly toolServer: string | null;
  readonly toolArguments: Readonly<Record<string, unknown>>;
  readonly cause: ToolFailureCause;
  readonly message: string;
  /** Who refused the call, when it needed approval. */
  readonly toolApproval?: ToolApproval | null;
}

/** A tool call as the model's answer gives it (a generated part or a stream part). */
export interface ModelToolCall {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly input: string;
  readonly providerExecuted?: boolean;
}

/**
 * Records a call that was not sent as its one `tool` step: outcome `failed` with its cause, in
 * the round of the LLM call that asked for it, without a `tool_start` (nothing went on the wire).
 */
export async function recordUnsentCall(run: AiSdkRun, call: UnsentCall): Promise<void> {
  const rounds = roundTrackerOf(run.trace);
  await run.trace.recordToolResult({
    toolCallId: rounds.recordedCallId(call.toolCallId),
    toolName: call.toolName,
    toolServer: call.toolServer,
    toolArguments: call.toolArguments,
    result: ToolResult.failure(call.message, call.cause),
    round: rounds.roundOf(call.toolCallId),
    durationMs: 0,
    toolApproval: call.toolApproval ?? null,
  });
}

/**
 * The calls of a model's answer that the AI SDK refuses before any tool sees them, decided by the
 * SDK's own rules: a name the step does not offer (`NoSuchToolError`), and, for a tool of this
 * run's `mcpToolSet`, an input that is not JSON (`InvalidToolInputError`; a blank input is `{}`).
 * Calls of other tools with a bad input, and provider-executed calls, are not this package's.
 */
export async function callsTheSdkRefuses(
  run: AiSdkRun,
  calls: readonly ModelToolCall[],
  offered: CallParams['tools'],
): Promise<UnsentCall[]> {
  const refused: UnsentCall[] = [];
  for (const call of calls) {
    const refusal = await refusalOf(run, call, offered);
    if (refusal !== undefined) refused.push(refusal);
  }
  return refused;
}

/** The refusal of one call by the rules of {@link callsTheSdkRefuses}, or undefined when the SDK takes it. */
export async function refusalOf(run: AiSdkRun, call: ModelToolCall, offered: CallParams['tools']): Promise<UnsentCall | undefined> {
  if (call.providerExecuted === true) return undefined;
  const tool = roundTrackerOf(run.trace).offered(call.toolName);
  const base = { toolCallId: call.toolCallId, toolName: call.toolName, toolServer: tool?.server ?? null };
  if (!(offered ?? []).some((offer) => offer.name === call.toolName)) {
    return {
      ...base,
      toolArguments: parseArguments(call.input),
      cause: ToolFailureCause.UNKNOWN_TOOL,
      message: `the model called ${call.toolName}, a tool this step does not offer; the call was not sent`,
    };
  }
  if (tool !== undefined && !(await isJsonInput(call.input))) {
    return {
      ...base,
      toolArguments: { input: call.input },
      cause: ToolFailureCause.MALFORMED_ARGUMENTS,
      message: `the arguments of ${call.toolName} are not valid JSON; the call was not sent`,
    };
  }
  return undefined;
}

/** Whether the AI SDK parses a tool call's input: blank (read as `{}`) or JSON. */
export async function isJsonInput(input: string): Promise<boolean> {
  return input.trim() === '' || (await parsePartialJson(input)).state === 'successful-parse';
}

/**
 * The refusals left to the run's repair whose calls the prompt of this LLM call answers (the SDK's
 * tool error for them): the repair never took them (it was not passed to that loop), so they are
 * recorded now.
 */
export async function refusalsLeftOver(run: AiSdkRun, prompt: CallParams['prompt']): Promise<UnsentCall[]> {
  const rounds = roundTrackerOf(run.trace);
  const left: UnsentCall[] = [];
  if (!rounds.repairs) return left;
  for (const message of prompt) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type !== 'tool-result') continue;
      const refusal = await rounds.takeRefusal(part.toolCallId);
      if (refusal !== undefined) left.push(refusal);
    }
  }
  return left;
}

/** A streamed tool call whose input started (`tool-input-start`) but whose tool-call part has not come. */
export interface StartedToolInput {
  readonly toolCallId: string;
  readonly toolName: string;
  /** The input received so far. */
  readonly input: string;
  readonly providerExecuted?: boolean;
}

/** The finish reason of an answer the model's output limit cut off: the AI SDK executes none of its tool calls. */
export const CUT_OFF_FINISH_REASON = 'length';

/**
 * Every call of an answer cut off by the model's output limit ({@link CUT_OFF_FINISH_REASON}), in
 * the answer's order: the AI SDK executes none of them, so each is a call not sent — refused as
 * `refused` says, else `malformed_arguments` (the model's arguments were not finished, or the
 * answer was cut after them). Calls of tools that are neither this run's `mcpToolSet` tools nor
 * unknown to the step, and provider-executed calls, are not this package's; a streamed call whose
 * input started but never became a tool call (`started`) is one of the calls.
 */
export function callsOfCutAnswer(
  run: AiSdkRun,
  calls: readonly ModelToolCall[],
  started: readonly StartedToolInput[],
  refused: readonly UnsentCall[],
  offered: CallParams['tools'],
): UnsentCall[] {
  const rounds = roundTrackerOf(run.trace);
  const names = new Set((offered ?? []).map((tool) => tool.name));
  const byId = new Map(refused.map((call) => [call.toolCallId, call]));
  const unsent: UnsentCall[] = [];
  const cut = (call: ModelToolCall, whole: boolean): void => {
    const already = byId.get(call.toolCallId);
    if (already !== undefined) {
      unsent.push(already);
      return;
    }
    const tool = rounds.offered(call.toolName);
    if (call.providerExecuted === true || (tool === undefined && names.has(call.toolName))) return;
    unsent.push({
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      toolServer: tool?.server ?? null,
      toolArguments: whole ? parseArguments(call.input) : { input: call.input },
      cause: ToolFailureCause.MALFORMED_ARGUMENTS,
      message: `the model's answer was cut off by its output limit (finish reason ${CUT_OFF_FINISH_REASON}) ${
        whole ? 'after' : 'in the middle of'
      } its call of ${call.toolName}; the call was not sent`,
    });
  };
  for (const call of calls) cut(call, true);
  for (const input of started) cut(input, false);
  return unsent;
}

/**
 * The calls that the prompt of this LLM call answers as denied (the AI SDK's `execution-denied`
 * tool result, made from a `tool-approval-response` with `approved: false`: the app's answer to a
 * held call, or ai 7's `toolApproval` denying a call of any tool).
 */
export function deniedCalls(run: AiSdkRun, prompt: CallParams['prompt']): UnsentCall[] {
  const rounds = roundTrackerOf(run.trace);
  const denied: UnsentCall[] = [];
  for (const message of prompt) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type !== 'tool-result' || part.output.type !== 'execution-denied') continue;
      const held = rounds.takeAwaiting(part.toolCallId);
      if (held === undefined) continue;
      const { tool, input } = held;
      denied.push({
        toolCallId: part.toolCallId,
        toolName: tool.name,
        toolServer: tool.server,
        toolArguments:
          typeof input === 'object' && input !== null && !Array.isArray(input) ? (input as Record<string, unknown>) : { input },
        cause: ToolFailureCause.NOT_APPROVED,
        message: `the call of ${tool.name} was not approved${part.output.reason === undefined ? '' : ` (${part.output.reason})`}; it was not sent`,
        toolApproval: decidedThroughPrompt(false, part.output.reason),
      });
    }
  }
  return denied;
}
