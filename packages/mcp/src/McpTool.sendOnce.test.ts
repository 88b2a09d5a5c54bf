// A tools/call is never sent twice by us: against real HTTP server processes of both protocol eras
// that run a writing tool and then close the connection before any byte of the answer, on a reused
// keep-alive connection. Only a trusted read-only or idempotent tool's lost request is sent again,
// and every result says how many times its request left.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ToolFailureCause, ToolOutcome } from '@runledger/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_LOST_REQUEST_REISSUES } from './lostRequest.js';
import type { McpServerConfig } from './McpServerConfig.js';
import { McpServerRegistry } from './McpServerRegistry.js';
import type { McpTool } from './McpTool.js';
import { parseServerConfig } from './parseServerConfig.js';
import { type HttpFixture, newEventsFile, readEvents, startHttpFixture, toolsOnceConnected, waitFor } from './testing/fixtures.js';

const SDK1_SERVER_PATH = fileURLToPath(new URL('./testing/sdk1-server.mjs', import.meta.url));

const DEADLINE_MS = 10_000;
/** Long enough for a re-send the old pool made at once (it follows the reset within a millisecond or two). */
const QUIET_MS = 300;

function toolNamed(tools: readonly McpTool[], remoteName: string): McpTool {
  const tool = tools.find((t) => t.remoteName === remoteName);
  if (tool === undefined) throw new Error(`no tool ${remoteName}`);
  return tool;
}

const eras = [
  { era: '2025-11-25 (sessionful, SDK 2.x server)', stateless: false },
  { era: '2026-07-28 (stateless)', stateless: true },
];

describe.each(eras)('McpTool over Streamable HTTP, MCP $era', ({ stateless }) => {
  let http: HttpFixture;
  let events: string;
  let untrusted: McpServerRegistry;
  let trusted: McpServerRegistry;
  let tools: readonly McpTool[];
  let trustedTools: readonly McpTool[];

  beforeAll(async () => {
    events = newEventsFile();
    http = await startHttpFixture({ eventsFile: events, stateless });
    untrusted = McpServerRegistry.create([http.config({ id: 'fx', deadlineMs: DEADLINE_MS })]);
    trusted = McpServerRegistry.create([http.config({ id: 'fx', deadlineMs: DEADLINE_MS, trustAnnotations: true })]);
    tools = await toolsOnceConnected(untrusted);
    trustedTools = await toolsOnceConnected(trusted);
  });
  afterAll(async () => {
    await untrusted?.close();
    await trusted?.close();
    await http?.stop();
  });

  it('a write the server ran before it dropped the reused connection is sent once and ends failed, sent once', async () => {
    // An answered call first, so that the next one goes out on the idle keep-alive connection.
    expect((await toolNamed(tools, 'echo').execute({ text: 'warm' })).outcome).toBe(ToolOutcome.OK);
    const tag = `vanish-${String(stateless)}`;
    const result = await toolNamed(tools, 'vanish').execute({ tag });
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
    const runs = readEvents(events).filter((e) => e.tool === 'vanish' && e.tag === tag && e.event === 'executed');
    expect(runs, 'the tool body ran once').toHaveLength(1);
    const posts = readEvents(events).filter((e) => e.tool === 'vanish' && e.event === 'post');
    expect(posts[0]?.earlierRequests, 'the POST went out on a reused keep-alive connection').toBeGreaterThan(0);
    expect(result.outcome).toBe(ToolOutcome.FAILED);
    expect(result.failureCause).toBe(ToolFailureCause.TRANSPORT_FAILURE);
    expect(result.sends).toBe(1);
  });

  it('a trusted server changes nothing for a tool without read-only or idempotent hints', async () => {
    const tag = `vanish-trusted-${String(stateless)}`;
    const result = await toolNamed(trustedTools, 'vanish').execute({ tag });
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
    expect(readEvents(events).filter((e) => e.tool === 'vanish' && e.tag === tag && e.event === 'executed')).toHaveLength(1);
    expect([result.outcome, result.sends]).toEqual([ToolOutcome.FAILED, 1]);
  });

  it('surfaces the annotations the server lists, as given', () => {
    expect(toolNamed(tools, 'drop').annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: undefined,
      idempotentHint: true,
      openWorldHint: undefined,
    });
    expect(toolNamed(tools, 'vanish').annotations).toEqual({
      readOnlyHint: undefined,
      destructiveHint: undefined,
      idempotentHint: undefined,
      openWorldHint: undefined,
    });
    expect(Object.isFrozen(toolNamed(tools, 'drop').annotations)).toBe(true);
  });

  it.runIf(stateless)('a lost request of an idempotent tool is sent again only when the server is trusted', async () => {
    const untrustedTag = `drop-untrusted-${String(stateless)}`;
    const once = await toolNamed(tools, 'drop').execute({ tag: untrustedTag, times: 1 });
    expect([once.outcome, once.sends]).toEqual([ToolOutcome.FAILED, 1]);
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
    expect(readEvents(events).filter((e) => e.tool === 'drop' && e.tag === untrustedTag)).toHaveLength(1);

    const trustedTag = `drop-trusted-${String(stateless)}`;
    const again = await toolNamed(trustedTools, 'drop').execute({ tag: trustedTag, times: 1 });
    // 2026-07-28: the lost request is re-issued under a new id and answered. (Older revisions never
    // re-issue: the server may still be running it — McpTool.revisions.test.ts.)
    const started = readEvents(events).filter((e) => e.tool === 'drop' && e.tag === trustedTag);
    expect([again.outcome, again.sends, again.content]).toEqual([ToolOutcome.OK, 2, 'answered on attempt 2']);
    expect(started).toHaveLength(2);
  });

  it.runIf(stateless)('sends a trusted idempotent call at most 1 + MAX_LOST_REQUEST_REISSUES times in all', async () => {
    const tag = `drop-always-${String(stateless)}`;
    const result = await toolNamed(trustedTools, 'drop').execute({ tag, times: 100 });
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
    expect(readEvents(events).filter((e) => e.tool === 'drop' && e.tag === tag)).toHaveLength(MAX_LOST_REQUEST_REISSUES + 1);
    expect([result.outcome, result.sends]).toEqual([ToolOutcome.FAILED, MAX_LOST_REQUEST_REISSUES + 1]);
  });

  it('says a call cancelled before it was sent never left, and one cancelled on the wire left once', async () => {
    const before = new AbortController();
    before.abort();
    const never = await toolNamed(tools, 'slow').execute({ ms: 5000 }, { signal: before.signal });
    expect([never.outcome, never.sends]).toEqual([ToolOutcome.CANCELLED, 0]);

    const during = new AbortController();
    const tag = `slow-${String(stateless)}`;
    const pending = toolNamed(tools, 'slow').execute({ ms: 5000, tag }, { signal: during.signal });
    expect(await waitFor(() => readEvents(events).some((e) => e.tool === 'slow' && e.tag === tag && e.event === 'started'))).toBe(true);
    during.abort();
    const cut = await pending;
    expect([cut.outcome, cut.sends]).toEqual([ToolOutcome.CANCELLED, 1]);
  });

  it('an answered call and an isError answer were sent once', async () => {
    const ok = await toolNamed(tools, 'echo').execute({ text: 'x' });
    const failed = await toolNamed(tools, 'fail').execute({});
    expect([ok.outcome, ok.sends, failed.outcome, failed.sends]).toEqual([ToolOutcome.OK, 1, ToolOutcome.FAILED, 1]);
  });
});

describe('McpTool over Streamable HTTP against a server on the MCP SDK 1.x (2025-11-25, sessionful)', () => {
  let child: ChildProcess;
  let events: string;
  let registry: McpServerRegistry;
  let tools: readonly McpTool[];

  beforeAll(async () => {
    events = newEventsFile();
    child = spawn(process.execPath, [SDK1_SERVER_PATH, '--http'], {
      env: { ...process.env, FIXTURE_EVENTS_FILE: events },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const port = await new Promise<number>((resolve, reject) => {
      let buffered = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        buffered += String(chunk);
        const match = /listening (\d+)/.exec(buffered);
        if (match) resolve(Number(match[1]));
      });
      child.once('exit', (code) => reject(new Error(`the SDK 1.x server exited with code ${code} before listening`)));
    });
    const [config] = parseServerConfig({
      servers: [{ id: 'sdk1', transport: { type: 'http', url: `http://127.0.0.1:${port}/mcp` }, deadlineMs: DEADLINE_MS }],
    }) as [McpServerConfig];
    registry = McpServerRegistry.create([config]);
    tools = await toolsOnceConnected(registry);
  });
  afterAll(async () => {
    await registry?.close();
    child?.kill('SIGKILL');
  });

  it('a write the server ran before it dropped the reused connection is sent once and ends failed, sent once', async () => {
    expect((await toolNamed(tools, 'add').execute({ a: 1, b: 2 })).outcome).toBe(ToolOutcome.OK);
    const result = await toolNamed(tools, 'vanish').execute({ tag: 'sdk1' });
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
    expect(
      readEvents(events).filter((e) => e.tool === 'vanish' && e.tag === 'sdk1' && e.event === 'executed'),
      'the tool body ran once',
    ).toHaveLength(1);
    const posts = readEvents(events).filter((e) => e.tool === 'vanish' && e.event === 'post');
    expect(posts[0]?.earlierRequests, 'the POST went out on a reused keep-alive connection').toBeGreaterThan(0);
    expect([result.outcome, result.failureCause, result.sends]).toEqual([ToolOutcome.FAILED, ToolFailureCause.TRANSPORT_FAILURE, 1]);
  });
});
