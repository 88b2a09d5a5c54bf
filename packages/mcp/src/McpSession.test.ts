// The one connection of a server when its start fails: the callers waiting on a connect share it
// and its failure, and a failed connect never starts one new server process per waiting caller.
// A real stdio process that writes nothing and exits (the fixture's `mute` mode).
import { McpTransportErrorCode, ToolOutcome } from '@runledger/core';
import { afterEach, describe, expect, it } from 'vitest';
import { McpSession } from './McpSession.js';
import { RemoteMcpTool } from './RemoteMcpTool.js';
import { MUTE_EXIT_MS } from './testing/fixture-server.mjs';
import { isProcessAlive, NO_ANNOTATIONS, newEventsFile, readEvents, stdioFixtureConfig, waitFor } from './testing/fixtures.js';

const sessions: McpSession[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((session) => session.close()));
});

/** The server processes started so far (each reports itself first thing). */
function startedPids(events: string): number[] {
  return readEvents(events)
    .filter((e) => e.event === 'server_started')
    .map((e) => e.pid);
}

/** Waits until no new server process has started for `quietMs` (at most `timeoutMs`). */
async function whenQuiet(events: string, quietMs: number, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  let count = startedPids(events).length;
  let since = Date.now();
  while (Date.now() < until && Date.now() - since < quietMs) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    const now = startedPids(events).length;
    if (now !== count) {
      count = now;
      since = Date.now();
    }
  }
}

/** A session of the mute fixture and its `echo` tool (never listed: the server cannot list). */
function muteServer(events: string, deadlineMs: number): { session: McpSession; echo: RemoteMcpTool } {
  const session = new McpSession(stdioFixtureConfig({ id: 'mute', mode: 'mute', eventsFile: events, deadlineMs }), {
    env: process.env,
    maxListPages: 50,
  });
  sessions.push(session);
  const echo = new RemoteMcpTool({
    name: 'mcp_mute_echo',
    wire: {
      name: 'echo',
      title: undefined,
      description: '',
      inputSchema: { type: 'object' },
      annotations: NO_ANNOTATIONS,
    },
    session,
    onContact: undefined,
  });
  return { session, echo };
}

describe('McpSession: a server whose start fails', () => {
  it('5 callers still waiting when the connect fails all fail with its error, and no caller connects again', async () => {
    const events = newEventsFile();
    const { session, echo } = muteServer(events, 15_000);
    const began = performance.now();
    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => echo.execute({ text: `caller ${i}` })));
    for (const result of results) {
      expect(result.outcome).toBe(ToolOutcome.FAILED);
      expect(result.failureCause).toBe(McpTransportErrorCode.TRANSPORT_FAILURE);
    }
    // At the failed connect, not at the deadline.
    expect(performance.now() - began).toBeLessThan(10_000);
    await whenQuiet(events, 2 * MUTE_EXIT_MS + 800, 15_000);
    expect(startedPids(events)).toHaveLength(1);
    await session.close();
  });

  it('5 callers waiting on one failing connect start at most one more server process, after every call has ended', async () => {
    const events = newEventsFile();
    const { session, echo } = muteServer(events, 150);
    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => echo.execute({ text: `caller ${i}` })));
    // Every call ended at its deadline while the one connect was still under way.
    for (const result of results) {
      expect(result.outcome).toBe(ToolOutcome.FAILED);
      expect(result.failureCause).toBe(McpTransportErrorCode.DEADLINE_EXHAUSTED);
    }
    // The connect fails when the process exits (MUTE_EXIT_MS after it started). Before the fix each
    // waiting caller then started a connect of its own, one after another: 5 processes in all.
    expect(await waitFor(() => startedPids(events).length >= 1, 10_000)).toBe(true);
    await whenQuiet(events, 2 * MUTE_EXIT_MS + 800, 15_000);
    const pids = startedPids(events);
    expect(pids.length, `server processes started: ${pids.length}`).toBeLessThanOrEqual(2);
    await session.close();
    for (const pid of pids) expect(isProcessAlive(pid)).toBe(false);
  });
});
