// Misbehaving servers, real processes: one stuck before `initialize`, one answering more than the
// answer limit, one whose HTTP socket breaks mid-call. Each must end the call (or the listing) in
// time, harm no other call, and leave no process behind.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ToolOutcome } from '@runledger/core';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_ANSWER_BYTES } from './LocalRequestFailure.js';
import { McpServerRegistry } from './McpServerRegistry.js';
import type { McpTool } from './McpTool.js';
import {
  FIXTURE_SERVER_PATH,
  type HttpFixture,
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

/** The tool, after listing until the server is listed (its deadline covers a cold start). */
async function listed(registry: McpServerRegistry, name: string): Promise<McpTool> {
  for (let attempt = 0; attempt < 10 && registry.tool(name) === undefined; attempt++) await registry.tools({ refresh: attempt > 0 });
  const tool = registry.tool(name);
  if (tool === undefined) throw new Error(`${name} not listed: ${JSON.stringify(registry.serverProblems)}`);
  return tool;
}

describe('a stdio server stuck before initialize', () => {
  it('tools() ends at the deadline, connecting included, and says so', async () => {
    const events = newEventsFile();
    const registry = McpServerRegistry.create([stdioFixtureConfig({ id: 'stuck', mode: 'stuck', eventsFile: events, deadlineMs: 1000 })]);
    cleanups.push(() => registry.close());
    const began = performance.now();
    expect(await registry.tools()).toEqual([]);
    const elapsed = performance.now() - began;
    expect(registry.serverProblems).toEqual([{ server: 'stuck', reason: 'connecting to it took longer than its deadline of 1000 ms' }]);
    expect(elapsed).toBeGreaterThanOrEqual(995);
    // Far from the 10 s connect timeout it took before; generous for a loaded machine.
    expect(elapsed).toBeLessThan(2500);
  });

  it('registry.close() returns only once the child is gone, though it ignores stdin and SIGTERM', async () => {
    const events = newEventsFile();
    const registry = McpServerRegistry.create([stdioFixtureConfig({ id: 'stuck', mode: 'stuck', eventsFile: events, deadlineMs: 2000 })]);
    // 2 s: long enough for a loaded machine to start the child before the deadline gives up on it
    await registry.tools();
    expect(registry.serverProblems.map((p) => p.server)).toEqual(['stuck']);
    // The child may start after the deadline gave up on it (a loaded machine): wait for it.
    expect(await waitFor(() => readEvents(events).some((e) => e.event === 'server_started'), 15_000)).toBe(true);
    const pid = readEvents(events).find((e) => e.event === 'server_started')!.pid;
    expect(isProcessAlive(pid)).toBe(true);
    const closing = performance.now();
    // Two closes at once are the same wait.
    await Promise.all([registry.close(), registry.close()]);
    // No waiting here: close() itself waited (stdin closed, SIGTERM ignored, then SIGKILL).
    expect(isProcessAlive(pid)).toBe(false);
    expect(readEvents(events).map((e) => e.event)).toContain('sigterm_ignored');
    expect(performance.now() - closing).toBeLessThan(3000);
  });
});

describe('our process exits with a stdio server stuck before initialize', () => {
  const child = fileURLToPath(new URL('./testing/exit-child.mjs', import.meta.url));
  const dist = fileURLToPath(new URL('../dist/index.js', import.meta.url));

  it.each(['close', 'no-close'])('after %s, no server process of ours is alive', async (mode) => {
    expect(existsSync(dist), 'the built package (pnpm build) is needed for this test').toBe(true);
    const events = newEventsFile();
    const proc = spawn(process.execPath, [child, mode, FIXTURE_SERVER_PATH, events], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout.on('data', (chunk: Buffer) => (out += String(chunk)));
    const code = await new Promise<number | null>((resolve) => proc.once('exit', resolve));
    expect(code).toBe(0);
    expect(out).toContain('"server":"stuck"');
    const started = readEvents(events).filter((e) => e.event === 'server_started');
    expect(started).toHaveLength(1);
    const pid = started[0]!.pid;
    if (mode === 'close') {
      // close() waited for the child before the process went on to exit.
      expect(isProcessAlive(pid)).toBe(false);
    } else {
      // Killed (SIGKILL) by the exit hook as the process exited; the kernel takes a moment (on a
      // busy machine, seconds: the killed process must be scheduled to die).
      expect(await waitFor(() => !isProcessAlive(pid), 10_000)).toBe(true);
    }
  });
});

type Transport = 'stdio' | 'http';

async function serverFor(transport: Transport, id: string, deadlineMs: number) {
  const events = newEventsFile();
  if (transport === 'stdio') {
    const registry = McpServerRegistry.create([stdioFixtureConfig({ id, eventsFile: events, deadlineMs })]);
    cleanups.push(() => registry.close());
    return { registry, events };
  }
  const http: HttpFixture = await startHttpFixture({ eventsFile: events });
  cleanups.push(() => http.stop());
  const registry = McpServerRegistry.create([http.config({ id, deadlineMs })]);
  cleanups.push(() => registry.close());
  return { registry, events };
}

describe.each<Transport>(['stdio', 'http'])('an answer over the limit, over %s', (transport) => {
  it('fails that call naming the size; concurrent calls and the session are unharmed', async () => {
    const { registry, events } = await serverFor(transport, 'big', 10_000);
    const huge = await listed(registry, 'mcp_big_huge');
    const slow = registry.tool('mcp_big_slow')!;
    const echo = registry.tool('mcp_big_echo')!;

    const inFlight = slow.execute({ ms: 400, tag: 'beside-huge' });
    expect(await waitFor(() => readEvents(events).some((e) => e.tag === 'beside-huge'))).toBe(true);
    const [tooBig, justRight, beside, echoed] = await Promise.all([
      huge.execute({ bytes: DEFAULT_MAX_ANSWER_BYTES + 1 }),
      huge.execute({ bytes: 1024 }),
      inFlight,
      echo.execute({ text: 'next to it' }),
    ]);
    expect(tooBig.outcome).toBe(ToolOutcome.FAILED);
    expect(tooBig.content).toMatch(
      new RegExp(
        `^MCP server "big" sent a malformed response: the answer has (\\d+ bytes|more than 10485760 bytes), over the limit of 10485760 bytes for one answer$`,
      ),
    );
    expect(justRight.outcome).toBe(ToolOutcome.OK);
    expect(beside.outcome).toBe(ToolOutcome.OK);
    expect(beside.content).toBe('slept 400 ms');
    expect(echoed.content).toBe('next to it');

    // The same session goes on: no restart, no reconnect.
    expect((await echo.execute({ text: 'after' })).content).toBe('after');
    if (transport === 'stdio') {
      expect(readEvents(events).filter((e) => e.event === 'server_started')).toHaveLength(1);
    }
  });
});

describe.each<Transport>(['stdio', 'http'])('the connection breaks mid-call, over %s', (transport) => {
  it('the call ends failed within 2 s, not at its deadline, and the next call works', async () => {
    const { registry } = await serverFor(transport, 'brk', 15_000);
    const reset = await listed(registry, 'mcp_brk_reset');
    const began = performance.now();
    const result = await reset.execute({ tag: 'reset' });
    const elapsed = performance.now() - began;
    expect(result.outcome).toBe(ToolOutcome.FAILED);
    expect(result.content).toMatch(/^MCP server "brk" transport failed: /);
    expect(elapsed).toBeLessThan(2000);
    expect((await registry.tool('mcp_brk_echo')!.execute({ text: 'again' })).content).toBe('again');
  });
});

describe.each<Transport>(['stdio', 'http'])('a server that answers after the call ended, over %s', (transport) => {
  it('the abort stays cancelled and the deadline failed; the late answers harm nothing', async () => {
    // The deadline covers connecting: 1.5 s lets a loaded machine start the stdio child in time.
    const { registry, events } = await serverFor(transport, 'lt', 1500);
    const late = await listed(registry, 'mcp_lt_late');
    const eventsOf = (tag: string) =>
      readEvents(events)
        .filter((e) => e.tag === tag)
        .map((e) => e.event);

    const controller = new AbortController();
    const aborted = late.execute({ ms: 150, tag: 'after-abort' }, { signal: controller.signal });
    expect(await waitFor(() => eventsOf('after-abort').includes('started'))).toBe(true);
    controller.abort();
    expect((await aborted).outcome).toBe(ToolOutcome.CANCELLED);

    const timedOut = await late.execute({ ms: 1650, tag: 'after-deadline' });
    expect(timedOut.outcome).toBe(ToolOutcome.FAILED);
    expect(timedOut.content).toBe('MCP server "lt" did not answer within 1500 ms');

    // Both answers were sent after their calls ended; the session goes on.
    expect(await waitFor(() => eventsOf('after-abort').includes('answered') && eventsOf('after-deadline').includes('answered'))).toBe(true);
    expect((await registry.tool('mcp_lt_echo')!.execute({ text: 'unharmed' })).content).toBe('unharmed');
  });
});
