import { createServer, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InMemoryTransport } from '@modelcontextprotocol/client';
import { Server } from '@modelcontextprotocol/server';
import { ToolOutcome } from '@runledger/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { McpHealthContact } from './McpHealthContact.js';
import type { McpServerConfig } from './McpServerConfig.js';
import { McpServerRegistry } from './McpServerRegistry.js';
import { MCP_LOCAL_TOOL_NAME_PATTERN, MCP_TOOL_IMPORT_LIMITS } from './McpToolImportLimits.js';
import { parseServerConfig } from './parseServerConfig.js';
import {
  inMemoryFixture,
  isProcessAlive,
  newEventsFile,
  readEvents,
  startHttpFixture,
  stdioFixtureConfig,
  waitFor,
} from './testing/fixtures.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});
function track(registry: McpServerRegistry): McpServerRegistry {
  cleanups.push(() => registry.close());
  return registry;
}

/** An in-memory server whose tools/list answers `pages` pages of the given tool names. */
function pagedServerFactory(pagesById: Record<string, string[][]>) {
  let listCalls = 0;
  return {
    get listCalls() {
      return listCalls;
    },
    transportFactory(config: McpServerConfig) {
      const pages = pagesById[config.id] ?? [[]];
      const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
      const server = new Server({ name: 'paged', version: '1.0.0' }, { capabilities: { tools: {} } });
      server.setRequestHandler('tools/list', async (request) => {
        listCalls++;
        const index = request.params?.cursor === undefined ? 0 : Number(request.params.cursor);
        const names = pages[index] ?? [];
        return {
          tools: names.map((name) => ({ name, description: `tool ${name}`, inputSchema: { type: 'object' as const } })),
          ...(index + 1 < pages.length && { nextCursor: String(index + 1) }),
        };
      });
      server.setRequestHandler('tools/call', async (request) => ({
        content: [{ type: 'text' as const, text: `called ${request.params.name}` }],
      }));
      void server.connect(serverEnd);
      return clientEnd;
    },
  };
}

const memoryConfig = (id: string, deadlineMs = 2000) => stdioFixtureConfig({ id, deadlineMs });

describe('McpServerRegistry: importing tools', () => {
  it('walks pagination up to 50 pages and 500 tools', async () => {
    expect(MCP_TOOL_IMPORT_LIMITS).toEqual({ maxPages: 50, maxTools: 500 });
    const fifty = Array.from({ length: 50 }, (_, p) => Array.from({ length: 10 }, (_, t) => `t${p}_${t}`));
    const paged = pagedServerFactory({ big: fifty });
    const registry = track(McpServerRegistry.create([memoryConfig('big')], { transportFactory: paged.transportFactory }));
    const tools = await registry.tools();
    expect(tools).toHaveLength(500);
    expect(paged.listCalls).toBe(50);
    expect(registry.serverProblems).toEqual([]);
    const result = await tools[499]!.execute({});
    expect(result.content).toBe('called t49_9');
  });

  it('refuses a server with more than 50 pages or more than 500 tools, and keeps the others', async () => {
    const fiftyOne = Array.from({ length: 51 }, (_, p) => [`p${p}`]);
    const tooMany = [Array.from({ length: 501 }, (_, t) => `t${t}`)];
    const paged = pagedServerFactory({ pages: fiftyOne, many: tooMany, fine: [['a', 'b']] });
    const registry = track(
      McpServerRegistry.create([memoryConfig('pages'), memoryConfig('many'), memoryConfig('fine')], {
        transportFactory: paged.transportFactory,
      }),
    );
    const tools = await registry.tools();
    expect(tools.map((t) => t.name)).toEqual(['mcp_fine_a', 'mcp_fine_b']);
    expect(registry.serverProblems).toEqual([
      { server: 'pages', reason: 'refused: the server lists its tools on more than 50 pages' },
      { server: 'many', reason: 'refused: the server lists 501 tools, more than the limit of 500' },
    ]);
  });

  it('skips a tool whose local name does not fit, with the reason, and never renames it', async () => {
    const long = 'x'.repeat(60);
    const paged = pagedServerFactory({ a: [['ok-tool', 'has space', long, 'dup', 'dup', 'b_c']], a_b: [['c']] });
    const registry = track(
      McpServerRegistry.create([memoryConfig('a'), memoryConfig('a_b')], { transportFactory: paged.transportFactory }),
    );
    const tools = await registry.tools();
    expect(tools.map((t) => t.name)).toEqual(['mcp_a_ok-tool', 'mcp_a_dup', 'mcp_a_b_c']);
    expect(tools.every((t) => MCP_LOCAL_TOOL_NAME_PATTERN.test(t.name))).toBe(true);
    expect(registry.skippedTools).toEqual([
      {
        server: 'a',
        remoteName: 'has space',
        reason: 'local name "mcp_a_has space" must match ^[a-zA-Z0-9_-]{1,64}$ (only letters, digits, "_" and "-")',
      },
      { server: 'a', remoteName: long, reason: `local name "mcp_a_${long}" must match ^[a-zA-Z0-9_-]{1,64}$ (it has 66 characters)` },
      { server: 'a', remoteName: 'dup', reason: 'the server lists the tool "dup" more than once' },
      { server: 'a_b', remoteName: 'c', reason: 'local name "mcp_a_b_c" is already taken by the tool "b_c" of server "a"' },
    ]);
  });

  it('lists once, again on refresh, and honours an aborted signal', async () => {
    const paged = pagedServerFactory({ s: [['one']] });
    const registry = track(McpServerRegistry.create([memoryConfig('s')], { transportFactory: paged.transportFactory }));
    const first = await registry.tools();
    expect(await registry.tools()).toBe(first);
    expect(paged.listCalls).toBe(1);
    await registry.tools({ refresh: true });
    expect(paged.listCalls).toBe(2);
    expect(registry.tool('mcp_s_one')?.remoteName).toBe('one');
    const controller = new AbortController();
    const reason = new Error('stop listing');
    controller.abort(reason);
    await expect(registry.tools({ signal: controller.signal, refresh: true })).rejects.toBe(reason);
  });

  it('carries the approval flag onto the tools', async () => {
    const memory = inMemoryFixture();
    const registry = track(
      McpServerRegistry.create([memory.config({ id: 'guarded', requiresApproval: true })], { transportFactory: memory.transportFactory }),
    );
    const tools = await registry.tools();
    expect(tools.length).toBeGreaterThan(0);
    expect(tools.every((t) => t.requiresApproval)).toBe(true);
  });
});

describe('McpServerRegistry: sessions', () => {
  it('reuses one connection per server across calls and tools', async () => {
    const memory = inMemoryFixture();
    const registry = track(McpServerRegistry.create([memory.config({ id: 'm' })], { transportFactory: memory.transportFactory }));
    await registry.tools();
    await Promise.all([registry.tool('mcp_m_echo')!.execute({ text: 'a' }), registry.tool('mcp_m_fail')!.execute({})]);
    await registry.tool('mcp_m_echo')!.execute({ text: 'b' });
    expect(memory.connections).toBe(1);
  });

  it('a stdio server: one child for many calls, a new child after a crash, none after close()', async () => {
    const events = newEventsFile();
    const registry = track(McpServerRegistry.create([stdioFixtureConfig({ id: 'kid', eventsFile: events })]));
    await registry.tools();
    for (const text of ['a', 'b', 'c']) {
      expect((await registry.tool('mcp_kid_echo')!.execute({ text })).outcome).toBe(ToolOutcome.OK);
    }
    const started = () => readEvents(events).filter((e) => e.event === 'server_started');
    expect(started()).toHaveLength(1);
    const firstPid = started()[0]!.pid;

    const crashed = await registry.tool('mcp_kid_crash')!.execute({});
    expect(crashed.outcome).toBe(ToolOutcome.FAILED);
    // The message carries the server's last words from stderr.
    expect(crashed.content).toMatch(
      /^MCP server "kid" transport failed: the connection closed before the server answered \(.*server stderr: fixture: crashing on purpose\)$/,
    );
    expect(await waitFor(() => !isProcessAlive(firstPid))).toBe(true);
    expect((await registry.tool('mcp_kid_echo')!.execute({ text: 'back' })).content).toBe('back');
    expect(started()).toHaveLength(2);
    const secondPid = started()[1]!.pid;
    expect(secondPid).not.toBe(firstPid);
    expect(isProcessAlive(secondPid)).toBe(true);

    // A call in flight while the registry closes ends cancelled — our own side gave it up, so it
    // is never charged to the server — and no child is left behind.
    const inFlight = registry.tool('mcp_kid_slow')!.execute({ ms: 5000, tag: 'closing' });
    await waitFor(() => readEvents(events).some((e) => e.tag === 'closing'));
    await registry.close();
    expect(registry.closed).toBe(true);
    const given = await inFlight;
    expect(given.outcome).toBe(ToolOutcome.CANCELLED);
    expect(given.failureCause).toBeNull();
    expect(given.content).toBe(
      'MCP server "kid": the call of "slow" was cancelled by the caller; whether the server already acted on it is not known',
    );
    expect(await waitFor(() => !isProcessAlive(secondPid))).toBe(true);

    // A call after close() is never sent: cancelled as well, not a failure of the server.
    const after = await registry.tool('mcp_kid_echo')!.execute({ text: 'x' });
    expect(after.outcome).toBe(ToolOutcome.CANCELLED);
    expect(after.content).toBe(
      'MCP server "kid": the call of "echo" was cancelled by the caller; whether the server already acted on it is not known',
    );
    expect(started()).toHaveLength(2);
  });

  it('a command that cannot start is a failed listing, not a crash', async () => {
    const [config] = parseServerConfig({
      servers: [{ id: 'nope', transport: { type: 'stdio', command: '/nonexistent/runledger-mcp-server' } }],
    });
    const registry = track(McpServerRegistry.create([config!]));
    expect(await registry.tools()).toEqual([]);
    expect(registry.serverProblems).toEqual([
      { server: 'nope', reason: expect.stringMatching(/^MCP server "nope" transport failed: .*ENOENT/) },
    ]);
  });
});

describe('McpServerRegistry: health contacts', () => {
  it('a throwing callback does not change the outcome', async () => {
    const memory = inMemoryFixture();
    const seen: McpHealthContact[] = [];
    const registry = track(
      McpServerRegistry.create([memory.config({ id: 'h' })], {
        transportFactory: memory.transportFactory,
        onHealthContact: (contact) => {
          seen.push(contact);
          throw new Error('callback broke');
        },
      }),
    );
    await registry.tools();
    const result = await registry.tool('mcp_h_echo')!.execute({ text: 'still ok' });
    expect(result.outcome).toBe(ToolOutcome.OK);
    expect(seen).toHaveLength(1);
    expect(Object.isFrozen(seen[0])).toBe(true);
  });
});

describe('McpServerRegistry: an answer racing the abort (in memory, delivery held back)', () => {
  async function raced(order: 'abort-first' | 'answer-first') {
    let release: (() => void) | undefined;
    const memory = inMemoryFixture({
      intercept: (message, deliver) => {
        const content = (message as { result?: { content?: { text?: string }[] } }).result?.content;
        if (content?.[0]?.text === 'slept 1 ms') release = deliver;
        else deliver();
      },
    });
    const contacts: McpHealthContact[] = [];
    const registry = track(
      McpServerRegistry.create([memory.config({ id: 'r' })], {
        transportFactory: memory.transportFactory,
        onHealthContact: (c) => contacts.push(c),
      }),
    );
    await registry.tools();
    const controller = new AbortController();
    const pending = registry.tool('mcp_r_slow')!.execute({ ms: 1 }, { signal: controller.signal });
    expect(await waitFor(() => release !== undefined)).toBe(true);
    if (order === 'abort-first') {
      controller.abort();
      release!();
    } else {
      release!();
      controller.abort();
    }
    return { result: await pending, contacts };
  }

  it('abort first: cancelled, and the answer that arrives afterwards changes nothing', async () => {
    const { result, contacts } = await raced('abort-first');
    expect(result.outcome).toBe(ToolOutcome.CANCELLED);
    expect(contacts).toEqual([]);
  });

  it('answer first: ok, and the abort that comes afterwards changes nothing', async () => {
    const { result, contacts } = await raced('answer-first');
    expect(result.outcome).toBe(ToolOutcome.OK);
    expect(result.content).toBe('slept 1 ms');
    expect(contacts).toHaveLength(1);
  });
});

describe('McpServerRegistry over HTTP: credentials and HTTP faults', () => {
  it('sends the bearer token read from the named variable, and refuses a missing one', async () => {
    const http = await startHttpFixture({ expectBearer: 's3cret' });
    cleanups.push(() => http.stop());
    const good = track(
      McpServerRegistry.create([http.config({ id: 'auth', bearerTokenEnv: 'FIXTURE_TOKEN' })], { env: { FIXTURE_TOKEN: 's3cret' } }),
    );
    await good.tools();
    expect((await good.tool('mcp_auth_echo')!.execute({ text: 'in' })).content).toBe('in');

    const missing = track(McpServerRegistry.create([http.config({ id: 'auth', bearerTokenEnv: 'FIXTURE_TOKEN' })], { env: {} }));
    expect(await missing.tools()).toEqual([]);
    expect(missing.serverProblems).toEqual([
      { server: 'auth', reason: 'MCP server "auth" needs a credential in the environment variable FIXTURE_TOKEN, which is not set' },
    ]);

    const wrong = track(
      McpServerRegistry.create([http.config({ id: 'auth', bearerTokenEnv: 'FIXTURE_TOKEN' })], { env: { FIXTURE_TOKEN: 'nope' } }),
    );
    await wrong.tools();
    expect(wrong.serverProblems).toEqual([
      { server: 'auth', reason: 'MCP server "auth" answered with HTTP status 401: {"error":"unauthorized"}' },
    ]);
  });

  async function rawServer(handler: (res: ServerResponse) => void): Promise<string> {
    const server: HttpServer = createServer((req, res) => {
      req.resume();
      req.on('end', () => handler(res));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    );
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  }

  const httpConfig = (id: string, url: string) =>
    parseServerConfig({ servers: [{ id, transport: { type: 'http', url }, deadlineMs: 2000 }] })[0]!;

  it('an HTTP error status, an unsupported content type and a refused connection each end failed', async () => {
    const status = await rawServer((res) => res.writeHead(503, { 'content-type': 'text/plain' }).end('down for maintenance'));
    const html = await rawServer((res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>'));
    const refusedUrl = await (async () => {
      const probe = createServer();
      await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
      const port = (probe.address() as AddressInfo).port;
      await new Promise<void>((resolve) => probe.close(() => resolve()));
      return `http://127.0.0.1:${port}/mcp`;
    })();
    const registry = track(
      McpServerRegistry.create([httpConfig('status', status), httpConfig('html', html), httpConfig('refused', refusedUrl)]),
    );
    expect(await registry.tools()).toEqual([]);
    const reasons = Object.fromEntries(registry.serverProblems.map((p) => [p.server, p.reason]));
    expect(reasons.status).toBe('MCP server "status" answered with HTTP status 503: down for maintenance');
    expect(reasons.html).toBe('MCP server "html" answered with unsupported content type "text/html"');
    expect(reasons.refused).toMatch(/^MCP server "refused" transport failed: connect ECONNREFUSED 127.0.0.1:\d+$/);
  });

  it('execute() over HTTP: a status, a content type and a refused connection each end failed, and no contact', async () => {
    const http = await startHttpFixture();
    cleanups.push(() => http.stop());
    const contacts: McpHealthContact[] = [];
    const registry = track(
      McpServerRegistry.create([http.config({ id: 'web', deadlineMs: 3000 })], { onHealthContact: (c) => contacts.push(c) }),
    );
    await registry.tools();
    const echo = registry.tool('mcp_web_echo')!;
    expect((await echo.execute({ text: 'up' })).outcome).toBe(ToolOutcome.OK);
    expect(contacts).toHaveLength(1);

    // The server goes away; something else answers on its port.
    await http.stop();
    const replace = async (handler: (res: ServerResponse) => void) => {
      const server = createServer((req, res) => {
        req.resume();
        req.on('end', () => handler(res));
      });
      await new Promise<void>((resolve) => server.listen(http.port, '127.0.0.1', resolve));
      // Closing it closes its keep-alive connections; the client is given the moment it needs to see
      // that (a tools/call written to a connection that then breaks is never sent again).
      return () =>
        new Promise<void>((resolve) => {
          server.close(() => setTimeout(resolve, 50));
          server.closeAllConnections();
        });
    };
    let close = await replace((res) => res.writeHead(502, { 'content-type': 'text/plain' }).end('bad gateway'));
    const status = await echo.execute({ text: 'x' });
    expect(status.outcome).toBe(ToolOutcome.FAILED);
    expect(status.content).toBe('MCP server "web" answered with HTTP status 502: bad gateway');
    await close();

    close = await replace((res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>'));
    const html = await echo.execute({ text: 'x' });
    expect(html.outcome).toBe(ToolOutcome.FAILED);
    expect(html.content).toBe('MCP server "web" answered with unsupported content type "text/html"');
    await close();

    const refused = await echo.execute({ text: 'x' });
    expect(refused.outcome).toBe(ToolOutcome.FAILED);
    expect(refused.content).toMatch(/^MCP server "web" transport failed: .*ECONNREFUSED/);
    expect(contacts).toHaveLength(1);

    // And back: the next call reconnects.
    await http.restart();
    expect((await echo.execute({ text: 'back' })).content).toBe('back');
  });
});
