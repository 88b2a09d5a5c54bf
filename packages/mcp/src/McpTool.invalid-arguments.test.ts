// Arguments a server refuses are the caller's (the model's) mistake, never the server's: every form
// the MCP TypeScript SDKs send — 1.x and 2.x, an `isError` answer and a JSON-RPC error — ends the
// call failed with the cause invalid_arguments, and the server's health does not count it. Real
// servers over stdio: the reference server (SDK 1.x), a fixture on SDK 1.x, the fixture on SDK 2.x.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { ToolFailureCause, ToolOutcome, ToolResult } from '@runledger/core';
import { InMemoryRunStore, startRun } from '@runledger/trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpServerRegistry } from './McpServerRegistry.js';
import type { McpTool } from './McpTool.js';
import { parseServerConfig } from './parseServerConfig.js';
import { stdioFixtureConfig, toolsOnceConnected } from './testing/fixtures.js';

const SDK1_SERVER_PATH = fileURLToPath(new URL('./testing/sdk1-server.mjs', import.meta.url));
const REFERENCE_SERVER_PATH = createRequire(import.meta.url)
  .resolve('@modelcontextprotocol/server-everything/package.json')
  .replace(/package\.json$/, 'dist/index.js');

/** The health the store computes for one server from these results, recorded as a run's steps. */
async function healthOf(server: string, tool: McpTool, results: readonly ToolResult[]) {
  const store = InMemoryRunStore.create();
  const run = await startRun(store, { configuration: 'invalid-arguments-test' });
  for (const result of results) {
    await run.trace.recordToolResult({ toolName: tool.name, toolServer: server, toolArguments: {}, result, round: 1, durationMs: 1 });
  }
  await run.complete();
  const [health] = await store.serverHealth();
  await store.close();
  return health!;
}

describe('invalid arguments against real servers on SDK 1.x and 2.x', () => {
  let registry: McpServerRegistry;
  let tools: readonly McpTool[];
  const tool = (name: string): McpTool => {
    const found = tools.find((t) => t.name === name);
    if (found === undefined) throw new Error(`no tool ${name}: ${tools.map((t) => t.name).join(', ')}`);
    return found;
  };

  beforeAll(async () => {
    registry = McpServerRegistry.create([
      ...parseServerConfig({
        servers: [
          { id: 'everything', transport: { type: 'stdio', command: process.execPath, args: [REFERENCE_SERVER_PATH, 'stdio'] } },
          { id: 'sdk1', transport: { type: 'stdio', command: process.execPath, args: [SDK1_SERVER_PATH] } },
        ],
      }),
      stdioFixtureConfig({ id: 'sdk2', deadlineMs: 5000 }),
    ]);
    tools = await toolsOnceConnected(registry);
  });
  afterAll(async () => {
    await registry.close();
  });

  const refusals: readonly [string, string, Record<string, unknown>, RegExp][] = [
    ['the reference server (SDK 1.x), isError text', 'mcp_everything_echo', { message: 5 }, /^MCP error -32602: Input validation error: /],
    ['SDK 1.x, isError text', 'mcp_sdk1_add', { a: 'one', b: 2 }, /^MCP error -32602: Input validation error: /],
    [
      'SDK 1.x, isError text, too many elements',
      'mcp_sdk1_add',
      { a: 1, b: 2, c: Array.from({ length: 20 }, (_, i) => i) },
      /^MCP error -32602: Invalid arguments for tool add: arguments contain more than/,
    ],
    [
      'SDK 1.x, JSON-RPC error -32602',
      'mcp_sdk1_add_rpc',
      { a: 'one', b: 2 },
      /JSON-RPC error -32602: MCP error -32602: Input validation error/,
    ],
    ['SDK 2.x, isError text', 'mcp_sdk2_echo', { text: 5 }, /^Input validation error: /],
    ['SDK 2.x, JSON-RPC error -32602', 'mcp_sdk2_slow', { ms: 'soon' }, /JSON-RPC error -32602: Input validation error/],
  ];

  it.each(refusals)('%s: failed, invalid_arguments, not counted against the server', async (_form, name, args, content) => {
    const mcpTool = tool(name);
    const refused = await mcpTool.execute(args);
    expect(refused.outcome).toBe(ToolOutcome.FAILED);
    expect(refused.content).toMatch(content);
    expect(refused.failureCause).toBe(ToolFailureCause.INVALID_ARGUMENTS);
    // Four refusals and one ok call: the server has answered every call it could.
    const health = await healthOf(mcpTool.server, mcpTool, [refused, refused, refused, refused, ToolResult.text('ok')]);
    expect(health).toMatchObject({ calls: 5, ok: 1, failed: 4, invalidArguments: 4, failureRate: 0, lastFailureAt: null, flaky: false });
  });

  it('SDK 1.x: a tool breaking its own output schema is the server error, as isError text and as JSON-RPC -32602', async () => {
    const answered = await tool('mcp_sdk1_broken_output').execute({});
    expect(answered.content).toMatch(/^MCP error -32602: Output validation error: /);
    expect(answered.failureCause).toBe(ToolFailureCause.SERVER_ERROR);
    const rpc = await tool('mcp_sdk1_broken_output_rpc').execute({});
    expect(rpc.content).toMatch(/JSON-RPC error -32602: MCP error -32602: Output validation error/);
    expect(rpc.failureCause).toBe(ToolFailureCause.JSON_RPC_ERROR);
    const health = await healthOf('sdk1', tool('mcp_sdk1_broken_output'), [answered, rpc]);
    expect(health).toMatchObject({ failed: 2, invalidArguments: 0, failureRate: 1 });
  });

  it('SDK 1.x: good arguments are ok', async () => {
    const result = await tool('mcp_sdk1_add').execute({ a: 2, b: 3 });
    expect(result.outcome).toBe(ToolOutcome.OK);
    expect(result.content).toBe('5');
  });
});
