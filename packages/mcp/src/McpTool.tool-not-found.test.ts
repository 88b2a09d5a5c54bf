// A call of a tool the server does not have (a tool listed, then gone; a stale configuration) is
// the model's or the configuration's doing, never the server's fault: every form the MCP
// TypeScript SDKs send — 2.x's JSON-RPC error `-32602` "Tool X not found", 1.x's `isError` text
// `MCP error -32602: Tool X not found` — ends the call failed with the cause tool_not_found, and
// the server's health does not charge it. Real servers: the fixture on SDK 2.x over stdio (2025
// and 2026-07-28 revisions) and over Streamable HTTP, a fixture on SDK 1.x and the reference server
// (SDK 1.x) over stdio. The call goes out by a remote name the server never listed, through the
// registry's own seam (a RemoteMcpTool on the server's session).
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { ToolFailureCause, ToolOutcome, ToolResult } from '@runledger/core';
import { InMemoryRunStore, startRun } from '@runledger/trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpServerConfig } from './McpServerConfig.js';
import { McpSession } from './McpSession.js';
import { parseServerConfig } from './parseServerConfig.js';
import { RemoteMcpTool } from './RemoteMcpTool.js';
import { type HttpFixture, NO_ANNOTATIONS, startHttpFixture, stdioFixtureConfig } from './testing/fixtures.js';

const SDK1_SERVER_PATH = fileURLToPath(new URL('./testing/sdk1-server.mjs', import.meta.url));
const REFERENCE_SERVER_PATH = createRequire(import.meta.url)
  .resolve('@modelcontextprotocol/server-everything/package.json')
  .replace(/package\.json$/, 'dist/index.js');

function stdioConfig(id: string, args: string[]): McpServerConfig {
  const [config] = parseServerConfig({
    servers: [{ id, transport: { type: 'stdio', command: process.execPath, args }, deadlineMs: 10_000 }],
  });
  return config as McpServerConfig;
}

describe('a tool the server does not have, against real servers on SDK 1.x and 2.x', () => {
  let http: HttpFixture;
  const sessions: McpSession[] = [];

  /** A tool of the server's session that the server never listed: called by its remote name. */
  function missingTool(config: McpServerConfig, remote: string): RemoteMcpTool {
    const session = new McpSession(config, { env: process.env, maxListPages: 50 });
    sessions.push(session);
    return new RemoteMcpTool({
      name: `mcp_${config.id}_${remote}`,
      wire: { name: remote, title: undefined, description: '', inputSchema: { type: 'object' }, annotations: NO_ANNOTATIONS },
      session,
      onContact: undefined,
    });
  }

  beforeAll(async () => {
    http = await startHttpFixture();
  });
  afterAll(async () => {
    await Promise.all(sessions.map((session) => session.close()));
    await http.stop();
  });

  const servers: readonly [string, () => McpServerConfig, RegExp][] = [
    ['SDK 2.x over stdio, JSON-RPC -32602', () => stdioFixtureConfig({ id: 'sdk2', deadlineMs: 10_000 }), /Tool gone not found/],
    [
      'SDK 2.x over stdio, MCP 2026-07-28, JSON-RPC -32602',
      () => stdioFixtureConfig({ id: 'stateless', stateless: true, deadlineMs: 10_000 }),
      /Tool gone not found/,
    ],
    ['SDK 2.x over Streamable HTTP, JSON-RPC -32602', () => http.config({ id: 'http', deadlineMs: 10_000 }), /Tool gone not found/],
    ['SDK 1.x over stdio, isError text', () => stdioConfig('sdk1', [SDK1_SERVER_PATH]), /^MCP error -32602: Tool gone not found$/],
    [
      'the reference server (SDK 1.x), isError text',
      () => stdioConfig('everything', [REFERENCE_SERVER_PATH, 'stdio']),
      /^MCP error -32602: Tool gone not found$/,
    ],
  ];

  it.each(servers)('%s: failed, tool_not_found, never charged to the server', async (_form, config, content) => {
    const tool = missingTool(config(), 'gone');
    const result = await tool.execute({});
    expect(result.outcome).toBe(ToolOutcome.FAILED);
    expect(result.content).toMatch(content);
    expect(result.failureCause).toBe(ToolFailureCause.TOOL_NOT_FOUND);
    // Four calls of a tool the server does not have and one ok call: the server failed none.
    const health = await healthOf(tool, [result, result, result, result], 1);
    expect(health).toMatchObject({
      calls: 5,
      ok: 1,
      failed: 4,
      invalidArguments: 0,
      notCharged: 4,
      failureCauses: [{ cause: 'tool_not_found', calls: 4 }],
      failureRate: 0,
      lastFailureAt: null,
      flaky: false,
    });
  });
});

/** The health the store computes for the tool's server from these results and `oks` ok calls, recorded as a run's steps. */
async function healthOf(tool: RemoteMcpTool, results: readonly ToolResult[], oks: number) {
  const store = InMemoryRunStore.create();
  const run = await startRun(store, { configuration: 'tool-not-found-test', spoolDir: false });
  for (const result of [...results, ...Array.from({ length: oks }, () => ToolResult.text('ok'))]) {
    await run.trace.recordToolResult({ toolName: tool.name, toolServer: tool.server, toolArguments: {}, result, round: 1, durationMs: 1 });
  }
  await run.complete();
  const [health] = await store.serverHealth();
  await store.close();
  return health!;
}
