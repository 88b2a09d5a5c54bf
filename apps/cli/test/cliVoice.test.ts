// One voice (issue 40 item 6): `runledger servers` lists the servers in the servers page's order
// (worst first: flaky, then the failure rate) with its words for the health and the causes, and
// the CLI says a count as the app does, `1 run`, never `1 runs`. A real SQLite file, the real app.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteRunStore } from '@runledger/store-sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunsServer } from '../src/app/startRunsServer.js';
import { cli } from './cliHelpers.js';
import { send, serve, textOf } from './httpHelpers.js';
import { type SeedCall, seedRun } from './seedRun.js';

let dir: string;
let db: string;
let store: SqliteRunStore;
let app: RunsServer;
let runId: string;

/** `n` calls of one kind. */
function calls(n: number, call: SeedCall): SeedCall[] {
  return Array.from({ length: n }, () => call);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'runledger-voice-'));
  db = join(dir, 'runs.db');
  store = await SqliteRunStore.open({ path: db });
  const run = await seedRun(store, {
    configuration: 'voice',
    createdAt: Date.now() - 3_600_000,
    calls: [
      // flaky: 4 of 10 answered calls failed (40 %), enough calls for a verdict
      ...calls(6, { server: 'flaky', tool: 'search', outcome: 'ok' }),
      ...calls(4, { server: 'flaky', tool: 'search', outcome: 'failed', cause: 'server_error' }),
      // a worse rate on too few calls for a verdict: after the flaky server all the same
      ...calls(1, { server: 'thin', tool: 'export', outcome: 'failed', cause: 'mcp_timeout' }),
      ...calls(6, { server: 'healthy', tool: 'read', outcome: 'ok' }),
      ...calls(1, { server: 'silent', tool: 'ping', outcome: 'cancelled' }),
    ],
  });
  runId = run.id;
  app = await serve(store);
});
afterAll(async () => {
  await app?.close();
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the command line in the app’s words', () => {
  it('servers: worst first in the servers page’s order, with its words for the health and the causes', async () => {
    const health = await cli(['servers', '--db', db], dir);
    expect(health.stderr).toBe('');
    expect(health.code).toBe(0);
    const lines = health.stdout.split('\n');
    const listed = lines.slice(2, 6).map((line) => line.split(/\s+/)[0]);
    expect(listed).toEqual(['flaky', 'thin', 'healthy', 'silent']);

    const page = (await send(app, '/servers?lang=en')).body;
    const onPage = [...page.matchAll(/<tr data-server="([^"]+)"/g)].map((m) => m[1]);
    expect(onPage).toEqual(listed);
    // each row's verdict and causes in the page's words
    for (const server of onPage) {
      const row = new RegExp(`<tr data-server="${server}"[\\s\\S]*?</tr>`).exec(page)![0];
      const verdict = textOf(/<td class="health">([\s\S]*?)<\/td>/.exec(row)![1]!).replace(/^[^\p{L}]+/u, '');
      const line = lines.find((text) => text.startsWith(`${server} `))!;
      expect(line.endsWith(`  ${verdict}`), `${line} / ${verdict}`).toBe(true);
    }
    expect(lines.find((text) => text.startsWith('flaky '))).toMatch(/40\.0%\s+server error answer: 4\s/);
    expect(lines.find((text) => text.startsWith('thin '))).toMatch(/100\.0%\s+timeout: 1\s.*too few calls$/);
    expect(page).toContain('server error answer: 4');
    // the page's explanation of the rate, word for word
    expect(health.stdout).toContain('Failure rate = failed ÷ (ok + failed), without cancellations');
    expect(health.stdout).not.toMatch(/FLAKY|server_error/);

    const json = JSON.parse((await cli(['servers', '--db', db, '--json'], dir)).stdout) as { servers: { server: string }[] };
    expect(json.servers.map((row) => row.server)).toEqual(listed);
  });

  it('runs list: one run is "1 run", as the runs page says it', async () => {
    const list = await cli(['runs', 'list', '--db', db], dir);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/\ntotal: 1 run · 0 tokens\n/);
    expect(textOf((await send(app, '/?lang=en')).body)).toContain('1 run · 0 tokens');
    expect(textOf((await send(app, '/?lang=de')).body)).toContain('1 Lauf · 0 Tokens');
  });

  it('runs show: one step not stored is "1 step … was not stored", in the run page’s words', async () => {
    const run = await store.createRun({ configuration: 'voice-unstored' });
    await store.finishRun(run.id, { status: 'completed', unstoredSteps: 1 });
    const show = await cli(['runs', 'show', run.id, '--db', db], dir);
    expect(show.code).toBe(0);
    const note = '1 step of this run was not stored: the store refused it and it could not be spooled.';
    expect(show.stdout).toContain(`⚠ ${note}`);
    expect(textOf((await send(app, `/runs/${run.id}?lang=en`)).body)).toContain(note);
    // the summary's labels are the run page's
    expect(show.stdout).toMatch(/^Run \S+\nStatus: completed\nConfiguration: voice-unstored\n/);
    const shownRun = await cli(['runs', 'show', runId, '--db', db], dir);
    expect(shownRun.stdout).toContain('\nTool calls: 12 ok, 5 failed, 1 cancelled\n');
  });
});
