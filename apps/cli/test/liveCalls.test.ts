// Issue 13: a running run shows what it is doing. A real agent (the demo agent, real MCP servers
// as child processes) records into a SQLite file; the app and the CLI read that file through a
// store of their own, as another process does; the operator sees the call on the wire, presses
// Cancel, and the row becomes the recorded step with its outcome.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteRunStore } from '@runledger/store-sqlite';
import { startRun } from '@runledger/trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunsServer } from '../src/app/startRunsServer.js';
import { DemoAgent } from '../src/demo/DemoAgent.js';
import { type DemoServers, startDemoServers } from '../src/demo/DemoServers.js';
import { send, serve, textOf } from './httpHelpers.js';
import { cli } from './cliHelpers.js';

let dir: string;
let file: string;
let writer: SqliteRunStore;
let reader: SqliteRunStore;
let servers: DemoServers;
let app: RunsServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'runledger-live-'));
  file = join(dir, 'live.db');
  writer = await SqliteRunStore.open({ path: file, cancelPollMs: 20 });
  reader = await SqliteRunStore.open({ path: file });
  servers = await startDemoServers();
  app = await serve(reader);
}, 60_000);
afterAll(async () => {
  await app?.close();
  await servers?.close();
  await reader?.close();
  await writer?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('calls on the wire', () => {
  it('the page and runs show list the call on the wire; Cancel stops it and its row becomes the cancelled step', async () => {
    const run = await startRun(writer, { configuration: 'live-export', heartbeatMs: 0, spoolDir: false });
    const agent = new DemoAgent(run.trace, run.signal);
    await agent.request('Export the report.');
    await agent.think('Exporting.', { promptTokens: 10, completionTokens: 5, tools: ['mcp_slow_export_report'] });
    const call = agent.call(servers.tool('mcp_slow_export_report'), { report: 'q3-revenue', seconds: 120 }, { writes: true });

    let page = '';
    await expect
      .poll(async () => (page = (await send(app, `/runs/${run.id}`)).body), { timeout: 10_000 })
      .toContain('data-call-state="on_the_wire"');
    const wire = /<section class="card wire"[\s\S]*?<\/section>/.exec(page)?.[0] ?? '';
    expect(textOf(wire)).toMatch(
      /^Calls on the wire Sent and not answered yet: these are the calls the Cancel button stops\. Tool Server Sent Running for mcp_slow_export_report slow \d\d:\d\d:\d\d\.\d{3} \d+ ms$/,
    );
    expect(page).toContain('data-action="cancel"');
    const row = /<tr id="step-\d+" class="row-on_the_wire"[\s\S]*?<\/tr>/.exec(page)?.[0] ?? '';
    expect(textOf(row)).toMatch(/slow tool call sent 1 [\d.,]+ (ms|sec) ◔ on the wire tool: mcp_slow_export_report arguments: 2$/);

    const show = await cli(['runs', 'show', run.id.slice(0, 8), '--db', file], dir);
    expect(show.stderr).toBe('');
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(
      /\nCalls on the wire: Sent and not answered yet: these are the calls the Cancel button stops\.\nTOOL\s+SERVER\s+SENT\s+RUNNING FOR\n[─ ]+\nmcp_slow_export_report\s+slow\s+\d\d:\d\d:\d\d\.\d{3}\s+\d+ ms\n/,
    );
    expect(show.stdout).toMatch(/slow\s+tool call sent\s+1\s+[\d.]+ (ms|sec)\s+on the wire\s+toolName=mcp_slow_export_report/);
    const json = JSON.parse((await cli(['runs', 'show', run.id, '--db', file, '--json'], dir)).stdout) as {
      callsOnTheWire: { details: { toolName: string }; callState: string }[];
    };
    expect(json.callsOnTheWire.map((entry) => [entry.details.toolName, entry.callState])).toEqual([
      ['mcp_slow_export_report', 'on_the_wire'],
    ]);

    // the operator presses Cancel in the app (another store on the same file)
    const press = await send(app, `/runs/${run.id}/cancel`, { method: 'POST', headers: { origin: `http://127.0.0.1:${app.port}` } });
    expect(press.status).toBe(303);
    const result = await call;
    expect(result.outcome).toBe('cancelled');
    await run.complete();

    const after = (await send(app, `/runs/${run.id}`)).body;
    expect(after).not.toContain('data-call-state=');
    expect(after).not.toContain('data-section="wire"');
    const ended = /<tr id="step-\d+" class="row-cancelled"[\s\S]*?<\/tr>/.exec(after)?.[0] ?? '';
    expect(textOf(ended)).toMatch(/slow tool call 1 [\d.,]+ (ms|sec) ⊘ cancelled ⚠ may have executed tool: mcp_slow_export_report/);
    expect(textOf(after)).toContain(
      'Reason cancelled by an operator from outside the run (the app’s Cancel button, or another process through the store)',
    );
    const shown = await cli(['runs', 'show', run.id.slice(0, 8), '--db', file], dir);
    expect(shown.stdout).not.toContain('Calls on the wire');
    expect(shown.stdout).not.toMatch(/tool call sent|tool_start/);
  }, 60_000);

  it('a run that ended with a call on the wire shows it as interrupted', async () => {
    const run = await startRun(writer, { configuration: 'live-crash', heartbeatMs: 0, spoolDir: false, cancelGraceMs: 60_000 });
    await run.trace.recordToolStart({ toolName: 'mcp_docs_search', toolServer: 'docs', toolArguments: { q: 'x' }, round: 1 });
    await run.fail(new Error('the agent process lost its model connection'));
    const page = (await send(app, `/runs/${run.id}?lang=de`)).body;
    const row = /<tr id="step-\d+" class="row-interrupted"[\s\S]*?<\/tr>/.exec(page)?.[0] ?? '';
    expect(textOf(row)).toMatch(
      /docs Tool-Aufruf gesendet 1 — ! unterbrochen Tool: mcp_docs_search Argumente: 1 ⚠ Der Lauf endete, während dieser Aufruf unterwegs war; es wurde kein Ergebnis aufgezeichnet\./,
    );
    expect(page).not.toContain('data-section="wire"');
    const show = await cli(['runs', 'show', run.id, '--db', file], dir);
    expect(show.stdout).toMatch(
      /docs\s+tool call sent\s+1\s+interrupted\s+toolName=mcp_docs_search toolServer=docs toolArgumentCount=1\s+⚠ The run ended while this call was on the wire/,
    );
  });
});
