#!/usr/bin/env node
// A real MCP server built with the official server SDK, for the tests and benchmarks of
// @runledger/mcp. Not part of the published build.
//
//   node fixture-server.mjs                       serve over stdio (the parent is the client)
//   node fixture-server.mjs --http [--port N]     serve Streamable HTTP on 127.0.0.1 (port 0 = random);
//                                                 prints `listening <port>` on stdout when ready
//   [--expect-bearer TOKEN]                       (http) answer 401 unless `Authorization: Bearer TOKEN`
//   [--stateless]                                 serve MCP 2026-07-28 (stateless: `server/discover`, no
//                                                 `initialize`, no session) through the server SDK's own
//                                                 entries (stdio: serveStdio; http: createMcpHandler, every
//                                                 answer on an SSE stream), 2025-era clients as the SDK does
//
// Environment: FIXTURE_EVENTS_FILE — a file that receives one JSON line per event the server
// wants the tests to see (e.g. `{"tool":"slow","event":"cancelled","tag":"a"}`), so a test can
// prove that `notifications/cancelled` reached the server and stopped the call.
//
// FIXTURE_MODE=stuck — a server that never answers `initialize` and ignores both the end of its
// stdin and SIGTERM (only SIGKILL ends it): the worst child a client can have.
//
// A stdio server that gets a SIGINT reports it (`{"event":"sigint"}`), then exits.
//
// FIXTURE_MODE=mute — a server that starts, never writes a byte and exits after MUTE_EXIT_MS: a
// start that hangs, then fails.
//
// With --stateless the server also reports each notification it receives (`{"event":"notification",
// "method":…}`), so a test can prove that a cancel over HTTP sent none.
//
// Tools: echo, fail, throws, slow, hang, crash, late, reset, drop, huge, big, mixed, meta, malformed.
import { appendFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { McpServer, ProtocolError, isInitializeRequest } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { vanishingSockets } from './vanishingSockets.mjs';

/** The text the `malformed` tool answers with; a transport wrapper turns that answer into garbage. */
export const MALFORMED_MARKER = '__runledger_fixture_malformed__';
/** The message of the `throws` tool; a transport wrapper turns that answer into a JSON-RPC error. */
export const THROWS_MESSAGE = 'the fixture threw on purpose';
/** The JSON-RPC error code the `throws` tool answers with. */
export const THROWS_CODE = -32001;
/**
 * The start of the SDK's answer to arguments that fail the `slow` tool's input schema; a
 * transport wrapper sends that answer as the JSON-RPC error `-32602`, as servers before spec
 * 2025-11-25 (SEP-1303) do. The `echo` tool's refusal goes out as the SDK makes it (`isError`).
 */
export const SLOW_INVALID_ARGUMENTS = 'Input validation error: Invalid arguments for tool slow';
/** (FIXTURE_MODE=mute) How long the server lives, writing nothing, before it exits with code 1. */
export const MUTE_EXIT_MS = 300;
/** Size of the `big` tool's text, in characters (ASCII, so also bytes). */
export const BIG_TEXT_LENGTH = 2 * 1024 * 1024;
/** How many calls each `drop` tag has seen, over every server instance of this process. */
const dropCalls = new Map();
/** A 1×1 transparent PNG. */
const PNG_1X1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

function report(eventsFile, event) {
  const line = JSON.stringify({ pid: process.pid, at: Date.now(), ...event });
  if (eventsFile) appendFileSync(eventsFile, `${line}\n`);
}

function wait(ms, signal) {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Makes the fixture McpServer.
 *
 * @param {{ eventsFile?: string, onCrash?: () => void, onReset?: () => void, onVanish?: () => void }} [options] `onCrash`
 *   replaces the process exit of the `crash` tool (the in-memory transport closes its link
 *   instead); `onReset` is what the `reset` tool does mid-call (over HTTP: destroy the socket of
 *   its POST; by default the same as `crash`); `onVanish` is what the `vanish` tool does once it has
 *   run (over HTTP: destroy the socket of its POST before any byte of the answer; by default the
 *   same as `crash`).
 */
/** How often the `vanish` tool ran per tag, across the servers of one process (a stateless server is made per request). */
const vanishRuns = new Map();

export function createFixtureServer(options = {}) {
  const eventsFile = options.eventsFile ?? process.env.FIXTURE_EVENTS_FILE;
  const onCrash =
    options.onCrash ??
    (() => {
      process.stderr.write('fixture: crashing on purpose\n');
      process.exit(3);
    });
  const server = new McpServer({ name: 'runledger-fixture', version: '1.0.0' }, { capabilities: { tools: {} } });

  server.registerTool(
    'echo',
    {
      description: 'Answers with the text it was given.',
      inputSchema: z.object({ text: z.string() }),
      outputSchema: z.object({ echoed: z.string(), length: z.number() }),
    },
    async ({ text }) => ({
      content: [{ type: 'text', text }],
      structuredContent: { echoed: text, length: text.length },
    }),
  );

  server.registerTool('fail', { description: 'Answers with isError: true.' }, async () => ({
    isError: true,
    content: [{ type: 'text', text: 'the fixture failed on purpose' }],
  }));

  server.registerTool('throws', { description: 'Answers with a JSON-RPC error.' }, async () => {
    // McpServer turns any throw into an `isError` result; withWireFaults() sends this one as the
    // JSON-RPC error it is meant to be.
    throw new ProtocolError(THROWS_CODE, THROWS_MESSAGE);
  });

  server.registerTool(
    'slow',
    {
      description: 'Waits `ms` milliseconds, honouring cancellation, and reports whether it was cancelled.',
      inputSchema: z.object({ ms: z.number().int().min(0), tag: z.string().optional() }),
    },
    async ({ ms, tag }, ctx) => {
      report(eventsFile, { tool: 'slow', event: 'started', tag });
      const finished = await wait(ms, ctx.mcpReq.signal);
      report(eventsFile, { tool: 'slow', event: finished ? 'completed' : 'cancelled', tag });
      if (!finished) process.stderr.write(`fixture: slow ${tag ?? ''} cancelled\n`);
      return { content: [{ type: 'text', text: finished ? `slept ${ms} ms` : 'cancelled' }] };
    },
  );

  server.registerTool(
    'hang',
    { description: 'Never answers.', inputSchema: z.object({ tag: z.string().optional() }) },
    async ({ tag }, ctx) => {
      report(eventsFile, { tool: 'hang', event: 'started', tag });
      await new Promise((resolve) => {
        ctx.mcpReq.signal.addEventListener('abort', () => {
          report(eventsFile, { tool: 'hang', event: 'cancelled', tag });
          // Still never answers: the client must not need an answer to finish.
        });
        void resolve;
      });
      return { content: [] };
    },
  );

  server.registerTool('crash', { description: 'The server process exits mid-call.' }, async () => {
    report(eventsFile, { tool: 'crash', event: 'crashing' });
    setTimeout(onCrash, 5);
    await new Promise(() => {});
    return { content: [] };
  });

  server.registerTool(
    'late',
    {
      description: 'Ignores cancellation: answers after `ms` milliseconds whatever happened meanwhile.',
      inputSchema: z.object({ ms: z.number().int().min(0), tag: z.string().optional() }),
    },
    async ({ ms, tag }) => {
      report(eventsFile, { tool: 'late', event: 'started', tag });
      await new Promise((resolve) => setTimeout(resolve, ms));
      report(eventsFile, { tool: 'late', event: 'answered', tag });
      return { content: [{ type: 'text', text: `late by ${ms} ms` }] };
    },
  );

  server.registerTool(
    'reset',
    {
      description: 'The connection breaks mid-call (HTTP: the socket of this call is destroyed).',
      inputSchema: z.object({ tag: z.string().optional() }),
    },
    async ({ tag }) => {
      report(eventsFile, { tool: 'reset', event: 'started', tag });
      setTimeout(options.onReset ?? onCrash, 5);
      await new Promise(() => {});
      return { content: [] };
    },
  );

  server.registerTool(
    'vanish',
    {
      description:
        'Writes (reports `executed` with its run count per tag), then the connection closes before any byte of the answer (HTTP: the socket of its POST is destroyed).',
      inputSchema: z.object({ tag: z.string() }),
    },
    async ({ tag }) => {
      const run = (vanishRuns.get(tag) ?? 0) + 1;
      vanishRuns.set(tag, run);
      report(eventsFile, { tool: 'vanish', event: 'executed', tag, run });
      setTimeout(options.onVanish ?? onCrash, 1);
      await new Promise(() => {});
      return { content: [] };
    },
  );

  server.registerTool(
    'drop',
    {
      annotations: { readOnlyHint: false, idempotentHint: true },
      description:
        'The first `times` calls with a tag lose their stream mid-call (HTTP: the socket of the POST is destroyed); a later call with the tag answers with its attempt number.',
      inputSchema: z.object({ tag: z.string(), times: z.number().int().min(0) }),
    },
    async ({ tag, times }) => {
      const attempt = (dropCalls.get(tag) ?? 0) + 1;
      dropCalls.set(tag, attempt);
      report(eventsFile, { tool: 'drop', event: 'started', tag, attempt });
      if (attempt > times) return { content: [{ type: 'text', text: `answered on attempt ${attempt}` }] };
      setTimeout(options.onReset ?? onCrash, 5);
      await new Promise(() => {});
      return { content: [] };
    },
  );

  server.registerTool(
    'huge',
    {
      description: 'Answers with `bytes` characters of text (ASCII).',
      inputSchema: z.object({ bytes: z.number().int().min(0) }),
    },
    async ({ bytes }) => ({ content: [{ type: 'text', text: 'x'.repeat(bytes) }] }),
  );

  server.registerTool('big', { description: 'Answers with 2 MB of text.' }, async () => ({
    content: [{ type: 'text', text: 'x'.repeat(BIG_TEXT_LENGTH) }],
  }));

  server.registerTool('mixed', { description: 'Answers with text, image and resource blocks.' }, async () => ({
    content: [
      { type: 'text', text: 'first text' },
      { type: 'image', data: PNG_1X1, mimeType: 'image/png' },
      { type: 'resource', resource: { uri: 'fixture://notes/1', mimeType: 'text/plain', text: 'embedded note' } },
      { type: 'text', text: 'second text' },
    ],
  }));

  server.registerTool(
    'meta',
    {
      description: 'Reports the `_meta` of its request (with the request id and session id) as an event, and answers ok.',
      inputSchema: z.object({ tag: z.string().optional() }),
    },
    async ({ tag }, ctx) => {
      report(eventsFile, {
        tool: 'meta',
        event: 'received',
        tag,
        meta: ctx.mcpReq._meta ?? null,
        requestId: ctx.mcpReq.id,
        sessionId: ctx.sessionId ?? null,
      });
      return { content: [{ type: 'text', text: 'reported' }] };
    },
  );

  server.registerTool('malformed', { description: 'Its answer is turned into an invalid result on the wire.' }, async () => ({
    content: [{ type: 'text', text: MALFORMED_MARKER }],
  }));

  return server;
}

/**
 * Wraps a server transport for the two wire faults McpServer cannot make itself: an answer
 * carrying {@link MALFORMED_MARKER} goes out as a result whose `content` is not an array (a
 * malformed tools/call result), the `throws` tool's answer goes out as a JSON-RPC error, and the
 * `slow` tool's input validation error goes out as the JSON-RPC error -32602.
 */
export function withWireFaults(transport) {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    const content = message?.result?.content;
    if (Array.isArray(content) && content[0]?.text === MALFORMED_MARKER) {
      message = { ...message, result: { content: 'not an array', isError: 'maybe' } };
    } else if (message?.result?.isError === true && Array.isArray(content) && content[0]?.text?.includes(THROWS_MESSAGE)) {
      message = { jsonrpc: '2.0', id: message.id, error: { code: THROWS_CODE, message: THROWS_MESSAGE } };
    } else if (message?.result?.isError === true && Array.isArray(content) && content[0]?.text?.startsWith(SLOW_INVALID_ARGUMENTS)) {
      message = { jsonrpc: '2.0', id: message.id, error: { code: -32602, message: content[0].text } };
    }
    return send(message, options);
  };
  return transport;
}

/** Drops the answer to `initialize`, so that the handshake never completes. */
function withoutInitializeAnswer(transport) {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => (message?.result?.protocolVersion !== undefined ? Promise.resolve() : send(message, options));
  return transport;
}

async function serveStdioMain() {
  if (process.env.FIXTURE_MODE === 'mute') {
    // Starts, writes nothing, and exits: a connect to it fails once the process is gone.
    report(process.env.FIXTURE_EVENTS_FILE, { event: 'server_started', transport: 'stdio', mode: 'mute' });
    setTimeout(() => process.exit(1), MUTE_EXIT_MS);
    return;
  }
  const { StdioServerTransport } = await import('@modelcontextprotocol/server/stdio');
  const stuck = process.env.FIXTURE_MODE === 'stuck';
  // A SIGINT (a Ctrl+C in the terminal of its process group) ends the server, as by default, said.
  process.once('SIGINT', () => {
    report(process.env.FIXTURE_EVENTS_FILE, { event: 'sigint' });
    process.exit(130);
  });
  const server = createFixtureServer();
  let transport = withWireFaults(new StdioServerTransport());
  if (stuck) {
    transport = withoutInitializeAnswer(transport);
    process.on('SIGTERM', () => report(process.env.FIXTURE_EVENTS_FILE, { event: 'sigterm_ignored' }));
    // Keeps the process alive after stdin ends.
    setInterval(() => {}, 60_000);
  } else {
    transport.onclose = () => process.exit(0);
    process.stdin.on('end', () => process.exit(0));
  }
  await server.connect(transport);
  report(process.env.FIXTURE_EVENTS_FILE, { event: 'server_started', transport: 'stdio', mode: process.env.FIXTURE_MODE ?? 'normal' });
}

async function serveHttpMain(port, expectBearer) {
  const { NodeStreamableHTTPServerTransport } = await import('@modelcontextprotocol/node');
  /** @type {Map<string, any>} */
  const sessions = new Map();
  /** The sockets of the POSTs carrying a `reset` call, destroyed when the tool says so. */
  const resetSockets = new Set();
  const onReset = () => {
    for (const socket of resetSockets) socket.destroy();
    resetSockets.clear();
  };
  const vanishing = vanishingSockets();
  /** Answers one HTTP request; every failure becomes a 500, so the promise never rejects. */
  const answer = async (req, res) => {
    try {
      if (expectBearer !== undefined && req.headers.authorization !== `Bearer ${expectBearer}`) {
        res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'unauthorized' }));
        return;
      }
      const chunks = [];
      for await (const chunk of req) chunks.push(chunk);
      const raw = Buffer.concat(chunks).toString('utf8');
      const body = raw === '' ? undefined : JSON.parse(raw);
      const sessionId = req.headers['mcp-session-id'];
      let transport = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
      if (transport === undefined) {
        if (req.method !== 'POST' || !isInitializeRequest(body)) {
          res
            .writeHead(404, { 'content-type': 'application/json' })
            .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }));
          return;
        }
        transport = withWireFaults(
          new NodeStreamableHTTPServerTransport({
            sessionIdGenerator: () => randomUUID(),
            onsessioninitialized: (id) => sessions.set(id, transport),
          }),
        );
        transport.onclose = () => {
          if (transport.sessionId) sessions.delete(transport.sessionId);
        };
        await createFixtureServer({ onReset, onVanish: vanishing.destroy }).connect(transport);
      }
      if (body?.method === 'tools/call' && body.params?.name === 'reset') resetSockets.add(req.socket);
      if (body?.method === 'tools/call' && body.params?.name === 'vanish') vanishing.hold(req.socket, process.env.FIXTURE_EVENTS_FILE);
      await transport.handleRequest(req, res, body);
    } catch (error) {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    }
  };
  const http = createServer((req, res) => {
    req.socket.requestsServed = (req.socket.requestsServed ?? 0) + 1;
    void answer(req, res);
  });
  http.listen(port, '127.0.0.1', () => {
    process.stdout.write(`listening ${http.address().port}\n`);
  });
}

/** Reports every notification the transport receives (the server SDK sets `onmessage` on it). */
function withNotificationLog(transport, eventsFile) {
  let handler;
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    get: () =>
      handler === undefined
        ? undefined
        : (message, extra) => {
            if (message?.id === undefined && typeof message?.method === 'string')
              report(eventsFile, { event: 'notification', method: message.method });
            handler(message, extra);
          },
    set: (value) => {
      handler = value;
    },
  });
  return transport;
}

/** (--stateless) Serves MCP 2026-07-28 over stdio through the server SDK's serveStdio. */
async function serveStatelessStdioMain() {
  const { StdioServerTransport, serveStdio } = await import('@modelcontextprotocol/server/stdio');
  const eventsFile = process.env.FIXTURE_EVENTS_FILE;
  process.stdin.on('end', () => process.exit(0));
  serveStdio(() => createFixtureServer(), { transport: withNotificationLog(new StdioServerTransport(), eventsFile) });
  report(eventsFile, { event: 'server_started', transport: 'stdio', mode: 'stateless' });
}

/** (--stateless) Serves MCP 2026-07-28 over Streamable HTTP through the server SDK's createMcpHandler. */
async function serveStatelessHttpMain(port) {
  const [{ createMcpHandler }, { toNodeHandler }] = await Promise.all([
    import('@modelcontextprotocol/server'),
    import('@modelcontextprotocol/node'),
  ]);
  const eventsFile = process.env.FIXTURE_EVENTS_FILE;
  /**
   * The POSTs carrying a `reset` or `drop` call, whose sockets are destroyed when the tool says so:
   * once the response stream has started (its headers are out), so that it is the stream that
   * breaks, not a request that the client could take for one that never arrived.
   */
  const breakable = new Set();
  const onReset = () => {
    for (const entry of breakable) {
      if (entry.streaming) entry.socket.destroy();
      else entry.armed = true;
    }
    breakable.clear();
  };
  const breakableStream = (req, res) => {
    const entry = { socket: req.socket, streaming: false, armed: false };
    const writeHead = res.writeHead.bind(res);
    res.writeHead = (...args) => {
      const result = writeHead(...args);
      res.flushHeaders();
      entry.streaming = true;
      if (entry.armed) setImmediate(() => entry.socket.destroy());
      return result;
    };
    breakable.add(entry);
  };
  const vanishing = vanishingSockets();
  // Every answer on an SSE stream: the stream a cancel closes and a fault breaks.
  const handler = toNodeHandler(
    createMcpHandler(() => createFixtureServer({ onReset, onVanish: vanishing.destroy }), { responseMode: 'sse' }),
  );
  const answer = async (req, res) => {
    try {
      const chunks = [];
      for await (const chunk of req) chunks.push(chunk);
      const raw = Buffer.concat(chunks).toString('utf8');
      const body = raw === '' ? undefined : JSON.parse(raw);
      if (body?.id === undefined && typeof body?.method === 'string') report(eventsFile, { event: 'notification', method: body.method });
      const name = body?.method === 'tools/call' ? body.params?.name : undefined;
      if (name === 'reset' || name === 'drop') breakableStream(req, res);
      if (name === 'vanish') vanishing.hold(req.socket, eventsFile);
      await handler(req, res, body);
    } catch (error) {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    }
  };
  const http = createServer((req, res) => {
    req.socket.requestsServed = (req.socket.requestsServed ?? 0) + 1;
    void answer(req, res);
  });
  http.listen(port, '127.0.0.1', () => {
    process.stdout.write(`listening ${http.address().port}\n`);
  });
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isMain) {
  const args = process.argv.slice(2);
  const flag = (name) => {
    const index = args.indexOf(name);
    return index === -1 ? undefined : args[index + 1];
  };
  const stateless = args.includes('--stateless');
  if (args.includes('--http')) {
    await (stateless
      ? serveStatelessHttpMain(Number(flag('--port') ?? 0))
      : serveHttpMain(Number(flag('--port') ?? 0), flag('--expect-bearer')));
  } else {
    await (stateless ? serveStatelessStdioMain() : serveStdioMain());
  }
}
