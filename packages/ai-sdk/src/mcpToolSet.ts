import { performance } from 'node:perf_hooks';
import type { ToolResult } from '@runledger/core';
import type { McpTool } from '@runledger/mcp';
import { dynamicTool, jsonSchema, type ToolSet } from 'ai';
import type { AiSdkRun } from './AiSdkRun.js';
import { McpToolCallError } from './McpToolCallError.js';
import { McpToolNotApprovedError } from './McpToolNotApprovedError.js';
import { roundTrackerOf } from './roundTracker.js';

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
   * your app for a `tool-approval-response`. A refused call is not sent and not recorded; the
   * model reads a {@link McpToolNotApprovedError}.
   */
  readonly approve?: (request: McpToolApprovalRequest) => boolean | Promise<boolean>;
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
 * calls `McpTool.execute` with the AI SDK's `abortSignal` (the run's signal when the SDK gives
 * none), and records the `tool` step with the outcome, the round of the LLM call that asked for
 * it and the duration. An `ok` result goes to the model as the result's content (text); a
 * `failed` or `cancelled` one is thrown as an {@link McpToolCallError}, which the AI SDK hands to
 * the model as the tool's error output. A cancelled call means the signal was aborted, so the SDK
 * makes no further LLM call: the step ends and `generateText` rejects with the abort reason.
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
  const decidesHere = tool.requiresApproval && approve !== undefined;
  return dynamicTool({
    description: tool.description,
    ...(tool.title === undefined ? {} : { title: tool.title }),
    inputSchema: jsonSchema(tool.inputSchema as Parameters<typeof jsonSchema>[0]),
    needsApproval: tool.requiresApproval && !decidesHere,
    execute: async (input, { toolCallId, abortSignal }) => {
      const args = argumentsOf(tool, input);
      if (decidesHere && !(await approve({ tool, input: args, toolCallId }))) throw new McpToolNotApprovedError(tool);
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
      const result: ToolResult = await tool.execute(args, { signal: abortSignal ?? run.signal });
      const durationMs = performance.now() - started;
      await run.trace.recordToolResult({
        toolCallId: start.toolCallId as string,
        toolName: tool.name,
        toolServer: tool.server,
        toolArguments: args,
        result,
        round,
        durationMs,
        writes,
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
