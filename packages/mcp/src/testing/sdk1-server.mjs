#!/usr/bin/env node
// A real MCP server built with the MCP TypeScript SDK 1.x (`@modelcontextprotocol/sdk`, the line
// the reference server `@modelcontextprotocol/server-everything` runs on), served over stdio, for
// the tests of @runledger/mcp. Not part of the published build.
//
//   node sdk1-server.mjs
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
// The server refuses arguments of more than 10 elements (`maxToolInputElements`), with
// `MCP error -32602: Invalid arguments for tool <name>: arguments contain more than …`.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

/** The most elements the server accepts in one call's arguments. */
export const SDK1_MAX_INPUT_ELEMENTS = 10;

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

const transport = withJsonRpcRefusals(new StdioServerTransport());
transport.onclose = () => process.exit(0);
process.stdin.on('end', () => process.exit(0));
await server.connect(transport);
