// `runledger alerts`, `runledger serve --alerts` and `runledger servers --check`, in process, on a
// real SQLite file and a real local webhook receiver.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteRunStore } from '@runledger/store-sqlite';
import type { RunStore } from '@runledger/trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRunsServer } from '../src/app/startRunsServer.js';
import { cli } from './cliHelpers.js';

let dir: string;
let receiver: Server;
let hookUrl: string;
const received: Record<string, unknown>[] = [];

/** A store whose server `flaky` failed 5 of 5 calls and whose server `quiet` was only ever cancelled by the operator. */
async function storeWith(file: string, failures: boolean): Promise<void> {
  const store: RunStore = await SqliteRunStore.open({ path: file });
  const run = await store.createRun({ configuration: 'batch' });
  const step = (server: string, outcome: 'failed' | 'cancelled', at: number) =>
    store.appendStep(run.id, {
      kind: 'tool',
      round: 0,
      durationMs: 10,
      createdAt: at,
      payload: {
        kind: 'tool',
        toolName: `mcp_${server}_x`,
        toolServer: server,
        toolIsError: true,
        toolOutcome: outcome,
        ...(outcome === 'failed' ? { toolFailureCause: 'server_error' } : {}),
      },
      toolServer: server,
      toolOutcome: outcome,
    });
  const now = Date.now();
  for (let i = 0; i < 5; i++) if (failures) await step('flaky', 'failed', now - 1000 + i);
  for (let i = 0; i < 40; i++) await step('quiet', 'cancelled', now - 500 + i);
  await store.finishRun(run.id, { status: 'completed' });
  await store.close();
}

const rulesFile = (name: string, url: string): string => {
  const file = join(dir, name);
  writeFileSync(
    file,
    JSON.stringify({
      webhooks: [{ name: 'hook', url }],
      rules: [
        { id: 'flaky', kind: 'flaky', window: '1h' },
        { id: 'rate', kind: 'failure-rate', above: 0.5, window: '1h', minCalls: 3 },
      ],
    }),
  );
  return file;
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'runledger-alerts-cli-'));
  receiver = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    req.on('end', () => {
      received.push(JSON.parse(text) as Record<string, unknown>);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
  hookUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
});
afterAll(async () => {
  await new Promise((resolve) => receiver?.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe('runledger alerts --once', () => {
  it('notifies each change once across runs, and exits 1 while a notification is owed', async () => {
    const db = join(dir, 'once.db');
    await storeWith(db, true);
    const rules = rulesFile('once.rules.json', hookUrl);
    received.length = 0;
    const first = await cli(['alerts', '--db', db, '--rules', rules, '--once'], dir);
    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(first.stdout).toContain('alert firing: flaky: server flaky is flaky: 100.0% of 5 answered calls failed in the last 1 hr');
    expect(first.stdout).toContain('alerts: 2 firing, 2 changed, 2 delivered, 0 owed');
    expect(received.map((b) => `${String(b['status'])} ${String(b['rule'])} ${String(b['subject'])}`).sort()).toEqual([
      'firing flaky flaky',
      'firing rate flaky',
    ]);
    const again = await cli(['alerts', '--db', db, '--rules', rules, '--once'], dir);
    expect(again.stdout).toBe('alerts: 2 firing, 0 changed, 0 delivered, 0 owed\n');
    expect(received).toHaveLength(2);

    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', () => resolve()));
    const port = (closed.address() as { port: number }).port;
    await new Promise((resolve) => closed.close(resolve));
    const down = rulesFile('down.rules.json', `http://127.0.0.1:${port}/hook`);
    const owed = await cli(['alerts', '--db', db, '--rules', down, '--once'], dir);
    expect(owed.code).toBe(1);
    expect(owed.stdout).toContain('2 owed');
    expect(owed.stdout).toContain('alerts: webhook hook: fetch failed (ECONNREFUSED) after 3 tries; kept for the next pass');
  }, 30_000);

  it('refuses a rules file that breaks a rule, naming the field (exit 2)', async () => {
    const db = join(dir, 'once.db');
    const bad = join(dir, 'bad.rules.json');
    writeFileSync(bad, JSON.stringify({ rules: [{ id: 'r', kind: 'failure-rate', above: 2, window: '1h', minCalls: 3 }] }));
    const result = await cli(['alerts', '--db', db, '--rules', bad, '--once'], dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`runledger alerts: the rules of ${bad} are not valid: rules[0] ("r").above must be a number from 0 to 1\n`);
    const missing = await cli(['alerts', '--db', db, '--once'], dir);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('runledger alerts: --rules <file> is required');
    const both = await cli(['alerts', '--db', db, '--rules', bad, '--once', '--every', '5m'], dir);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('runledger alerts: --once and --every exclude each other');
  });
});

describe('runledger servers --check', () => {
  it('exits 1 listing the rules that fire, 0 when none does (operator cancels never fire)', async () => {
    const bad = join(dir, 'check-bad.db');
    const calm = join(dir, 'check-calm.db');
    await storeWith(bad, true);
    await storeWith(calm, false);
    const rules = rulesFile('check.rules.json', hookUrl);
    const firing = await cli(['servers', '--db', bad, '--check', '--rules', rules], dir);
    expect(firing.code).toBe(1);
    expect(firing.stdout).toContain('firing: flaky: server flaky is flaky');
    expect(firing.stdout).toContain('firing: rate: server flaky: 100.0% of 5 answered calls failed in the last 1 hr (above 50.0%)');
    expect(firing.stdout).toContain('check: 2 alerts firing\n');
    const quiet = await cli(['servers', '--db', calm, '--check', '--rules', rules], dir);
    expect(quiet).toMatchObject({ code: 0 });
    expect(quiet.stdout).toContain('check: no alert rule fires\n');
    const json = await cli(['servers', '--db', bad, '--json', '--check', '--rules', rules], dir);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout).servers).toHaveLength(2);
    expect(json.stderr).toContain('check: 2 alerts firing');
    const alone = await cli(['servers', '--db', bad, '--check'], dir);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('runledger servers: --check needs --rules <file>');
  });
});

describe('runledger serve --alerts', () => {
  it('evaluates while serving and stops with the app', async () => {
    const db = join(dir, 'serve.db');
    await storeWith(db, true);
    const rules = rulesFile('serve.rules.json', hookUrl);
    received.length = 0;
    const stop = new AbortController();
    let url = '';
    const served = cli(['serve', '--db', db, '--port', '0', '--alerts', rules, '--alerts-every', '1s'], dir, {
      signal: stop.signal,
      onListening: (at) => (url = at),
    });
    for (const until = Date.now() + 10_000; received.length < 2 && Date.now() < until;) await new Promise((r) => setTimeout(r, 50));
    // the servers page shows the evaluator's state (its default file beside the rules): both firing, both changes
    let page = '';
    for (const until = Date.now() + 5_000; !page.includes('data-delivery="delivered"') && Date.now() < until;) {
      page = await (await fetch(`${url}servers?lang=en`)).text();
      if (!page.includes('data-delivery="delivered"')) await new Promise((r) => setTimeout(r, 100));
    }
    stop.abort();
    expect(page).toContain('data-alerts="on"');
    expect(page).toContain('2 alerts firing');
    expect(page.match(/<li data-change="firing"[^>]*data-delivery="delivered"/g)).toHaveLength(2);
    const result = await served;
    expect(result.code).toBe(0);
    expect(received.map((b) => b['rule']).sort()).toEqual(['flaky', 'rate']);
    expect(result.stdout).toContain('alert firing: flaky: server flaky is flaky');
    expect(result.stdout).toContain('stopped serving');
  }, 20_000);

  it('stops evaluating and gives the lock up when the app cannot start', async () => {
    const db = join(dir, 'busy.db');
    await storeWith(db, true);
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', () => resolve()));
    try {
      const port = String((busy.address() as { port: number }).port);
      const result = await cli(['serve', '--db', db, '--port', port, '--alerts', rulesFile('busy.rules.json', hookUrl)], dir);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('is already in use');
      expect(existsSync(`${db}.alerts.lock`)).toBe(false);
    } finally {
      await new Promise((resolve) => busy.close(resolve));
    }
  });
});

describe('the servers page of an app with an alert state file it cannot read', () => {
  it('names the file and the reason in the alerts section, and still shows the page (200)', async () => {
    const db = join(dir, 'unreadable.db');
    await storeWith(db, true);
    const stateFile = join(dir, 'garbage.state.json');
    writeFileSync(stateFile, '{"version":7}');
    const store = await SqliteRunStore.open({ path: db });
    const app = await startRunsServer({ store, alertStateFile: stateFile });
    try {
      const response = await fetch(`${app.url}servers?lang=en`);
      expect(response.status).toBe(200);
      const page = await response.text();
      expect(page).toContain('data-alerts="unreadable"');
      expect(page).toContain(`The alert state file cannot be read: ${stateFile} is not an alert state file of runledger`);
      expect(page).toContain('data-server="flaky"');
    } finally {
      await app.close();
      await store.close();
    }
  });
});
