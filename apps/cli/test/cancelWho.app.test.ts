// Issue 40 item 2, the app: a cancel through the Cancel form is kept from the app, asked by the
// access token's name, or by the user an authenticating proxy names in the header the operator
// told the app to trust (never otherwise), with the reason typed in the form. The real server, a
// real SQLite file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteRunStore } from '@runledger/store-sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunsServer, startRunsServer } from '../src/app/startRunsServer.js';
import { send, textOf } from './httpHelpers.js';
import { parsedLine } from './cliHelpers.js';

const TOKEN = 'a-secret-of-the-app';
let dir: string;
let store: SqliteRunStore;
const servers: RunsServer[] = [];
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'runledger-cancel-who-app-'));
  store = await SqliteRunStore.open({ path: join(dir, 'runs.db') });
});
afterAll(async () => {
  for (const server of servers) await server.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function app(options: { tokenName?: string; trustUserHeader?: string } = {}): Promise<RunsServer> {
  const server = await startRunsServer({ store, token: TOKEN, port: 0, timeZone: 'UTC', ...options });
  servers.push(server);
  return server;
}

/** POSTs the Cancel form of a run as the browser does. */
function cancel(server: RunsServer, id: string, body: string, headers: Record<string, string> = {}) {
  return send(server, `/runs/${id}/cancel`, {
    method: 'POST',
    body,
    headers: {
      origin: `http://127.0.0.1:${server.port}`,
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/x-www-form-urlencoded',
      ...headers,
    },
  });
}

describe('the Cancel form: who, from where and why', () => {
  it("keeps the token's name and the typed reason from the app; the run page says them", async () => {
    const server = await app({ tokenName: 'ops-laptop' });
    const run = await store.createRun({ configuration: 'who' });
    // a proxy's header is not trusted unless the operator said so
    const reply = await cancel(server, run.id, 'reason=wrong+prompt%2C+st%C3%BCck', { 'x-forwarded-user': 'mallory' });
    expect(reply.status).toBe(303);
    const stored = (await store.getRun(run.id))!;
    expect(stored.cancelRequest).toEqual({ at: stored.cancelRequestedAt, from: 'app', by: 'ops-laptop', reason: 'wrong prompt, stück' });
    const page = await send(server, `/runs/${run.id}`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(textOf(page.body)).toContain('by ops-laptop from the app: wrong prompt, stück');
    const de = await send(server, `/runs/${run.id}?lang=de`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(textOf(de.body)).toContain('von ops-laptop über die App: wrong prompt, stück');
  });

  it('names the unnamed token "token", and an empty reason is none', async () => {
    const server = await app();
    const run = await store.createRun({ configuration: 'who' });
    expect((await cancel(server, run.id, 'reason=++')).status).toBe(303);
    expect((await store.getRun(run.id))!.cancelRequest).toMatchObject({ from: 'app', by: 'token', reason: null });
  });

  it('on a loopback app without a token: the name the operator gave it (--token-name), else no one', async () => {
    for (const [tokenName, by] of [
      ['alice-laptop', 'alice-laptop'],
      [undefined, null],
    ] as const) {
      const server = await startRunsServer({ store, port: 0, timeZone: 'UTC', ...(tokenName === undefined ? {} : { tokenName }) });
      servers.push(server);
      const run = await store.createRun({ configuration: 'who' });
      const reply = await send(server, `/runs/${run.id}/cancel`, {
        method: 'POST',
        body: 'reason=local',
        headers: { origin: `http://127.0.0.1:${server.port}`, 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(reply.status).toBe(303);
      expect((await store.getRun(run.id))!.cancelRequest).toMatchObject({ from: 'app', by, reason: 'local' });
    }
  });

  it('takes the user a trusted header names, when the operator said to trust that header', async () => {
    const server = await app({ tokenName: 'proxy', trustUserHeader: 'X-Forwarded-User' });
    const run = await store.createRun({ configuration: 'who' });
    expect((await cancel(server, run.id, 'reason=done', { 'x-forwarded-user': 'carol@example.com' })).status).toBe(303);
    expect((await store.getRun(run.id))!.cancelRequest).toMatchObject({ from: 'app', by: 'carol@example.com', reason: 'done' });
    // without the header: the token's name
    const other = await store.createRun({ configuration: 'who' });
    expect((await cancel(server, other.id, '')).status).toBe(303);
    expect((await store.getRun(other.id))!.cancelRequest).toMatchObject({ from: 'app', by: 'proxy', reason: null });
  });

  it('refuses a reason outside the rule (400) naming the field and the rule, and cancels nothing', async () => {
    const server = await app();
    const run = await store.createRun({ configuration: 'who' });
    const reply = await cancel(server, run.id, `reason=${'r'.repeat(501)}`);
    expect(reply.status).toBe(400);
    expect(textOf(reply.body)).toContain('CancelRequestInput.reason must be a string of 1 to 500 characters');
    const bell = await cancel(server, run.id, 'reason=ring%07');
    expect(bell.status).toBe(400);
    expect((await store.getRun(run.id))!.cancelRequestedAt).toBeNull();
  });
});

describe('serve --token-name and --trust-user-header', () => {
  const env = { cwd: '/work/here' };
  it('reads them, and refuses a name or header outside the rule naming the flag', () => {
    expect(parsedLine(['serve', '--token-name', 'ops-laptop', '--trust-user-header', 'X-Forwarded-User'], env)).toMatchObject({
      name: 'serve',
      tokenName: 'ops-laptop',
      trustUserHeader: 'X-Forwarded-User',
    });
    expect(parsedLine(['serve'], env)).toMatchObject({ tokenName: null, trustUserHeader: null });
    // RUNLEDGER_TOKEN_NAME beside RUNLEDGER_TOKEN (a service file sets both); the flag wins, an empty one is none
    expect(parsedLine(['serve'], { ...env, tokenName: 'ops-service' })).toMatchObject({ tokenName: 'ops-service' });
    expect(parsedLine(['serve', '--token-name', 'cli'], { ...env, tokenName: 'ops-service' })).toMatchObject({ tokenName: 'cli' });
    expect(parsedLine(['serve'], { ...env, tokenName: '' })).toMatchObject({ tokenName: null });
    expect(() => parsedLine(['serve'], { ...env, tokenName: 'a\tb' })).toThrow(
      'runledger serve: --token-name must be 1 to 200 characters without control characters',
    );
    expect(() => parsedLine(['serve', '--trust-user-header', 'X Forwarded User'], env)).toThrow(
      'runledger serve: --trust-user-header must be an HTTP header name, got "X Forwarded User"',
    );
    expect(() => parsedLine(['serve', '--token-name', 'a\tb'], env)).toThrow(
      'runledger serve: --token-name must be 1 to 200 characters without control characters',
    );
  });
});
