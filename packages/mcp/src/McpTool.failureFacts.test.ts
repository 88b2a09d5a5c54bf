// What the transport knew about why a call failed (ToolResult.failureFacts), against real MCP
// servers in child processes: the server's isError answer and a JSON-RPC error over stdio, a
// crashed process, and over HTTP a status answer (503) and a connection reset mid-call.
import { createServer, type ServerResponse } from 'node:http';
import { ToolFailureCause, ToolOutcome } from '@runledger/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpServerRegistry } from './McpServerRegistry.js';
import type { McpTool } from './McpTool.js';
import { newEventsFile, startHttpFixture, stdioFixtureConfig, toolsOnceConnected, type HttpFixture } from './testing/fixtures.js';
import { THROWS_CODE } from './testing/fixture-server.mjs';

describe('McpTool failure facts over stdio', () => {
  let registry: McpServerRegistry;
  let tools: readonly McpTool[];
  const tool = (remote: string): McpTool => tools.find((t) => t.name === `mcp_fx_${remote}`)!;

  beforeAll(async () => {
    registry = McpServerRegistry.create([stdioFixtureConfig({ id: 'fx', eventsFile: newEventsFile(), deadlineMs: 5000 })]);
    tools = await toolsOnceConnected(registry);
  });
  afterAll(async () => {
    await registry.close();
  });

  it('an ok answer has no facts', async () => {
    expect((await tool('echo').execute({ text: 'hi' })).failureFacts).toBeNull();
  });

  it('the server answered isError: serverIsError, no code or status', async () => {
    const result = await tool('fail').execute({});
    expect(result.failureCause).toBe(ToolFailureCause.SERVER_ERROR);
    expect(result.failureFacts).toEqual({ serverIsError: true });
  });

  it("the SDK's refusal of the arguments is an isError answer too", async () => {
    const result = await tool('echo').execute({ text: 5 });
    expect(result.failureCause).toBe(ToolFailureCause.INVALID_ARGUMENTS);
    expect(result.failureFacts).toEqual({ serverIsError: true });
  });

  it('a JSON-RPC error: its code', async () => {
    const result = await tool('throws').execute({});
    expect(result.failureCause).toBe(ToolFailureCause.JSON_RPC_ERROR);
    expect(result.failureFacts).toEqual({ jsonRpcCode: THROWS_CODE });
    const refused = await tool('slow').execute({ ms: 'soon' });
    expect(refused.failureCause).toBe(ToolFailureCause.INVALID_ARGUMENTS);
    expect(refused.failureFacts).toEqual({ jsonRpcCode: -32602 });
  });

  it('a crashed process: the SDK says the connection closed', async () => {
    const result = await tool('crash').execute({});
    expect(result.outcome).toBe(ToolOutcome.FAILED);
    expect(result.failureCause).toBe(ToolFailureCause.TRANSPORT_FAILURE);
    expect(result.failureFacts).toEqual({ errorClass: 'CONNECTION_CLOSED' });
  });

  it('a cancelled call has no facts', async () => {
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    expect((await tool('slow').execute({ ms: 10 }, { signal: controller.signal })).failureFacts).toBeNull();
  });
});

describe('McpTool failure facts over HTTP', () => {
  let http: HttpFixture;
  let registry: McpServerRegistry;
  let echo: McpTool;

  beforeAll(async () => {
    http = await startHttpFixture();
    registry = McpServerRegistry.create([http.config({ id: 'web', deadlineMs: 3000 })]);
    await registry.tools();
    echo = registry.tool('mcp_web_echo')!;
    expect((await echo.execute({ text: 'up' })).outcome).toBe(ToolOutcome.OK);
  });
  afterAll(async () => {
    await registry.close();
    await http.stop();
  });

  /** Something else answers on the fixture's port, until the returned function closes it. */
  const replace = async (handler: (res: ServerResponse) => void) => {
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => handler(res));
    });
    await new Promise<void>((resolve) => server.listen(http.port, '127.0.0.1', resolve));
    return () =>
      new Promise<void>((resolve) => {
        server.close(() => setTimeout(resolve, 50));
        server.closeAllConnections();
      });
  };

  it('an HTTP status: the status, and a reset connection: ECONNRESET', async () => {
    await http.stop();
    let close = await replace((res) => res.writeHead(503, { 'content-type': 'text/plain' }).end('down for maintenance'));
    const status = await echo.execute({ text: 'x' });
    expect(status.failureCause).toBe(ToolFailureCause.HTTP_STATUS);
    expect(status.failureFacts).toEqual({ httpStatus: 503 });
    await close();

    close = await replace((res) => res.socket?.destroy());
    const reset = await echo.execute({ text: 'x' });
    expect(reset.outcome).toBe(ToolOutcome.FAILED);
    expect(reset.failureCause).toBe(ToolFailureCause.TRANSPORT_FAILURE);
    // The socket's reset (ECONNRESET), or — when the MCP SDK's close of the transport reaches the
    // pending call before the socket's error does (a race a loaded machine shows) — its
    // CONNECTION_CLOSED: both name the broken connection, never a class the server did not cause.
    expect(['ECONNRESET', 'CONNECTION_CLOSED']).toContain(reset.failureFacts?.errorClass);
    await close();
  });
});
