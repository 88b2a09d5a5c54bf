// McpTool against servers of both protocol eras, each a real process: the fixture server on the
// current server SDK (2.x) speaking MCP 2026-07-28 (stateless: server/discover, no initialize, no
// session) over stdio and Streamable HTTP, and a server on SDK 1.x speaking 2025-11-25. The outcome
// rule holds on each: a re-issued call is one call with its true outcome, a cancel stays cancelled.
import { fileURLToPath } from 'node:url';
import { ToolOutcome, type ToolResult } from '@runledger/core';
import { InMemoryRunStore, startRun } from '@runledger/trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpHealthContact } from './McpHealthContact.js';
import type { McpServerConfig } from './McpServerConfig.js';
import { McpServerRegistry } from './McpServerRegistry.js';
import { McpSession } from './McpSession.js';
import type { McpTool } from './McpTool.js';
import { MAX_LOST_REQUEST_REISSUES } from './lostRequest.js';
import { parseServerConfig } from './parseServerConfig.js';
import {
  type HttpFixture,
  newEventsFile,
  readEvents,
  startHttpFixture,
  stdioFixtureConfig,
  toolsOnceConnected,
  waitFor,
} from './testing/fixtures.js';

const STATELESS_REVISION = '2026-07-28';
const DEADLINE_MS = 10_000;
const SDK1_SERVER_PATH = fileURLToPath(new URL('./testing/sdk1-server.mjs', import.meta.url));

/** The protocol revision a session with the server agrees on. */
async function revisionOf(config: McpServerConfig): Promise<{ protocolVersion: string | undefined; sessionId: string | undefined }> {
  const session = new McpSession(config, { env: {}, maxListPages: 10 });
  try {
    const connection = await session.connection();
    return { protocolVersion: connection.protocolVersion, sessionId: connection.sessionId };
  } finally {
    await session.close();
  }
}

/** The steps a run stores when it records what `call` resolves to, as the agent loop does. */
async function stepsRecording(tool: McpTool, call: () => Promise<ToolResult>) {
  const store = InMemoryRunStore.create();
  const run = await startRun(store, { configuration: 'revisions-test' });
  const result = await call();
  await run.trace.recordToolResult({ toolName: tool.name, toolServer: tool.server, toolArguments: {}, result, round: 1, durationMs: 1 });
  await run.complete();
  const steps = await store.readSteps(run.id);
  await store.close();
  return { result, steps };
}

function toolNamed(tools: readonly McpTool[], remoteName: string): McpTool {
  const tool = tools.find((t) => t.remoteName === remoteName);
  if (tool === undefined) throw new Error(`no tool ${remoteName}`);
  return tool;
}

interface StatelessHarness {
  readonly config: McpServerConfig;
  readonly events: string;
  readonly registry: McpServerRegistry;
  readonly contacts: McpHealthContact[];
  tools: readonly McpTool[];
  stop(): Promise<void>;
}

const statelessServers: Record<string, (options?: { trustAnnotations?: boolean }) => Promise<StatelessHarness>> = {
  stdio: async () => {
    const events = newEventsFile();
    const config = stdioFixtureConfig({ id: 'fx', eventsFile: events, deadlineMs: DEADLINE_MS, stateless: true });
    const contacts: McpHealthContact[] = [];
    const registry = McpServerRegistry.create([config], { onHealthContact: (c) => contacts.push(c) });
    return { config, events, registry, contacts, tools: [], stop: () => registry.close() };
  },
  http: async (options = {}) => {
    const events = newEventsFile();
    const http: HttpFixture = await startHttpFixture({ eventsFile: events, stateless: true });
    const config = http.config({ id: 'fx', deadlineMs: DEADLINE_MS, ...options });
    const contacts: McpHealthContact[] = [];
    const registry = McpServerRegistry.create([config], { onHealthContact: (c) => contacts.push(c) });
    return {
      config,
      events,
      registry,
      contacts,
      tools: [],
      stop: async () => {
        await registry.close();
        await http.stop();
      },
    };
  },
};

describe.each(Object.keys(statelessServers))('McpTool against a server of MCP 2026-07-28 over %s', (transport) => {
  let h: StatelessHarness;

  beforeAll(async () => {
    h = await statelessServers[transport]!();
    h.tools = await toolsOnceConnected(h.registry);
  });
  afterAll(() => h?.stop());

  it('agrees on 2026-07-28 without a session', async () => {
    expect(await revisionOf(h.config)).toEqual({ protocolVersion: STATELESS_REVISION, sessionId: undefined });
  });

  it('ends an answered call ok and an isError answer failed', async () => {
    const ok = await toolNamed(h.tools, 'echo').execute({ text: 'stateless' });
    expect(ok.outcome).toBe(ToolOutcome.OK);
    expect(ok.content).toContain('stateless');
    const failed = await toolNamed(h.tools, 'fail').execute({});
    expect(failed.outcome).toBe(ToolOutcome.FAILED);
    expect(failed.content).toContain('the fixture failed on purpose');
  });

  it('ends a cancel cancelled, and the server stops the call', async () => {
    const controller = new AbortController();
    const tag = `cancel-${transport}`;
    const pending = toolNamed(h.tools, 'slow').execute({ ms: 5000, tag }, { signal: controller.signal });
    expect(await waitFor(() => readEvents(h.events).some((e) => e.tool === 'slow' && e.tag === tag && e.event === 'started'))).toBe(true);
    controller.abort();
    const result = await pending;
    expect(result.outcome).toBe(ToolOutcome.CANCELLED);
    expect(await waitFor(() => readEvents(h.events).some((e) => e.tool === 'slow' && e.tag === tag && e.event === 'cancelled'))).toBe(true);
    const noticeSent = () => readEvents(h.events).some((e) => e.event === 'notification' && e.method === 'notifications/cancelled');
    if (transport === 'http') {
      // Closing the call's response stream is the cancel: no notice follows (none within 500 ms,
      // where one sent at the abort arrives within a few).
      expect(await waitFor(noticeSent, 500)).toBe(false);
    } else {
      // stdio has no stream per request: the notice is still required.
      expect(await waitFor(noticeSent)).toBe(true);
    }
  });
});

describe('McpTool against a server of MCP 2026-07-28 over Streamable HTTP: a request of a trusted idempotent tool lost on a broken stream', () => {
  let h: StatelessHarness;

  beforeAll(async () => {
    h = await statelessServers.http!({ trustAnnotations: true });
    h.tools = await toolsOnceConnected(h.registry);
  });
  afterAll(() => h?.stop());

  it('is sent again under a new id and ends as one call with its true outcome', async () => {
    const before = h.contacts.length;
    const drop = toolNamed(h.tools, 'drop');
    const { result, steps } = await stepsRecording(drop, () => drop.execute({ tag: 'once', times: 1 }));
    expect(result.outcome).toBe(ToolOutcome.OK);
    expect(result.content).toContain('answered on attempt 2');
    const started = readEvents(h.events).filter((e) => e.tool === 'drop' && e.tag === 'once');
    expect(started.map((e) => e.attempt)).toEqual([1, 2]);
    // One logical call: one result, one answer reported to health, one step stored.
    expect(h.contacts.length - before).toBe(1);
    expect(steps.map((step) => [step.kind, step.toolOutcome])).toEqual([['tool', ToolOutcome.OK]]);
  });

  it('is sent again at most a bounded number of times, then ends failed', async () => {
    const result = await toolNamed(h.tools, 'drop').execute({ tag: 'always', times: 100 });
    expect(result.outcome).toBe(ToolOutcome.FAILED);
    expect(result.content).toContain(`lost on each of ${MAX_LOST_REQUEST_REISSUES + 1} sends`);
    const sends = readEvents(h.events).filter((e) => e.tool === 'drop' && e.tag === 'always');
    expect(sends).toHaveLength(MAX_LOST_REQUEST_REISSUES + 1);
  });
});

describe('McpTool against a server on the MCP SDK 1.x (2025-11-25) over stdio', () => {
  let registry: McpServerRegistry;
  let config: McpServerConfig;

  beforeAll(() => {
    [config] = parseServerConfig({
      servers: [{ id: 'sdk1', transport: { type: 'stdio', command: process.execPath, args: [SDK1_SERVER_PATH] }, deadlineMs: DEADLINE_MS }],
    }) as [McpServerConfig];
    registry = McpServerRegistry.create([config]);
  });
  afterAll(() => registry?.close());

  it('falls back to the initialize handshake and calls as before', async () => {
    expect((await revisionOf(config)).protocolVersion).toBe('2025-11-25');
    const tools = await toolsOnceConnected(registry);
    const ok = await toolNamed(tools, 'add').execute({ a: 2, b: 3 });
    expect(ok.outcome).toBe(ToolOutcome.OK);
    expect(ok.content).toBe('5');
    const failed = await toolNamed(tools, 'add').execute({ a: 'two', b: 3 });
    expect(failed.outcome).toBe(ToolOutcome.FAILED);
  });
});
