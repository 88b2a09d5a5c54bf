// Three recorded runs that together hold every row of docs/otel.md's mapping: a completed run with
// ok, failed and cancelled calls (and every other step kind, and a call that never ended), a run
// cancelled by its operator, and a failed run. Recorded through startRun, on the clock given.
import { ToolFailureCause, ToolResult } from '@runledger/core';
import { type PrivacyLevel, type RunStore, startRun } from '@runledger/trace';

/** A clock that advances 7 ms at each reading, from 2025-12-01T00:00:00Z. */
export function steppingClock(start = 1_764_547_200_000): () => number {
  let now = start;
  return () => (now += 7);
}

export interface SampleRuns {
  readonly completed: string;
  readonly cancelled: string;
  readonly failed: string;
}

const SECRET_ARGS = { query: 'mail ada@example.com', token: 'sk-abcdefghijklmnop1234' };

export async function recordSampleRuns(store: RunStore, clock: () => number, privacy?: PrivacyLevel): Promise<SampleRuns> {
  const options = { heartbeatMs: 0, spoolDir: false as const, clock, ...(privacy === undefined ? {} : { privacy }) };

  const a = await startRun(store, { ...options, configuration: 'support-agent', actor: 'ops@example.com' });
  await a.trace.recordRequest({ content: 'Why did the export fail?' });
  await a.trace.recordContextBudget({ tokenBudget: 8000, tokensUsed: 1200 });
  await a.trace.recordDroppedSources({ sources: ['old-ticket-17'] });
  await a.trace.recordAssembledMessages({
    messages: [
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'Why?' },
    ],
  });
  await a.trace.recordLlmCall({
    durationMs: 812.37,
    model: 'gpt-x',
    promptTokens: 1200,
    completionTokens: 80,
    finishReason: 'tool_calls',
    costUsd: 0.0042,
    requestedToolCalls: [{ id: 'c1', name: 'mcp_github_search', arguments: SECRET_ARGS }],
  });
  const okStart = await a.trace.recordToolStart({ round: 1, toolName: 'mcp_github_search', toolArguments: SECRET_ARGS });
  await a.trace.recordToolResult({
    round: 1,
    durationMs: 120.5,
    toolCallId: okStart.toolCallId!,
    toolName: 'mcp_github_search',
    toolArguments: SECRET_ARGS,
    result: ToolResult.text('3 issues found for ada@example.com'),
  });
  const failStart = await a.trace.recordToolStart({ round: 1, toolName: 'mcp_flaky_fetch', toolArguments: { service: 'billing' } });
  await a.trace.recordToolResult({
    round: 1,
    durationMs: 3000,
    toolCallId: failStart.toolCallId!,
    toolName: 'mcp_flaky_fetch',
    toolArguments: { service: 'billing' },
    result: ToolResult.failure('no answer within 3000 ms', ToolFailureCause.TIMEOUT),
  });
  const cancelStart = await a.trace.recordToolStart({
    round: 1,
    toolName: 'mcp_slow_export',
    toolArguments: { report: 'q3' },
    writes: true,
  });
  await a.trace.recordToolResult({
    round: 1,
    durationMs: 400.25,
    toolCallId: cancelStart.toolCallId!,
    toolName: 'mcp_slow_export',
    toolArguments: { report: 'q3' },
    writes: true,
    result: ToolResult.cancelled('the run was cancelled'),
  });
  await a.trace.recordToolExecution({
    round: 1,
    durationMs: 5,
    toolName: 'lookup',
    toolServer: null,
    toolResult: 'legacy failure',
    isError: true,
  });
  await a.trace.recordToolStart({ round: 2, toolName: 'mcp_slow_status', toolCallId: 'never-ended' });
  await a.trace.recordLlmCall({
    round: 2,
    durationMs: 95,
    model: 'gpt-x',
    content: 'Billing timed out; ask ada@example.com.',
    finishReason: 'stop',
    promptTokens: 1500,
    completionTokens: 30,
  });
  await a.complete();

  const b = await startRun(store, { ...options, configuration: 'report-agent', actor: 'runledger demo' });
  await b.trace.recordRequest({ content: 'Export Q3.' });
  const start = await b.trace.recordToolStart({ toolName: 'mcp_slow_export', toolArguments: { report: 'q3' } });
  await b.cancel('cancelled by the operator', { requestedBy: 'alice' });
  await b.trace.recordToolResult({
    durationMs: 250,
    toolCallId: start.toolCallId!,
    toolName: 'mcp_slow_export',
    toolArguments: { report: 'q3' },
    result: ToolResult.cancelled('the run was cancelled'),
  });
  await b.complete();

  const c = await startRun(store, { ...options, configuration: 'ops-agent', actor: null });
  await c.trace.recordToolResult({
    durationMs: 33.3,
    toolName: 'mcp_flaky_fetch',
    result: ToolResult.failure('HTTP 502', ToolFailureCause.SERVER_ERROR),
  });
  await c.fail(new Error('metrics unavailable; token=abcdefgh12345678'));

  return { completed: a.id, cancelled: b.id, failed: c.id };
}
