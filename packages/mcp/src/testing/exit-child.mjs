#!/usr/bin/env node
// A process of its own that uses the BUILT package (dist/, made by `pnpm build`; `pnpm test` builds
// first) with one stdio server stuck before `initialize`, then exits — after `registry.close()`
// (`close`) or without it (`no-close`). The test that runs it checks that the server is gone.
//
//   node exit-child.mjs close|no-close <fixture-server.mjs> <events file>
import { readFileSync } from 'node:fs';
import { McpServerRegistry, parseServerConfig } from '../../dist/index.js';

const [mode, fixture, events] = process.argv.slice(2);
const servers = parseServerConfig({
  servers: [
    {
      id: 'stuck',
      transport: { type: 'stdio', command: process.execPath, args: [fixture], env: { FIXTURE_MODE: 'stuck', FIXTURE_EVENTS_FILE: events } },
      deadlineMs: 300,
    },
  ],
});
const registry = McpServerRegistry.create(servers);
await registry.tools();
process.stdout.write(`${JSON.stringify(registry.serverProblems)}\n`);
// A cold start may outlast the 300 ms deadline: wait until the server is up (and stuck).
while (!readFileSync(events, 'utf8').includes('"server_started"')) await new Promise((resolve) => setTimeout(resolve, 10));
if (mode === 'close') await registry.close();
// The child's pipes would keep this process alive: exit the way a CLI that is done does.
process.exit(0);
