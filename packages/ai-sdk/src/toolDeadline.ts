// A call the AI SDK 7 ended with its tool timeout (`timeout.toolMs`, or `timeout.tools.<name>Ms`):
// a deadline, never a cancel. ai 7 hands `execute` the signal `AbortSignal.any([loop signal,
// AbortSignal.timeout(ms)])`, so the call's abort reason is the timer's `TimeoutError`.
import { ToolFailureCause, ToolResult } from '@runledger/core';
import type { McpTool } from '@runledger/mcp';

/**
 * True when `options` are the execution options of AI SDK 7 (which always passes the tool's
 * `context`, ai 6 passes `experimental_context`): only there is a timer's abort a tool deadline,
 * so ai 6 keeps its outcomes as they were.
 */
export function isAiSdk7Execution(options: object): boolean {
  return Object.hasOwn(options, 'context');
}

/** True when `reason` is the `TimeoutError` an `AbortSignal.timeout` aborts with. */
function isTimeout(reason: unknown): boolean {
  return typeof reason === 'object' && reason !== null && (reason as { name?: unknown }).name === 'TimeoutError';
}

/**
 * The result of a call as the run records it: a `cancelled` result whose SDK signal was aborted by
 * a timer (not by the run's own reason, which stays a cancel by identity) becomes `failed` with
 * cause `mcp_deadline_exhausted`, keeping how often the request was sent.
 */
export function withToolDeadline(
  tool: McpTool,
  result: ToolResult,
  sdkSignal: AbortSignal | undefined,
  runSignal: AbortSignal,
  timedMs: number,
): ToolResult {
  if (result.outcome !== 'cancelled' || sdkSignal?.aborted !== true) return result;
  const reason: unknown = sdkSignal.reason;
  if (!isTimeout(reason) || (runSignal.aborted && runSignal.reason === reason)) return result;
  const failed = ToolResult.failure(
    `the AI SDK's tool timeout ended the call of ${tool.name} (MCP server "${tool.server}") after ${Math.round(timedMs)} ms; whether the server already acted on it is not known`,
    ToolFailureCause.DEADLINE_EXHAUSTED,
  );
  return result.sends === null ? failed : failed.withSends(result.sends);
}
