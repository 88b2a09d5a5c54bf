// A run whose tool calls failed every way there is, recorded through startRun at a privacy level:
// for the tests of why a call failed (issue 40 item 1).
import { ToolFailureCause, ToolResult } from '@runledger/core';
import { type PrivacyLevel, type RunStore, startRun, type ToolApproval } from '@runledger/trace';

/** The message of the first call's 503: a token and an e-mail address that must never be shown. */
export const FAILED_503_MESSAGE = 'MCP server "flaky" answered with HTTP status 503: down, token=abcdef123456 mail ops@example.com';

/** Records, at `level`, a 503, a JSON-RPC error, a reset connection, an isError answer and the recorder's own error; returns the run id. */
export async function recordFailedCalls(store: RunStore, level: PrivacyLevel): Promise<string> {
  const run = await startRun(store, { configuration: `why-${level}`, privacy: level, heartbeatMs: 0, spoolDir: false });
  const call = (toolName: string, result: ToolResult) =>
    run.trace.recordToolResult({ toolName, toolServer: 'flaky', toolArguments: { service: 'billing', password: 'hunter2' }, result });
  await call('mcp_flaky_status', ToolResult.failure(FAILED_503_MESSAGE, ToolFailureCause.HTTP_STATUS, { httpStatus: 503 }));
  await call(
    'mcp_flaky_rpc',
    ToolResult.failure('answered with JSON-RPC error -32603: boom', ToolFailureCause.JSON_RPC_ERROR, { jsonRpcCode: -32603 }),
  );
  await call(
    'mcp_flaky_reset',
    ToolResult.failure('transport failed: socket hang up', ToolFailureCause.TRANSPORT_FAILURE, { errorClass: 'ECONNRESET' }),
  );
  await call(
    'mcp_flaky_answer',
    ToolResult.failure('metrics backend answered 503', ToolFailureCause.SERVER_ERROR, { serverIsError: true }),
  );
  await call('mcp_flaky_own', ToolResult.error('rate limited'));
  await run.complete();
  return run.id;
}

/** Records, at `level`, a call alice approved, one bob refused with a reason, and one approved naming no one; returns the run id. */
export async function recordDecidedCalls(store: RunStore, level: PrivacyLevel): Promise<string> {
  const run = await startRun(store, { configuration: `approval-${level}`, privacy: level, heartbeatMs: 0, spoolDir: false });
  const call = (result: ToolResult, toolApproval: ToolApproval) =>
    run.trace.recordToolResult({ toolName: 'mcp_gh_merge', toolServer: 'gh', toolArguments: { pr: 7 }, result, toolApproval });
  await call(ToolResult.text('merged'), { approved: true, by: 'alice', reason: null });
  await call(ToolResult.failure('the call of mcp_gh_merge was not approved', ToolFailureCause.NOT_APPROVED), {
    approved: false,
    by: 'bob',
    reason: 'too risky',
  });
  await call(ToolResult.text('merged'), { approved: true, by: null, reason: null });
  await run.complete();
  return run.id;
}
