// A cancelled or timed-out call to a tool that writes may have run on the server: the run page,
// `runs show` and its JSON say so. End to end: the demo's real MCP server (its export_report
// write), a real SQLite file, the real cancel and the real deadline.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type McpTool, McpServerRegistry, parseServerConfig } from '@runledger/mcp';
import { SqliteRunStore } from '@runledger/store-sqlite';
import { type ActiveRun, startRun } from '@runledger/trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunsServer } from '../src/app/startRunsServer.js';
import { DemoAgent } from '../src/demo/DemoAgent.js';
import { type DemoServers, demoServerScript, startDemoServers } from '../src/demo/DemoServers.js';
import { cli } from './cliHelpers.js';
import { send, serve, textOf } from './httpHelpers.js';

/** The deadline of the hasty server: long enough to list its tools, short for a test. */
const SHORT_DEADLINE_MS = 3_000;

/** The slow demo server again, with SHORT_DEADLINE_MS: the deadline this file checks is its export call's. */
interface HastyServer {
  readonly registry: McpServerRegistry;
  readonly export: McpTool;
}

/**
 * Starts the slow demo server once more, its calls ending at SHORT_DEADLINE_MS. Its listing has
 * that deadline too (connecting included), and on a loaded machine (the Node 24 pass beside the
 * release test) a child Node may take longer to come up: the listing is asked again on the same
 * registry, whose connection goes on in the background, until the tool is there or 40 s have
 * passed. Starting a new set of children for each try (as before) failed three times in a row there.
 */
async function startHastyServer(): Promise<HastyServer> {
  const registry = McpServerRegistry.create(
    parseServerConfig({
      servers: [
        {
          id: 'slow',
          name: 'demo slow, hasty',
          transport: { type: 'stdio', command: process.execPath, args: [demoServerScript(), 'slow'] },
          deadlineMs: SHORT_DEADLINE_MS,
        },
      ],
    }),
  );
  for (const until = Date.now() + 40_000; ;) {
    const tool = (await registry.tools({ refresh: true })).find((listed) => listed.name === 'mcp_slow_export_report');
    if (tool !== undefined) return { registry, export: tool };
    if (Date.now() > until) {
      await registry.close();
      throw new Error(`the hasty slow server did not come up: ${registry.serverProblems.map((p) => p.reason).join('; ')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

let dir: string;
let file: string;
let writer: SqliteRunStore;
let reader: SqliteRunStore;
let servers: DemoServers;
let hasty: HastyServer;
let app: RunsServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'runledger-may-have-executed-'));
  file = join(dir, 'runs.db');
  writer = await SqliteRunStore.open({ path: file });
  reader = await SqliteRunStore.open({ path: file });
  servers = await startDemoServers();
  hasty = await startHastyServer();
  app = await serve(reader);
}, 60_000);
afterAll(async () => {
  await app?.close();
  await servers?.close();
  await hasty?.registry.close();
  await reader?.close();
  await writer?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Waits until the run's call is on the wire (its tool_start step is stored). */
async function onTheWire(run: ActiveRun): Promise<void> {
  for (const until = Date.now() + 10_000; Date.now() < until; await new Promise((resolve) => setTimeout(resolve, 20))) {
    if ((await reader.readSteps(run.id)).some((step) => step.kind === 'tool_start')) return;
  }
  throw new Error('the call never went on the wire');
}

interface ShownEntry {
  kind: string;
  outcome: string;
  mayHaveExecuted: boolean;
  details: Record<string, unknown>;
}

describe('a write call whose answer was never seen', () => {
  let runId: string;

  beforeAll(async () => {
    const run = await startRun(writer, { configuration: 'may-have-executed', heartbeatMs: 0, spoolDir: false });
    runId = run.id;
    const agent = new DemoAgent(run.trace, run.signal);
    // a read that ends ok, then the export (a write) cut off by its deadline, then one cancelled mid-call
    expect((await agent.call(servers.tool('mcp_docs_search'), { query: 'retention' })).outcome).toBe('ok');
    const timedOut = await agent.call(hasty.export, { report: 'q2', seconds: 120 }, { writes: true });
    expect([timedOut.outcome, timedOut.failureCause]).toEqual(['failed', 'mcp_timeout']);
    // The slow server's connection up first (a read, not recorded), so that the export below is on
    // the wire when the cancel comes, not still waiting for its connection.
    expect((await servers.tool('mcp_slow_status').execute({})).outcome).toBe('ok');
    const call = agent.call(servers.tool('mcp_slow_export_report'), { report: 'q3', seconds: 120 }, { writes: true });
    await onTheWire(run);
    // Its start is stored before its request is written: give the request the moment it needs to
    // leave (a few milliseconds; two seconds for a loaded machine).
    await new Promise((resolve) => setTimeout(resolve, 2000));
    await run.cancel();
    const cancelled = await call;
    expect([cancelled.outcome, cancelled.sends]).toEqual(['cancelled', 1]);
    // The same write once more on the cancelled run: cancelled before its request left.
    const neverSent = await agent.call(servers.tool('mcp_slow_export_report'), { report: 'q4', seconds: 120 }, { writes: true });
    expect([neverSent.outcome, neverSent.sends]).toEqual(['cancelled', 0]);
    await run.complete();
  }, 60_000);

  it('runs show --json marks the cancelled and the timed-out write as possibly executed, not one cancelled before it was sent, and nothing else', async () => {
    const shown = await cli(['runs', 'show', runId, '--db', file, '--json'], dir);
    expect(shown.stderr).toBe('');
    const { timeline } = JSON.parse(shown.stdout) as { timeline: ShownEntry[] };
    const calls = timeline.filter((entry) => entry.kind === 'tool');
    expect(calls.map((entry) => [entry.details['toolName'], entry.outcome, entry.details['sends'], entry.mayHaveExecuted])).toEqual([
      ['mcp_docs_search', 'ok', 1, false],
      ['mcp_slow_export_report', 'failed', 1, true],
      ['mcp_slow_export_report', 'cancelled', 1, true],
      ['mcp_slow_export_report', 'cancelled', 0, false],
    ]);
    expect(timeline.filter((entry) => entry.kind !== 'tool').every((entry) => entry.mayHaveExecuted === false)).toBe(true);
  });

  it('runs show marks both rows in its text', async () => {
    const shown = await cli(['runs', 'show', runId.slice(0, 8), '--db', file], dir);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(
      /\n\S+\s+slow\s+[^\n]*\s+failed, may have executed\s+toolName=mcp_slow_export_report [^\n]*failureCause=mcp_timeout/,
    );
    expect(shown.stdout).toContain('⚠ Timed-out write call: the server may have run it; whether it changed anything is unknown.');
    expect(shown.stdout).toMatch(/\n\S+\s+slow\s+[^\n]*\s+cancelled, may have executed\s+toolName=mcp_slow_export_report /);
    expect(shown.stdout).toContain('⚠ Cancelled write call: whether the server changed anything before the call was torn down is unknown.');
    expect(shown.stdout).toMatch(/\n\S+\s+docs\s+[^\n]*\s+ok\s+toolName=mcp_docs_search /);
  });

  it('the run page marks the rows and the waterfall bars, in English and German', async () => {
    const page = (await send(app, `/runs/${runId}`)).body;
    const marked = [...page.matchAll(/<tr id="step-\d+"[^>]*data-may-have-executed="true"[\s\S]*?<\/tr>/g)].map((m) => textOf(m[0]));
    expect(marked).toHaveLength(2);
    expect(marked[0]).toMatch(
      /✕ failed ⚠ may have executed tool: mcp_slow_export_report .*⚠ Timed-out write call: the server may have run it/,
    );
    expect(marked[1]).toMatch(/⊘ cancelled ⚠ may have executed tool: mcp_slow_export_report .*⚠ Cancelled write call/);
    expect(page).toContain(
      'title="The request of this write call may have reached the server, and no answer said what became of it: check the record before running it again."',
    );
    const bars = [...page.matchAll(/<title>([^<]*)<\/title>/g)]
      .map((m) => m[1]!)
      .filter((title) => title.includes('mcp_slow_export_report'));
    expect(bars.map((title) => title.includes('may have executed'))).toEqual([true, true, false]);
    expect([...page.matchAll(/<title>[^<]*mcp_docs_search[^<]*<\/title>/g)].map((m) => m[0])).not.toContain('may have executed');

    const german = textOf((await send(app, `/runs/${runId}?lang=de`)).body);
    expect(german).toContain('✕ fehlgeschlagen ⚠ möglicherweise ausgeführt');
    expect(german).toContain('⊘ abgebrochen ⚠ möglicherweise ausgeführt');
    expect(german).toContain('Schreibaufruf mit Zeitüberschreitung: Der Server hat ihn möglicherweise ausgeführt');
  });
});
