import { performance } from 'node:perf_hooks';
import { ToolFailureCause, type ToolResult } from '@runledger/core';
import type { McpTool } from '@runledger/mcp';
import type { ToolApproval } from '@runledger/trace';
import { dynamicTool, jsonSchema, type ToolSet } from 'ai';
import type { AiSdkRun } from './AiSdkRun.js';
import { followSignals } from './followSignals.js';
import { McpToolCallError } from './McpToolCallError.js';
import { APPROVED_THROUGH_PROMPT, answeredApproval, approvalOf, type McpToolApprovalDecision } from './approvalDecision.js';
import { McpToolNotApprovedError } from './McpToolNotApprovedError.js';
import { roundTrackerOf } from './roundTracker.js';
import { runToolContextSchema } from './runToolContext.js';
import { isAiSdk7Execution, withToolDeadline } from './toolDeadline.js';
import { recordUnsentCall } from './unsentToolCalls.js';

/**
 * A call of a tool whose server requires approval, handed to {@link McpToolSetOptions.approve}.
 *
 * @public
 */
export interface McpToolApprovalRequest {
  /** The tool the model wants to call. */
  readonly tool: McpTool;
  /** The arguments the model gave. */
  readonly input: Readonly<Record<string, unknown>>;
  /** The AI SDK's id of the tool call. */
  readonly toolCallId: string;
}

/**
 * Options of {@link mcpToolSet}.
 *
 * @public
 */
export interface McpToolSetOptions {
  /** The run every call is recorded on (an `ActiveRun`). */
  readonly run: AiSdkRun;
  /**
   * Decides each call of a tool whose server requires approval, before it is sent. Without it
   * such tools carry the AI SDK's own `needsApproval: true`: the SDK stops at the call and asks
   * your app for a `tool-approval-response`. A refused call (or one whose `approve` throws) is not
   * sent; it is recorded as a `failed` tool step with cause `not_approved`, and the model reads a
   * {@link McpToolNotApprovedError} (or the error thrown). Return a {@link McpToolApprovalDecision}
   * to say who decided and why: the call's tool step keeps it as `toolApproval` (a boolean names
   * no one: `by` null). A call approved or refused through a `tool-approval-response`, or denied by
   * ai 7's `toolApproval` (a call of any tool), is kept with `by` null and the answer's reason: the
   * AI SDK's answer names no one.
   */
  readonly approve?: (request: McpToolApprovalRequest) => boolean | McpToolApprovalDecision | Promise<boolean | McpToolApprovalDecision>;
  /**
   * Tells which tools write (change something): their steps are recorded with `writes: true`, so
   * a call that cannot be recorded fails closed (it is not sent), and the app notes that a
   * cancelled call may have written. Default: none.
   */
  readonly writes?: (tool: McpTool) => boolean;
}

/**
 * Turns MCP tools into an AI SDK tool set whose every call is recorded on the run.
 *
 * @remarks
 * Each tool's `execute` records a `tool_start` step (awaited, so the call shows as on the wire),
 * calls `McpTool.execute` with a signal that follows both the run's signal and the AI SDK's
 * `abortSignal` (its listeners are removed when the call ends), and records the `tool` step with
 * the outcome, the round of the LLM call that asked for it and the duration. An `ok` result goes
 * to the model as the result's content (text); a `failed` or `cancelled` one is thrown as an
 * {@link McpToolCallError}, which the AI SDK hands to the model as the tool's error output. A
 * cancelled call means a signal was aborted: the loop's (the SDK makes no further LLM call) or the
 * run's ({@link recordingMiddleware} refuses the next one); `generateText` rejects with the abort
 * reason. With AI SDK 7, a call its tool timeout (`timeout.toolMs`, `timeout.tools.<name>Ms`) ends
 * is recorded `failed` with cause `mcp_deadline_exhausted`, never `cancelled`. A call that is not sent (an input that is not a JSON object, a refused approval) is
 * recorded as one `failed` tool step with its cause (`malformed_arguments`, `not_approved`).
 *
 * @throws TypeError from `mcpToolSet` when two tools share a name or `options.run` is missing.
 * @public
 */
export function mcpToolSet(tools: readonly McpTool[], options: McpToolSetOptions): ToolSet {
  const run = options?.run;
  if (run === undefined || run === null || typeof run.trace?.recordToolStart !== 'function') {
    throw new TypeError('McpToolSetOptions.run must be a run with a trace and a signal (an ActiveRun from startRun)');
  }
  const set: ToolSet = {};
  for (const tool of tools) {
    if (Object.hasOwn(set, tool.name)) throw new TypeError(`mcpToolSet tools must have unique names ("${tool.name}" is given twice)`);
    set[tool.name] = aiSdkTool(tool, run, options.approve, options.writes?.(tool) === true);
  }
  return set;
}

function aiSdkTool(tool: McpTool, run: AiSdkRun, approve: McpToolSetOptions['approve'], writes: boolean): ToolSet[string] {
  const rounds = roundTrackerOf(run.trace);
  rounds.offer(tool);
  const decidesHere = tool.requiresApproval && approve !== undefined;
  const needsApproval = tool.requiresApproval && !decidesHere;
  /** Records the call as not sent (its one step) and throws what the model reads. */
  const refuse = async (
    toolCallId: string,
    toolArguments: Readonly<Record<string, unknown>>,
    cause: ToolFailureCause,
    error: unknown,
    toolApproval: ToolApproval | null = null,
  ) => {
    const message = error instanceof Error ? error.message : String(error);
    await recordUnsentCall(run, { toolCallId, toolName: tool.name, toolServer: tool.server, toolArguments, cause, message, toolApproval });
    throw error;
  };
  // The SDK holds a call that needs approval until the app answers, and ai 7's toolApproval may
  // refuse a call of any tool: the middleware records a refusal from the next prompt.
  const awaitsDecision = {
    onInputAvailable: ({ toolCallId, input }: { toolCallId: string; input: unknown }) =>
      rounds.awaitDecision(toolCallId, { tool, input, needsApproval }),
  };
  return dynamicTool({
    description: tool.description,
    ...(tool.title === undefined ? {} : { title: tool.title }),
    inputSchema: jsonSchema(tool.inputSchema as Parameters<typeof jsonSchema>[0]),
    needsApproval,
    // ai 7 checks toolsContext[name] with it: execute, toolApproval and the tool callbacks see the run's id
    ...(typeof run.id === 'string' && ({ contextSchema: runToolContextSchema(tool.name, run.id) } as object)),
    ...awaitsDecision,
    execute: async (input, options) => {
      const { toolCallId, abortSignal } = options;
      // A call held for a tool-approval-response runs only once approved: the answer is in the
      // messages (with its reason); a call that needs approval and ran without one there was
      // approved by ai 7's toolApproval within its step.
      const awaited = rounds.takeAwaiting(toolCallId);
      let toolApproval: ToolApproval | null =
        answeredApproval(options.messages, toolCallId) ?? (awaited?.needsApproval === true ? APPROVED_THROUGH_PROMPT : null);
      let args: Readonly<Record<string, unknown>>;
      try {
        args = argumentsOf(tool, input);
      } catch (error) {
        return refuse(toolCallId, { input }, ToolFailureCause.MALFORMED_ARGUMENTS, error);
      }
      if (decidesHere) {
        try {
          toolApproval = approvalOf(await approve({ tool, input: args, toolCallId }));
        } catch (error) {
          return refuse(toolCallId, args, ToolFailureCause.NOT_APPROVED, error);
        }
        if (!toolApproval.approved) {
          return refuse(toolCallId, args, ToolFailureCause.NOT_APPROVED, new McpToolNotApprovedError(tool), toolApproval);
        }
      }
      const round = rounds.roundOf(toolCallId);
      const start = await run.trace.recordToolStart({
        toolCallId: rounds.recordedCallId(toolCallId),
        toolName: tool.name,
        toolServer: tool.server,
        toolArguments: args,
        round,
        writes,
      });
      const started = performance.now();
      // the run's cancel and the loop's own signal both stop the call on the wire
      const followed = followSignals([run.signal, abortSignal]);
      let result: ToolResult;
      try {
        result = await tool.execute(args, { signal: followed.signal, toolCallId: start.toolCallId as string });
      } finally {
        followed.release();
      }
      const durationMs = performance.now() - started;
      // ai 7's timeout.toolMs aborts the SDK's signal with a timer: a deadline, not a cancel
      if (isAiSdk7Execution(options)) result = withToolDeadline(tool, result, abortSignal, run.signal, durationMs);
      await run.trace.recordToolResult({
        toolCallId: start.toolCallId as string,
        toolName: tool.name,
        toolServer: tool.server,
        toolArguments: args,
        result,
        round,
        durationMs,
        writes,
        toolApproval,
      });
      if (result.outcome === 'ok') return result.content;
      throw new McpToolCallError(tool, result);
    },
  });
}

function argumentsOf(tool: McpTool, input: unknown): Readonly<Record<string, unknown>> {
  if (input === undefined || input === null) return {};
  if (typeof input !== 'object' || Array.isArray(input)) {
    throw new TypeError(
      `the input of ${tool.name} must be a JSON object, got ${Array.isArray(input) ? 'an array' : typeof input}; the call was not sent`,
    );
  }
  return input as Readonly<Record<string, unknown>>;
}
