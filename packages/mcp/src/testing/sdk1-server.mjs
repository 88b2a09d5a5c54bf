#!/usr/bin/env node
// A real MCP server built with the MCP TypeScript SDK 1.x (`@modelcontextprotocol/sdk`, the line
// the reference server `@modelcontextprotocol/server-everything` runs on), served over stdio, for
// the tests of @runledger/mcp. Not part of the published build.
//
//   node sdk1-server.mjs            (stdio)
//   node sdk1-server.mjs --http     (Streamable HTTP, sessionful, on a random port of 127.0.0.1;
//                                    prints `listening <port>`)
//
// SDK 1.x prefixes every message of its McpError with `MCP error <code>: `, so a refused argument
// reaches the client as the `isError` text `MCP error -32602: Input validation error: …`.
//
// Tools:
//   add                 {a: number, b: number} → a + b; bad arguments: the SDK's `isError` refusal
//   add_rpc             as add, but its refusal goes out as the JSON-RPC error -32602 (1.x servers
//                       before spec 2025-11-25 / SEP-1303 sent it that way)
//   broken_output       declares an output schema and answers without structured content: the
//                       SDK's `MCP error -32602: Output validation error: …` (the server's fault)
//   broken_output_rpc   as broken_output, sent as the JSON-RPC error -32602
//   vanish              {tag} (HTTP) runs (reports `executed` to FIXTURE_EVENTS_FILE), then the
//                       connection of its POST is destroyed before any byte of the answer
// The server refuses arguments of more than 10 elements (`maxToolInputElements`), with
// `MCP error -32602: Invalid arguments for tool <name>: arguments contain more than …`.
import { randomUUID } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { vanishingSockets } from './vanishingSockets.mjs';

/** The most elements the server accepts in one call's arguments. */
export const SDK1_MAX_INPUT_ELEMENTS = 10;

/** The sockets of the POSTs carrying a `vanish` call: corked (no byte of an answer leaves), destroyed once it ran. */
const vanishing = vanishingSockets();
let vanishRuns = 0;

function buildServer() {
  const server = new McpServer(
    { name: 'runledger-sdk1-fixture', version: '1.0.0' },
    { capabilities: { tools: {} }, maxToolInputElements: SDK1_MAX_INPUT_ELEMENTS },
  );
  const sum = { a: z.number(), b: z.number() };
  const answerSum = async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] });
  server.registerTool('add', { description: 'Adds two numbers.', inputSchema: sum }, answerSum);
  server.registerTool('add_rpc', { description: 'Adds two numbers (refusals as JSON-RPC errors).', inputSchema: sum }, answerSum);
  const noStructuredContent = async () => ({ content: [{ type: 'text', text: 'no structured content' }] });
  for (const name of ['broken_output', 'broken_output_rpc']) {
    server.registerTool(name, { description: 'Breaks its own output schema.', outputSchema: { n: z.number() } }, noStructuredContent);
  }
  server.registerTool(
    'vanish',
    { description: 'Writes, then its connection closes before any byte of the answer.', inputSchema: { tag: z.string() } },
    async ({ tag }) => {
      vanishRuns += 1;
      const events = process.env.FIXTURE_EVENTS_FILE;
      if (events)
        appendFileSync(
          events,
          `${JSON.stringify({ pid: process.pid, at: Date.now(), tool: 'vanish', event: 'executed', tag, run: vanishRuns })}\n`,
        );
      setTimeout(vanishing.destroy, 1);
      await new Promise(() => {});
      return { content: [] };
    },
  );
  return server;
}

/** Sends the `isError` refusal of a `*_rpc` tool as the JSON-RPC error -32602, as older servers did. */
function withJsonRpcRefusals(transport) {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    const text = message?.result?.isError === true ? message.result.content?.[0]?.text : undefined;
    if (typeof text === 'string' && text.startsWith('MCP error -32602: ') && /\b\w+_rpc\b/.test(text)) {
      message = { jsonrpc: '2.0', id: message.id, error: { code: -32602, message: text } };
    }
    return send(message, options);
  };
  return transport;
}

/** Serves the fixture over Streamable HTTP, one session (and server) per initialize. */
function serveHttp() {
  const sessions = new Map();
  const answer = async (req, res) => {
    try {
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
        transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => sessions.set(id, transport),
        });
        await buildServer().connect(withJsonRpcRefusals(transport));
      }
      if (body?.method === 'tools/call' && body.params?.name === 'vanish') {
        vanishing.hold(req.socket, process.env.FIXTURE_EVENTS_FILE);
      }
      await transport.handleRequest(req, res, body);
    } catch (error) {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    }
  };
  const http = createServer((req, res) => {
    req.socket.requestsServed = (req.socket.requestsServed ?? 0) + 1;
    void answer(req, res);
  });
  http.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${http.address().port}\n`));
}

if (process.argv.includes('--http')) {
  serveHttp();
} else {
  const transport = withJsonRpcRefusals(new StdioServerTransport());
  transport.onclose = () => process.exit(0);
  process.stdin.on('end', () => process.exit(0));
  await buildServer().connect(transport);
}
