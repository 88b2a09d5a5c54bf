// The outcome matrix of McpTool.execute over the three transports: stdio (a child process),
// Streamable HTTP on 127.0.0.1 (a child process) and in memory — all against the real fixture
// server built with the official server SDK.
import { getEventListeners } from 'node:events';
import { ToolArtifact, ToolOutcome, ToolResult } from '@runledger/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpHealthContact } from './McpHealthContact.js';
import { McpServerRegistry } from './McpServerRegistry.js';
import type { McpTool } from './McpTool.js';
import { BIG_TEXT_LENGTH } from './testing/fixture-server.mjs';
import {
  type HttpFixture,
  inMemoryFixture,
  newEventsFile,
  readEvents,
  startHttpFixture,
  stdioFixtureConfig,
  toolsOnceConnected,
  waitFor,
} from './testing/fixtures.js';

const SHORT_DEADLINE_MS = 300;
// Long enough that a loaded machine (a stdio server's respawn, twenty calls at once) never meets it:
// no test waits for it, they only stay under it.
const LONG_DEADLINE_MS = 15_000;

interface Harness {
  registry: McpServerRegistry;
  contacts: McpHealthContact[];
  events: string;
  /** Brings the server back after the `crash` tool (HTTP: restart the process on its port). */
  afterCrash(): Promise<void>;
  stop(): Promise<void>;
}

const transports: Record<string, () => Promise<Harness>> = {
  stdio: async () => {
    const events = newEventsFile();
    const contacts: McpHealthContact[] = [];
    const registry = McpServerRegistry.create(
      [
        stdioFixtureConfig({ id: 'fx', eventsFile: events, deadlineMs: LONG_DEADLINE_MS }),
        stdioFixtureConfig({ id: 'fast', eventsFile: events, deadlineMs: SHORT_DEADLINE_MS }),
      ],
      { onHealthContact: (c) => contacts.push(c) },
    );
    return { registry, contacts, events, afterCrash: async () => {}, stop: () => registry.close() };
  },
  http: async () => {
    const events = newEventsFile();
    const contacts: McpHealthContact[] = [];
    const http: HttpFixture = await startHttpFixture({ eventsFile: events });
    const registry = McpServerRegistry.create(
      [http.config({ id: 'fx', deadlineMs: LONG_DEADLINE_MS }), http.config({ id: 'fast', deadlineMs: SHORT_DEADLINE_MS })],
      { onHealthContact: (c) => contacts.push(c) },
    );
    return {
      registry,
      contacts,
      events,
      afterCrash: () => http.restart(),
      stop: async () => {
        await registry.close();
        await http.stop();
      },
    };
  },
  memory: async () => {
    const events = newEventsFile();
    const contacts: McpHealthContact[] = [];
    const memory = inMemoryFixture({ eventsFile: events });
    const registry = McpServerRegistry.create(
      [memory.config({ id: 'fx', deadlineMs: LONG_DEADLINE_MS }), memory.config({ id: 'fast', deadlineMs: SHORT_DEADLINE_MS })],
      { onHealthContact: (c) => contacts.push(c), transportFactory: memory.transportFactory },
    );
    return { registry, contacts, events, afterCrash: async () => {}, stop: () => registry.close() };
  },
};

describe.each(Object.keys(transports))('McpTool.execute over %s', (transport) => {
  let h: Harness;
  let tools: readonly McpTool[];
  const tool = (server: 'fx' | 'fast', remote: string): McpTool => {
    const found = tools.find((t) => t.name === `mcp_${server}_${remote}`);
    if (found === undefined) throw new Error(`no tool mcp_${server}_${remote}`);
    return found;
  };
  const eventsFor = (tag: string) =>
    readEvents(h.events)
      .filter((e) => e.tag === tag)
      .map((e) => e.event);
  const contactsSince = (start: number) => h.contacts.slice(start);

  beforeAll(async () => {
    h = await transports[transport]!();
    tools = await toolsOnceConnected(h.registry);
  });
  afterAll(async () => {
    await h.stop();
  });

  it('imports the fixture tools with local names', () => {
    expect(tools.map((t) => t.name).filter((n) => n.startsWith('mcp_fx_'))).toEqual(
      [
        'echo',
        'fail',
        'throws',
        'slow',
        'hang',
        'crash',
        'late',
        'reset',
        'vanish',
        'drop',
        'huge',
        'big',
        'mixed',
        'meta',
        'malformed',
      ].map((n) => `mcp_fx_${n}`),
    );
    const echo = tool('fx', 'echo');
    expect(echo.server).toBe('fx');
    expect(echo.remoteName).toBe('echo');
    expect(echo.description).toBe('Answers with the text it was given.');
    expect(echo.inputSchema).toMatchObject({ type: 'object', properties: { text: { type: 'string' } } });
    expect(echo.requiresApproval).toBe(false);
    expect(echo.deadlineMs).toBe(LONG_DEADLINE_MS);
  });

  it('ok: an answer without isError, text as content, structuredContent as an artifact, one health contact', async () => {
    const start = h.contacts.length;
    const result = await tool('fx', 'echo').execute({ text: 'hello' });
    expect(ToolResult.is(result)).toBe(true);
    expect(result.outcome).toBe(ToolOutcome.OK);
    expect(result.isError).toBe(false);
    expect(result.content).toBe('hello');
    expect(result.artifacts).toEqual([ToolArtifact.table('Structured content', [{ echoed: 'hello', length: 5 }])]);
    const contacts = contactsSince(start);
    expect(contacts).toHaveLength(1);
    expect(contacts[0]).toMatchObject({ server: 'fx', tool: 'mcp_fx_echo', remoteTool: 'echo', isError: false });
    expect(contacts[0]!.latencyMs).toBeGreaterThanOrEqual(0);
    expect(contacts[0]!.latencyMs).toBeLessThan(LONG_DEADLINE_MS);
    expect(Math.abs(contacts[0]!.at - Date.now())).toBeLessThan(5000);
  });

  it('failed: an answer with isError, which still is a health contact', async () => {
    const start = h.contacts.length;
    const result = await tool('fx', 'fail').execute({});
    expect(result.outcome).toBe(ToolOutcome.FAILED);
    expect(result.isError).toBe(true);
    expect(result.content).toBe('the fixture failed on purpose');
    expect(result.artifacts).toEqual([]);
    expect(contactsSince(start)).toEqual([expect.objectContaining({ tool: 'mcp_fx_fail', isError: true })]);
  });

  it('failed: a JSON-RPC error, no health contact', async () => {
    const start = h.contacts.length;
    const result = await tool('fx', 'throws').execute({});
    expect(result.outcome).toBe(ToolOutcome.FAILED);
    expect(result.content).toBe('MCP server "fx" answered with JSON-RPC error -32001: the fixture threw on purpose');
    expect(contactsSince(start)).toEqual([]);
  });

  it('failed: a malformed answer, no health contact', async () => {
    const start = h.contacts.length;
    const result = await tool('fx', 'malformed').execute({});
    expect(result.outcome).toBe(ToolOutcome.FAILED);
    expect(result.content).toMatch(/^MCP server "fx" sent a malformed response: /);
    expect(contactsSince(start)).toEqual([]);
  });

  it('ok: 2 MB of text arrives bounded by withBoundedChannels()', async () => {
    const result = await tool('fx', 'big').execute({});
    expect(result.outcome).toBe(ToolOutcome.OK);
    expect(BIG_TEXT_LENGTH).toBe(2 * 1024 * 1024);
    expect(Buffer.byteLength(result.content, 'utf8')).toBeLessThanOrEqual(50_000);
    expect(result.content.startsWith('xxxx')).toBe(true);
    expect(result.content).not.toBe('x'.repeat(50_000));
  });

  it('ok: non-text blocks are counted and named in a note that leads the content', async () => {
    const result = await tool('fx', 'mixed').execute({});
    expect(result.outcome).toBe(ToolOutcome.OK);
    expect(result.content).toBe('[2 non-text blocks not shown: image image/png, resource fixture://notes/1]\nfirst text\nsecond text');
  });

  it('failed: a hung server ends at the deadline, and the server is told to stop', async () => {
    const start = h.contacts.length;
    const began = performance.now();
    const result = await tool('fast', 'hang').execute({ tag: 'hang-deadline' });
    const elapsed = performance.now() - began;
    expect(result.outcome).toBe(ToolOutcome.FAILED);
    expect(result.content).toBe(`MCP server "fast" did not answer within ${SHORT_DEADLINE_MS} ms`);
    expect(elapsed).toBeGreaterThanOrEqual(SHORT_DEADLINE_MS - 5);
    expect(elapsed).toBeLessThan(SHORT_DEADLINE_MS + 2000);
    expect(contactsSince(start)).toEqual([]);
    expect(await waitFor(() => eventsFor('hang-deadline').includes('cancelled'))).toBe(true);
  });

  it('cancelled: a signal aborted before sending sends nothing', async () => {
    const start = h.contacts.length;
    const controller = new AbortController();
    controller.abort(new Error('run cancelled'));
    const result = await tool('fx', 'slow').execute({ ms: 10, tag: 'before-send' }, { signal: controller.signal });
    expect(result.outcome).toBe(ToolOutcome.CANCELLED);
    expect(result.isError).toBe(true);
    expect(result.content).toBe(
      'MCP server "fx": the call of "slow" was cancelled by the caller; whether the server already acted on it is not known',
    );
    expect(result.artifacts).toEqual([]);
    expect(result.writeTarget).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(eventsFor('before-send')).toEqual([]);
    expect(contactsSince(start)).toEqual([]);
  });

  it('cancelled: aborting in flight resolves at once, and notifications/cancelled stops the server', async () => {
    const start = h.contacts.length;
    const controller = new AbortController();
    const pending = tool('fx', 'slow').execute({ ms: 4000, tag: 'in-flight' }, { signal: controller.signal });
    expect(await waitFor(() => eventsFor('in-flight').includes('started'))).toBe(true);
    const abortedAt = performance.now();
    controller.abort('any reason at all');
    const result = await pending;
    expect(performance.now() - abortedAt).toBeLessThan(1000); // ~1 ms; generous for a loaded machine
    expect(result.outcome).toBe(ToolOutcome.CANCELLED);
    // The server saw the cancellation and stopped: it reports "cancelled", never "completed".
    expect(await waitFor(() => eventsFor('in-flight').includes('cancelled'))).toBe(true);
    expect(eventsFor('in-flight')).toEqual(['started', 'cancelled']);
    expect(contactsSince(start)).toEqual([]);
  });

  it('cancelled again: every cancel of a tool names it alike and states its own sends, in flight or before sending', async () => {
    const slow = tool('fx', 'slow');
    const message = 'MCP server "fx": the call of "slow" was cancelled by the caller; whether the server already acted on it is not known';
    const results = [];
    for (const tag of ['again-1', 'again-2']) {
      const controller = new AbortController();
      const pending = slow.execute({ ms: 4000, tag }, { signal: controller.signal });
      expect(await waitFor(() => eventsFor(tag).includes('started'))).toBe(true);
      controller.abort();
      results.push(await pending);
      const before = new AbortController();
      before.abort();
      results.push(await slow.execute({ ms: 10, tag: `${tag}-never` }, { signal: before.signal }));
    }
    expect(results.map((r) => [r.outcome, r.content, r.sends, r.artifacts, r.writeTarget])).toEqual([
      [ToolOutcome.CANCELLED, message, 1, [], null],
      [ToolOutcome.CANCELLED, message, 0, [], null],
      [ToolOutcome.CANCELLED, message, 1, [], null],
      [ToolOutcome.CANCELLED, message, 0, [], null],
    ]);
  });

  it('deadline versus abort: the deadline is failed, the abort is cancelled, never the other way', async () => {
    const deadline = await tool('fast', 'hang').execute({ tag: 'dl-1' });
    expect(deadline.outcome).toBe(ToolOutcome.FAILED);

    const controller = new AbortController();
    setTimeout(() => controller.abort(), SHORT_DEADLINE_MS / 3);
    const aborted = await tool('fast', 'hang').execute({ tag: 'dl-2' }, { signal: controller.signal });
    expect(aborted.outcome).toBe(ToolOutcome.CANCELLED);

    // An abort after the deadline already ended the call changes nothing.
    const late = new AbortController();
    const result = await tool('fast', 'hang').execute({ tag: 'dl-3' }, { signal: late.signal });
    late.abort();
    expect(result.outcome).toBe(ToolOutcome.FAILED);
    expect(result.content).toContain('did not answer within');
  });

  it('abort racing a late answer: each call ends in exactly the first outcome, never failed', async () => {
    const start = h.contacts.length;
    const outcomes: string[] = [];
    for (let i = 0; i < 12; i++) {
      const controller = new AbortController();
      const pending = tool('fx', 'slow').execute({ ms: 20, tag: `race-${i}` }, { signal: controller.signal });
      setTimeout(() => controller.abort(), 10 + (i % 6) * 4);
      outcomes.push((await pending).outcome);
    }
    expect(outcomes.every((o) => o === ToolOutcome.OK || o === ToolOutcome.CANCELLED)).toBe(true);
    // A contact exactly for each call that was answered before the abort.
    expect(contactsSince(start)).toHaveLength(outcomes.filter((o) => o === ToolOutcome.OK).length);
  });

  it('20 concurrent calls with half of them aborted each get their own outcome', async () => {
    const start = h.contacts.length;
    const calls = Array.from({ length: 20 }, (_, i) => {
      const controller = new AbortController();
      const pending = tool('fx', 'slow').execute({ ms: 2000, tag: `par-${i}` }, { signal: controller.signal });
      return { i, controller, pending };
    });
    await waitFor(() => calls.every(({ i }) => eventsFor(`par-${i}`).includes('started')));
    for (const call of calls) if (call.i % 2 === 1) call.controller.abort();
    const results = await Promise.all(calls.map((c) => c.pending));
    results.forEach((result, i) => {
      if (i % 2 === 1) {
        expect(result.outcome, `call ${i}`).toBe(ToolOutcome.CANCELLED);
      } else {
        expect(result.outcome, `call ${i}`).toBe(ToolOutcome.OK);
        expect(result.content).toBe('slept 2000 ms');
      }
    });
    expect(contactsSince(start)).toHaveLength(10);
    await waitFor(() => calls.every(({ i }) => eventsFor(`par-${i}`).length === 2));
    calls.forEach(({ i }) => expect(eventsFor(`par-${i}`)).toEqual(['started', i % 2 === 1 ? 'cancelled' : 'completed']));
  });

  it("a run's signal shared by many calls holds no listener once they ended, whatever their outcome", async () => {
    const run = new AbortController();
    const { signal } = run;
    const results = await Promise.all([
      ...Array.from({ length: 10 }, (_, i) => tool('fx', 'echo').execute({ text: `shared-${i}` }, { signal })),
      tool('fx', 'fail').execute({}, { signal }),
      tool('fx', 'throws').execute({}, { signal }),
      tool('fast', 'hang').execute({}, { signal }),
    ]);
    expect(results.map((r) => r.outcome)).toEqual([
      ...Array<string>(10).fill(ToolOutcome.OK),
      ToolOutcome.FAILED,
      ToolOutcome.FAILED,
      ToolOutcome.FAILED,
    ]);
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
    const slow = tool('fx', 'slow').execute({ ms: 2000, tag: 'shared-slow' }, { signal });
    await waitFor(() => eventsFor('shared-slow').includes('started'));
    expect(getEventListeners(signal, 'abort')).toHaveLength(1);
    run.abort();
    expect((await slow).outcome).toBe(ToolOutcome.CANCELLED);
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });

  it('failed: the server crashes mid-call; the next call reconnects and succeeds', async () => {
    const start = h.contacts.length;
    const began = performance.now();
    const crashed = await tool('fx', 'crash').execute({});
    expect(crashed.outcome).toBe(ToolOutcome.FAILED);
    expect(crashed.content).toMatch(/^MCP server "fx" transport failed: /);
    // Not a wait for the deadline: a crash is noticed when it happens.
    expect(performance.now() - began).toBeLessThan(LONG_DEADLINE_MS / 2);
    expect(contactsSince(start)).toEqual([]);
    await h.afterCrash();
    const after = await tool('fx', 'echo').execute({ text: 'again' });
    expect(after.outcome).toBe(ToolOutcome.OK);
    expect(after.content).toBe('again');
  });

  it('failed: arguments that are not a JSON object, without rejecting', async () => {
    const result = await tool('fx', 'echo').execute([] as unknown as Record<string, unknown>);
    expect(result.outcome).toBe(ToolOutcome.FAILED);
    expect(result.content).toBe('McpTool.execute args of "mcp_fx_echo" must be a JSON object, got an array');
  });
});
