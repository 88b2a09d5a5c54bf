#!/usr/bin/env node
// A process of its own that uses the BUILT package (dist/, made by `pnpm build`; `pnpm test` builds
// first) where no `@opentelemetry/*` package can be imported: one call with tracing off, then a
// listing with tracing on. Prints one JSON line with what happened.
//
//   node no-otel-child.mjs <fixture-server.mjs>
import { register } from 'node:module';

register('./deny-otel-hooks.mjs', import.meta.url);
const { McpServerRegistry, parseServerConfig } = await import('../../dist/index.js');

const [fixture] = process.argv.slice(2);
const servers = parseServerConfig({ servers: [{ id: 'fx', transport: { type: 'stdio', command: process.execPath, args: [fixture] } }] });
const off = McpServerRegistry.create(servers);
const echo = (await off.tools()).find((tool) => tool.name === 'mcp_fx_echo');
const result = await echo?.execute({ text: 'no otel' });
await off.close();
const on = McpServerRegistry.create(servers, { tracing: { tracer: { startSpan() {} } } });
const refusal = await on.tools().then(
  () => undefined,
  (error) => ({ name: error.name, message: error.message }),
);
await on.close();
process.stdout.write(`${JSON.stringify({ outcome: result?.outcome, content: result?.content, refusal })}\n`);
