import { ToolResult } from '@runledger/core';
import type { McpTool } from '@runledger/mcp';
import { RunTrace } from '@runledger/trace';
import { describe, expect, it } from 'vitest';
import { McpToolCallError } from './McpToolCallError.js';
import { mcpToolSet } from './mcpToolSet.js';
import { recordingMiddleware } from './recordingMiddleware.js';

function stubTool(name: string, answer: () => ToolResult = () => ToolResult.text('ok')): McpTool & { calls: unknown[] } {
  const calls: unknown[] = [];
  return {
    calls,
    name,
    server: 'stub',
    remoteName: name,
    title: undefined,
    description: `the ${name} stub`,
    inputSchema: { type: 'object', properties: {} },
    requiresApproval: false,
    deadlineMs: 1000,
    execute: async (args) => {
      calls.push(args);
      return answer();
    },
  };
}
const run = () => ({ trace: RunTrace.create(), signal: new AbortController().signal });
const options = { toolCallId: 'c1', messages: [] };

describe('mcpToolSet input rules', () => {
  it('refuses a missing run and duplicate names, naming the field', () => {
    expect(() => mcpToolSet([], undefined as never)).toThrow('McpToolSetOptions.run must be a run with a trace and a signal');
    expect(() => mcpToolSet([stubTool('mcp_stub_a'), stubTool('mcp_stub_a')], { run: run() })).toThrow(
      'mcpToolSet tools must have unique names ("mcp_stub_a" is given twice)',
    );
    expect(() => recordingMiddleware({} as never)).toThrow('recordingMiddleware run must be a run with a trace and a signal');
  });

  it('refuses an input that is not a JSON object without sending it, recorded as one failed step (malformed_arguments)', async () => {
    const tool = stubTool('mcp_stub_a');
    const r = run();
    const set = mcpToolSet([tool], { run: r });
    await expect(Promise.resolve(set.mcp_stub_a!.execute!([1, 2], options))).rejects.toThrow(
      'the input of mcp_stub_a must be a JSON object, got an array; the call was not sent',
    );
    expect(tool.calls).toEqual([]);
    expect(r.trace.steps.map((s) => [s.kind, s.toolServer, s.toolOutcome, s.toolFailureCause, s.toolArguments])).toEqual([
      ['tool', 'stub', 'failed', 'malformed_arguments', { input: [1, 2] }],
    ]);
  });

  it('records a call whose approve callback throws as one failed step (not_approved), not sent, and rethrows', async () => {
    const tool = { ...stubTool('mcp_stub_a'), requiresApproval: true };
    const r = run();
    const broken = new Error('the approval service is down');
    const set = mcpToolSet([tool], { run: r, approve: () => Promise.reject(broken) });
    await expect(Promise.resolve(set.mcp_stub_a!.execute!({ q: 1 }, options))).rejects.toBe(broken);
    expect(tool.calls).toEqual([]);
    expect(r.trace.steps.map((s) => [s.kind, s.toolOutcome, s.toolFailureCause, s.toolResult])).toEqual([
      ['tool', 'failed', 'not_approved', 'the approval service is down'],
    ]);
  });

  it('gives an ok result’s content to the model and throws the others as McpToolCallError with their outcome', async () => {
    const results = [ToolResult.text('fine'), ToolResult.error('broke'), ToolResult.cancelled('stopped')];
    const tool = stubTool('mcp_stub_a', () => results.shift()!);
    const r = run();
    const execute = mcpToolSet([tool], { run: r }).mcp_stub_a!.execute!;
    await expect(Promise.resolve(execute({ q: 1 }, options))).resolves.toBe('fine');
    const failed = await Promise.resolve(execute({}, options)).catch((e: unknown) => e);
    const cancelled = await Promise.resolve(execute({}, options)).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(McpToolCallError);
    expect(failed).toMatchObject({ outcome: 'failed', message: 'broke', toolName: 'mcp_stub_a', server: 'stub' });
    expect(cancelled).toMatchObject({ outcome: 'cancelled', message: 'stopped' });
    expect(r.trace.steps.map((s) => [s.kind, s.toolOutcome ?? null])).toEqual([
      ['tool_start', null],
      ['tool', 'ok'],
      ['tool_start', null],
      ['tool', 'failed'],
      ['tool_start', null],
      ['tool', 'cancelled'],
    ]);
    expect(() => new McpToolCallError(tool, ToolResult.text('x'))).toThrow('McpToolCallError.result must not be an "ok" result');
  });

  it('records the calls of the tools `writes` names as writing, and a call before any LLM call in round 0', async () => {
    const r = run();
    const set = mcpToolSet([stubTool('mcp_stub_w'), stubTool('mcp_stub_r')], { run: r, writes: (tool) => tool.name === 'mcp_stub_w' });
    await set.mcp_stub_w!.execute!({}, options);
    await set.mcp_stub_r!.execute!({}, options);
    expect(r.trace.steps.map((s) => [s.kind, s.toolName, s.round, s.toolWrites ?? null])).toEqual([
      ['tool_start', 'mcp_stub_w', 0, true],
      ['tool', 'mcp_stub_w', 0, true],
      ['tool_start', 'mcp_stub_r', 0, null],
      ['tool', 'mcp_stub_r', 0, null],
    ]);
  });
});
