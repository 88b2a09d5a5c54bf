#!/usr/bin/env node
// A process of its own that uses the BUILT package (dist/, made by `pnpm build`; `pnpm test` builds
// first) like a CLI: one stdio server, one slow call in flight, then a Ctrl+C to its process group
// (the test sends SIGINT to the group, as a terminal does). It prints `calling` once the server
// runs the call, then the call's result as one JSON line.
//
//   node interrupt-child.mjs <fixture-server.mjs> <events file> handled|unhandled
//
// handled: a SIGINT handler of its own is the shutdown, which closes the registry a moment after
// the signal (as a CLI stops serving first); unhandled: no handler, the signal ends the process.
import { readFileSync } from 'node:fs';
import { McpServerRegistry, parseServerConfig } from '../../dist/index.js';

const [fixture, events, mode] = process.argv.slice(2);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const servers = parseServerConfig({
  servers: [
    {
      id: 'fx',
      transport: { type: 'stdio', command: process.execPath, args: [fixture], env: { FIXTURE_EVENTS_FILE: events } },
      deadlineMs: 20_000,
    },
  ],
});
const registry = McpServerRegistry.create(servers);
await registry.tools();
const slow = registry.tool('mcp_fx_slow');
if (slow === undefined) {
  process.stdout.write(`not listed: ${JSON.stringify(registry.serverProblems)}\n`);
  process.exit(2);
}
if (mode === 'handled') {
  process.once('SIGINT', () => {
    setTimeout(() => void registry.close(), 300);
  });
}
const pending = slow.execute({ ms: 15_000, tag: 'interrupted' });
while (!readFileSync(events, 'utf8').includes('"tag":"interrupted"')) await sleep(10);
process.stdout.write('calling\n');
const result = await pending;
process.stdout.write(`${JSON.stringify({ outcome: result.outcome, failureCause: result.failureCause, content: result.content })}\n`);
await registry.close();
process.exit(0);
