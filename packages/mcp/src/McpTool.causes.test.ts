// Why a call failed, as McpTool decides it, against the real fixture server in a child process
// (stdio): the server's error answer, the caller's invalid arguments (both ways servers send
// them), and each transport code that ends a call without an answer.
import { ToolFailureCause, ToolOutcome } from '@runledger/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpHealthContact } from './McpHealthContact.js';
import { McpServerRegistry } from './McpServerRegistry.js';
import type { McpTool } from './McpTool.js';
import { newEventsFile, stdioFixtureConfig, toolsOnceConnected } from './testing/fixtures.js';

describe('McpTool failure causes over stdio', () => {
  let registry: McpServerRegistry;
  let tools: readonly McpTool[];
  const contacts: McpHealthContact[] = [];
  const tool = (server: string, remote: string): McpTool => tools.find((t) => t.name === `mcp_${server}_${remote}`)!;

  beforeAll(async () => {
    const events = newEventsFile();
    registry = McpServerRegistry.create(
      [
        stdioFixtureConfig({ id: 'fx', eventsFile: events, deadlineMs: 5000 }),
        stdioFixtureConfig({ id: 'fast', eventsFile: events, deadlineMs: 300 }),
      ],
      { onHealthContact: (c) => contacts.push(c) },
    );
    tools = await toolsOnceConnected(registry);
  });
  afterAll(async () => {
    await registry.close();
  });

  it('an ok answer has no cause', async () => {
    const result = await tool('fx', 'echo').execute({ text: 'hi' });
    expect(result.outcome).toBe(ToolOutcome.OK);
    expect(result.failureCause).toBeNull();
  });

  it('isError: the server error', async () => {
    const result = await tool('fx', 'fail').execute({});
    expect(result.outcome).toBe(ToolOutcome.FAILED);
    expect(result.failureCause).toBe(ToolFailureCause.SERVER_ERROR);
  });

  it('arguments that fail the input schema, answered isError by the SDK: invalid arguments, still failed', async () => {
    const result = await tool('fx', 'echo').execute({ text: 5 });
    expect(result.outcome).toBe(ToolOutcome.FAILED);
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/^Input validation error: /);
    expect(result.failureCause).toBe(ToolFailureCause.INVALID_ARGUMENTS);
  });

  it('arguments refused with the JSON-RPC error -32602: invalid arguments', async () => {
    const result = await tool('fx', 'slow').execute({ ms: 'soon' });
    expect(result.outcome).toBe(ToolOutcome.FAILED);
    expect(result.content).toMatch(/JSON-RPC error -32602: Input validation error/);
    expect(result.failureCause).toBe(ToolFailureCause.INVALID_ARGUMENTS);
  });

  it('arguments that are not an object never reach the server: invalid arguments', async () => {
    const result = await tool('fx', 'echo').execute([] as unknown as Record<string, unknown>);
    expect(result.failureCause).toBe(ToolFailureCause.INVALID_ARGUMENTS);
  });

  it('another JSON-RPC error is the JSON-RPC error code', async () => {
    const result = await tool('fx', 'throws').execute({});
    expect(result.failureCause).toBe(ToolFailureCause.JSON_RPC_ERROR);
  });

  it('a malformed answer, a hung server and a crashed process: their transport codes', async () => {
    expect((await tool('fx', 'malformed').execute({})).failureCause).toBe(ToolFailureCause.MALFORMED_RESPONSE);
    expect((await tool('fast', 'hang').execute({ tag: 'cause' })).failureCause).toBe(ToolFailureCause.TIMEOUT);
    const crashed = await tool('fx', 'crash').execute({});
    expect(crashed.outcome).toBe(ToolOutcome.FAILED);
    expect(crashed.failureCause).toBe(ToolFailureCause.TRANSPORT_FAILURE);
  });

  it('a cancelled call has no failure cause', async () => {
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    const result = await tool('fx', 'slow').execute({ ms: 10 }, { signal: controller.signal });
    expect(result.outcome).toBe(ToolOutcome.CANCELLED);
    expect(result.failureCause).toBeNull();
  });
});
