// The app's and the CLI's security guarantees in one place, over real HTTP on a real server and
// real stores (in memory, SQLite, PostgreSQL): escaping of every displayed field (checked by
// parsing the HTML), CSRF on the cancel action, token mode (no open redirect, the token never in a
// page, link or log line), the DNS-rebinding guard, each route's methods, malformed input as a
// 400 page, failures as a generic 500 page, security headers on every response, and control
// characters of stored text escaped by the CLI.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PostgresRunStore } from '@runledger/store-postgres';
import { SqliteRunStore } from '@runledger/store-sqlite';
import { InMemoryRunStore, type RunStore, type StoredRun } from '@runledger/trace';
import { type DefaultTreeAdapterMap, parse } from 'parse5';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type RunsServer, startRunsServer } from '../src/app/startRunsServer.js';
import { terminalJson, terminalText } from '../src/cli/terminalText.js';
import { type Reply, send, serve } from './httpHelpers.js';
import { seedRun } from './seed.js';
import { cli } from './cliHelpers.js';

type Node = DefaultTreeAdapterMap['node'];
type Element = DefaultTreeAdapterMap['element'];

const T0 = Date.UTC(2026, 10, 29, 9, 0, 0);
const PG_URL = process.env['RUNLEDGER_PG_URL'] || 'postgres://postgres@127.0.0.1:5432/test';
const TOKEN = 's3cret-token-value';

let dir: string;
const servers: RunsServer[] = [];
const closers: (() => Promise<void>)[] = [];
/** Every reply of this file, to check the security headers on each of them at the end. */
const replies: { what: string; reply: Reply }[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'runledger-ui-security-'));
});
afterEach(async () => {
  while (servers.length > 0) await servers.pop()!.close();
});
afterAll(async () => {
  while (closers.length > 0) await closers.pop()!();
  rmSync(dir, { recursive: true, force: true });
});

async function request(
  server: RunsServer,
  path: string,
  options: { method?: string; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const reply = await send(server, path, options);
  replies.push({ what: `${options.method ?? 'GET'} ${path}`, reply });
  return reply;
}

async function started(
  store: RunStore,
  options: { token?: string | null; log?: (line: string) => void; host?: string } = {},
): Promise<RunsServer> {
  const server =
    options.log === undefined && options.host === undefined
      ? await serve(store, options.token ?? null)
      : await startRunsServer({
          store,
          token: options.token ?? null,
          host: options.host ?? '127.0.0.1',
          port: 0,
          timeZone: 'UTC',
          log: options.log,
        });
  servers.push(server);
  return server;
}

let storeCount = 0;
/** The three stores the app runs on, each fresh. */
const STORES: readonly [string, () => Promise<RunStore>][] = [
  ['in memory', async () => InMemoryRunStore.create()],
  [
    'SQLite',
    async () => {
      const store = await SqliteRunStore.open({ path: join(dir, `s${storeCount++}.db`) });
      closers.push(() => store.close().catch(() => undefined));
      return store;
    },
  ],
  [
    'PostgreSQL',
    async () => {
      const schema = `runledger_ui_sec_${process.pid}_${storeCount++}`;
      const store = await PostgresRunStore.connect({ connectionString: PG_URL, schema, poolSize: 2 });
      closers.push(async () => {
        await store.close().catch(() => undefined);
        const client = new pg.Client({ connectionString: PG_URL });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await client.end();
      });
      return store;
    },
  ],
];

// ---------------------------------------------------------------------------------------------
// HTML, parsed

function elements(node: Node, out: Element[] = []): Element[] {
  if ('tagName' in node) out.push(node);
  const children = 'childNodes' in node ? node.childNodes : [];
  for (const child of children) elements(child, out);
  if ('content' in node && node.content !== undefined) elements(node.content as Node, out);
  return out;
}

/** The text of the page's main element (the navigation around it is the app's own). */
function mainText(body: string): string {
  const main = elements(parse(body)).find((element) => element.tagName === 'main');
  return main === undefined ? '' : textContent(main);
}

function textContent(node: Node): string {
  if (node.nodeName === '#text') return (node as DefaultTreeAdapterMap['textNode']).value;
  const children = 'childNodes' in node ? node.childNodes : [];
  return children.map(textContent).join('');
}

/** The tags the app's pages are made of; anything else in a page came from data. */
const APP_TAGS = new Set([
  'html',
  'head',
  'body',
  'meta',
  'title',
  'style',
  'a',
  'small',
  'header',
  'nav',
  'span',
  'main',
  'h1',
  'h2',
  'p',
  'section',
  'div',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
  'form',
  'button',
  'label',
  'select',
  'option',
  'input',
  'dl',
  'dt',
  'dd',
  'strong',
  'time',
  'code',
  'abbr',
  'caption',
  'ul',
  'li',
  'details',
  'summary',
  'footer',
  'em',
  'br',
]);

/**
 * Parses a page as a browser would and checks that no data became markup: only the app's tags,
 * no event-handler attribute, every link and form target a path of this site.
 */
function assertInertPage(body: string, what: string): string {
  const document = parse(body);
  for (const element of elements(document)) {
    expect(APP_TAGS.has(element.tagName), `${what}: unexpected <${element.tagName}>`).toBe(true);
    for (const attr of element.attrs) {
      expect(attr.name, `${what}: <${element.tagName} ${attr.name}>`).not.toMatch(/^on/i);
      if (attr.name === 'href' || attr.name === 'action' || attr.name === 'src') {
        expect(attr.value, `${what}: ${attr.name}`).toMatch(/^(?:\/(?![/\\])|#|\?)/);
      }
    }
  }
  return textContent(document);
}

const XSS = [
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(2)>',
  "'><svg onload=alert(3)>",
  '</td></tr></table><iframe src="javascript:alert(4)"></iframe>',
  '<a href="//evil.example/">x</a>',
];

// ---------------------------------------------------------------------------------------------

describe.each(STORES)('every displayed field is text on %s (XSS)', (_name, open) => {
  it('runs list, run page, servers page and error pages: payloads render as text, never as markup', async () => {
    const store = await open();
    const created: StoredRun[] = [];
    for (const [i, payload] of XSS.entries()) {
      const run = await store.createRun({ configuration: `cfg ${payload}`, actor: `actor ${payload}`, createdAt: T0 + i * 1000 });
      const server = `srv${i}${payload}`;
      await store.appendStep(run.id, {
        kind: 'tool',
        round: 1,
        durationMs: 5,
        createdAt: T0 + i * 1000 + 10,
        payload: {
          kind: 'tool',
          toolName: `tool ${payload}`,
          toolServer: server,
          toolIsError: true,
          toolOutcome: 'failed',
          round: 1,
          durationMs: 5,
        },
        toolServer: server,
        toolOutcome: 'failed',
      });
      await store.appendStep(run.id, {
        kind: 'llm',
        round: 1,
        durationMs: 5,
        createdAt: T0 + i * 1000 + 20,
        payload: { kind: 'llm', model: `model ${payload}`, finishReason: `finish ${payload}`, round: 1, durationMs: 5 },
        toolServer: null,
        toolOutcome: null,
      });
      created.push(
        await store.finishRun(run.id, { status: 'failed', finishedAt: T0 + i * 1000 + 30, terminationReason: `reason ${payload}` }),
      );
    }
    const app = await started(store);
    const list = await request(app, '/');
    expect(list.status).toBe(200);
    const listText = assertInertPage(list.body, 'runs list');
    for (const payload of XSS) expect(listText).toContain(`cfg ${payload}`);

    for (const [i, run] of created.entries()) {
      const page = await request(app, `/runs/${run.id}`);
      expect(page.status).toBe(200);
      const text = assertInertPage(page.body, `run page ${i}`);
      const payload = XSS[i]!;
      for (const shown of [
        `cfg ${payload}`,
        `actor ${payload}`,
        `reason ${payload}`,
        `tool ${payload}`,
        `srv${i}${payload}`,
        `model ${payload}`,
        `finish ${payload}`,
      ]) {
        expect(text, `run page ${i}`).toContain(shown);
      }
    }

    const health = await request(app, '/servers');
    const healthText = assertInertPage(health.body, 'servers page');
    for (const [i, payload] of XSS.entries()) expect(healthText).toContain(`srv${i}${payload}`);

    // error pages echo what the request said, as text
    for (const payload of XSS) {
      const badCursor = await request(app, `/?cursor=${encodeURIComponent(payload)}&lang=${encodeURIComponent(payload)}`);
      expect(badCursor.status).toBe(400);
      expect(assertInertPage(badCursor.body, 'bad cursor page')).toContain(JSON.stringify(payload));
      const badId = await request(app, `/runs/${encodeURIComponent(payload)}`);
      expect(badId.status).toBe(400);
      assertInertPage(badId.body, 'bad run id page');
      assertInertPage((await request(app, `/nope/${encodeURIComponent(payload)}`)).body, '404 page');
      assertInertPage((await request(app, `/?status=${encodeURIComponent(payload)}&has=${encodeURIComponent(payload)}`)).body, 'filters');
      assertInertPage(
        (await request(app, `/servers?sort=${encodeURIComponent(payload)}&dir=${encodeURIComponent(payload)}`)).body,
        'servers sort',
      );
    }
  });
});

describe.each(STORES)('malformed input is a 400 page, a failure a generic 500 page, on %s', (_name, open) => {
  it('answers 400 (never 500, never SQL or a stack) for a malformed cursor or run id', async () => {
    const store = await open();
    const run = await seedRun(store, { configuration: 'x', createdAt: T0, calls: [{ server: 'docs', tool: 's', outcome: 'ok' }] });
    const logs: string[] = [];
    const app = await started(store, { log: (line) => logs.push(line) });
    const b64 = (value: string) => Buffer.from(value).toString('base64url');
    // not a cursor at all: 400 on every store
    const malformed = [
      'bm90IGEgY3Vyc29y',
      '%00',
      '!!!',
      'a'.repeat(5000),
      b64('[]'),
      b64('{"a":1}'),
      b64(`["x","${run.id}"]`),
      b64('[1,"not-a-uuid"]'),
      b64(`[1,"${run.id}' OR 1=1 --"]`),
    ];
    // decodable, with a time no store takes (negative, fractional, beyond 8.64e15): refused by the
    // one input rule before any store is touched, so a 400 on every store too
    const crafted = [
      b64(`[-1,"${run.id}"]`),
      b64(`[1e300,"${run.id}"]`),
      b64(`[1.5,"${run.id}"]`),
      b64(`[${Number.MAX_SAFE_INTEGER + 2},"${run.id}"]`),
      b64(`[-1e300,"${run.id}"]`),
    ];
    for (const cursor of [...malformed, ...crafted]) {
      const reply = await request(app, `/?cursor=${encodeURIComponent(cursor)}`);
      const what = `cursor ${cursor.slice(0, 60)} (${Buffer.from(cursor, 'base64url').toString('utf8').slice(0, 30)})`;
      expect(reply.status, what).toBe(400);
      assertInertPage(reply.body, what);
      const text = mainText(reply.body);
      expect(text, what).not.toMatch(/\bSELECT\b|\bWHERE\b|sqlite|postgres|syntax|\bat [\w.<>]+ \(|node:internal|\.js:\d+/i);
      if (reply.status === 500) expect(text).toContain('The details are in the server log.');
    }
    for (const id of ['%3Cscript%3E', '%E0%A4%A', '..%2F..%2Fetc', 'a'.repeat(300), '%00', '-leading-dash', 'x%20y']) {
      const reply = await request(app, `/runs/${id}`);
      expect(reply.status, id).toBe(400);
      expect(assertInertPage(reply.body, id)).toContain('This address does not name a run');
      const cancel = await request(app, `/runs/${id}/cancel`, { method: 'POST', headers: { origin: `http://127.0.0.1:${app.port}` } });
      expect(cancel.status, `${id} cancel`).toBe(400);
    }
    // well-formed but unknown: 404; a page number out of range: the last page, never an error
    expect((await request(app, '/runs/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await request(app, '/runs/does-not-exist')).status).toBe(404);
    expect((await request(app, `/runs/${run.id}?from=1e300`)).status).toBe(200);
    expect((await request(app, `/runs/${run.id}?from=-5`)).status).toBe(200);
    expect(logs.join('\n')).not.toContain(TOKEN);
  });

  it('answers a store failure with a 500 page that names no detail, and logs the detail', async () => {
    const store = await open();
    await seedRun(store, { configuration: 'x', createdAt: T0, calls: [] });
    const logs: string[] = [];
    const app = await started(store, { token: TOKEN, log: (line) => logs.push(line) });
    await store.close(); // every read now fails inside the store
    const reply = await request(app, `/servers?token=${TOKEN}`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(reply.status).toBe(303);
    const failed = await request(app, '/servers?lang=de', { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(failed.status).toBe(500);
    assertInertPage(failed.body, '500 page');
    const text = mainText(failed.body);
    expect(text).toContain('Die Einzelheiten stehen im Server-Log.');
    expect(text).not.toMatch(/closed|RunStoreError|\.js:\d+/i);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatch(/^runledger app: GET \/servers failed: /);
    expect(logs[0]).not.toContain('\n');
    const withTokenInQuery = await request(app, `/?token=${TOKEN}`, { method: 'PUT', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(withTokenInQuery.status).toBe(405);
    const cancel = await request(app, `/runs/00000000-0000-4000-8000-000000000000/cancel?token=${TOKEN}`, {
      method: 'POST',
      headers: { origin: `http://127.0.0.1:${app.port}` },
    });
    expect(cancel.status).toBe(500);
    expect(cancel.body).not.toContain(TOKEN);
    expect(logs.join('\n')).not.toContain(TOKEN);
  });
});

describe('methods: each route answers only its own', () => {
  it('pages, /healthz and /favicon.ico answer GET and HEAD; cancel answers POST; everything else is 405 with Allow', async () => {
    const store = InMemoryRunStore.create();
    const run = await seedRun(store, { configuration: 'x', createdAt: T0, calls: [], finish: null });
    const app = await started(store);
    const origin = `http://127.0.0.1:${app.port}`;
    const reads = ['/', '/runs', '/servers', `/runs/${run.id}`, '/healthz', '/favicon.ico'];
    for (const path of reads) {
      const get = await request(app, path);
      expect(get.status, `GET ${path}`).toBeLessThan(300);
      const head = await request(app, path, { method: 'HEAD' });
      expect(head.status, `HEAD ${path}`).toBe(get.status);
      expect(head.body, `HEAD ${path}`).toBe('');
      for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'TRACE', 'OPTIONS']) {
        const reply = await request(app, path, { method, headers: { origin } });
        expect(reply.status, `${method} ${path}`).toBe(405);
        expect(reply.headers.allow, `${method} ${path}`).toBe('GET, HEAD');
      }
    }
    for (const method of ['GET', 'HEAD', 'PUT', 'DELETE', 'PATCH', 'TRACE', 'OPTIONS']) {
      const reply = await request(app, `/runs/${run.id}/cancel`, { method, headers: { origin } });
      expect(reply.status, `${method} cancel`).toBe(405);
      expect(reply.headers.allow).toBe('POST');
    }
    expect((await store.getRun(run.id))!.cancelRequestedAt).toBeNull();
    expect((await request(app, '/nope', { method: 'DELETE' })).status).toBe(404);
  });
});

describe('CSRF: the cancel action', () => {
  it('requests a cancel only for a same-origin POST, idempotently, and redirects to the run', async () => {
    const store = InMemoryRunStore.create();
    const run = await seedRun(store, { configuration: 'x', createdAt: T0, calls: [], finish: null });
    let noticed = 0;
    store.watchCancel(run.id, () => noticed++);
    const app = await started(store);
    const origin = `http://127.0.0.1:${app.port}`;
    const page = await request(app, `/runs/${run.id}`);
    expect(page.body).toContain(`action="/runs/${run.id}/cancel"`);

    const path = `/runs/${run.id}/cancel`;
    expect((await request(app, path, { method: 'POST' })).status).toBe(403);
    expect((await request(app, path, { method: 'POST', headers: { origin: 'http://evil.example' } })).status).toBe(403);
    expect((await request(app, path, { method: 'POST', headers: { origin: 'null' } })).status).toBe(403);
    expect((await request(app, path, { method: 'POST', headers: { origin: `${origin}.evil.example` } })).status).toBe(403);
    expect((await request(app, path, { method: 'POST', headers: { referer: 'http://evil.example/runs' } })).status).toBe(403);
    expect((await request(app, path, { method: 'POST', headers: { origin, 'sec-fetch-site': 'cross-site' } })).status).toBe(403);
    expect((await request(app, path, { method: 'POST', headers: { origin, 'sec-fetch-site': 'same-site' } })).status).toBe(403);
    expect((await store.getRun(run.id))!.cancelRequestedAt).toBeNull();

    const first = await request(app, path, { method: 'POST', headers: { origin } });
    expect(first.status).toBe(303);
    expect(first.headers.location).toBe(`/runs/${run.id}`);
    const requestedAt = (await store.getRun(run.id))!.cancelRequestedAt;
    expect(requestedAt).not.toBeNull();
    const again = await request(app, path, { method: 'POST', headers: { referer: `${origin}/runs/${run.id}` } });
    expect(again.status).toBe(303);
    expect((await store.getRun(run.id))!.cancelRequestedAt).toBe(requestedAt);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(noticed).toBe(1);
    expect((await request(app, '/runs/00000000-0000-4000-8000-000000000000/cancel', { method: 'POST', headers: { origin } })).status).toBe(
      404,
    );
  });
});

describe('token mode', () => {
  async function tokenApp(logs: string[] = []) {
    const store = InMemoryRunStore.create();
    const run = await seedRun(store, {
      configuration: 'x',
      createdAt: T0,
      calls: [{ server: 'docs', tool: 's', outcome: 'ok' }],
      finish: null,
    });
    const app = await started(store, { token: TOKEN, host: '0.0.0.0', log: (line) => logs.push(line) });
    return { store, run, app };
  }

  it('answers 401 to every request without the token, on any address', async () => {
    const { store, run, app } = await tokenApp();
    for (const [path, method] of [
      ['/', 'GET'],
      ['/', 'HEAD'],
      ['/servers', 'GET'],
      [`/runs/${run.id}`, 'GET'],
      [`/runs/${run.id}/cancel`, 'POST'],
      ['/healthz', 'GET'],
      ['/nope', 'GET'],
      ['/', 'PUT'],
    ] as const) {
      const reply = await request(app, path, { method, headers: { origin: `http://127.0.0.1:${app.port}` } });
      expect(reply.status, `${method} ${path}`).toBe(401);
      expect(reply.headers['www-authenticate']).toContain('Bearer');
      const wrong = await request(app, path, { method, headers: { authorization: 'Bearer wrong-token-value' } });
      expect(wrong.status, `${method} ${path} wrong token`).toBe(401);
      const wrongQuery = await request(app, `${path}?token=wrong-token-value`, { method });
      expect(wrongQuery.status, `${method} ${path} wrong query token`).toBe(401);
    }
    expect((await store.getRun(run.id))!.cancelRequestedAt).toBeNull();
    expect((await request(app, '/', { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
  });

  it('trades ?token= for a cookie with a redirect to a path of this site, for GET and HEAD', async () => {
    const { app } = await tokenApp();
    const viaQuery = await request(app, `/servers?token=${TOKEN}&lang=de`);
    expect(viaQuery.status).toBe(303);
    expect(viaQuery.headers.location).toBe('/servers?lang=de');
    const cookie = String(viaQuery.headers['set-cookie']);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    expect((await request(app, '/servers?lang=de', { headers: { cookie: cookie.split(';')[0]! } })).status).toBe(200);
    const head = await request(app, `/servers?token=${TOKEN}`, { method: 'HEAD' });
    expect(head.status).toBe(303);
    expect(head.headers.location).toBe('/servers');

    const base = `http://127.0.0.1:${app.port}`;
    const crafted: [string, string][] = [
      ['/.//evil.example/', '/evil.example/'],
      ['//evil.example/', '/evil.example/'],
      ['///evil.example/x', '/evil.example/x'],
      ['/..//evil.example/', '/evil.example/'],
      ['/./\\evil.example/', '/evil.example/'],
      ['/\\/evil.example/', '/evil.example/'],
      ['/%2F%2Fevil.example/', '/%2F%2Fevil.example/'],
      ['/runs/..//..//evil.example', '/evil.example'],
    ];
    for (const [path, expected] of crafted) {
      for (const method of ['GET', 'HEAD']) {
        const reply = await request(app, `${path}?token=${TOKEN}`, { method });
        expect(reply.status, `${method} ${path}`).toBe(303);
        const location = String(reply.headers.location);
        expect(location, `${method} ${path}`).toBe(expected);
        expect(new URL(location, base).origin, `${method} ${path}`).toBe(base);
      }
    }
  });

  it('never puts the token into a page, a link or a log line, whatever the method', async () => {
    const logs: string[] = [];
    const { run, app } = await tokenApp(logs);
    const auth = { authorization: `Bearer ${TOKEN}` };
    const origin = `http://127.0.0.1:${app.port}`;
    const pages: [string, string][] = [
      ['PUT', `/?token=${TOKEN}&lang=de`],
      ['DELETE', `/servers?token=${TOKEN}`],
      ['PATCH', `/runs/${run.id}?token=${TOKEN}`],
      ['POST', `/?token=${TOKEN}`],
      ['GET', `/nope?token=${TOKEN}`],
      ['PUT', `/nope?token=${TOKEN}`],
      ['GET', `/runs/%3Cx%3E?token=${TOKEN}`],
      ['OPTIONS', `/healthz?token=${TOKEN}`],
    ];
    for (const [method, path] of pages) {
      const reply = await request(app, path, { method, headers: auth });
      expect(reply.status, `${method} ${path}`).toBeGreaterThanOrEqual(300);
      expect(reply.body, `${method} ${path}`).not.toContain(TOKEN);
      // (a GET with the token is answered by the redirect that sets the cookie, checked above)
      const { 'set-cookie': _cookie, ...headers } = reply.headers;
      expect(JSON.stringify(headers), `${method} ${path}`).not.toContain(TOKEN);
      if (reply.body !== '' && reply.headers['content-type']?.toString().startsWith('text/html'))
        assertInertPage(reply.body, `${method} ${path}`);
    }
    // with the cookie (the page a browser shows after the redirect) and with the header
    for (const path of ['/', '/servers', `/runs/${run.id}`, '/?lang=de', '/?cursor=bad']) {
      const viaCookie = await request(app, path, { headers: { cookie: `runledger_token=${TOKEN}` } });
      expect(viaCookie.body).not.toContain(TOKEN);
    }
    const cancel = await request(app, `/runs/${run.id}/cancel?token=${TOKEN}&lang=de`, { method: 'POST', headers: { origin } });
    expect(cancel.status).toBe(303);
    expect(cancel.headers.location).toBe(`/runs/${run.id}?lang=de`);
    expect(logs.join('\n')).not.toContain(TOKEN);
  });
});

describe('DNS-rebinding guard', () => {
  it('binds 127.0.0.1 by default and refuses another address without a token', async () => {
    const store = InMemoryRunStore.create();
    const server = await startRunsServer({ store });
    servers.push(server);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    await expect(startRunsServer({ store, host: '0.0.0.0' })).rejects.toThrow(/requires an access token/);
    await expect(startRunsServer({ store, host: '0.0.0.0', token: 'short' })).rejects.toThrow(/at least 8/);
  });

  it('refuses a foreign Host header on a loopback server without a token', async () => {
    const app = await started(InMemoryRunStore.create());
    for (const host of ['attacker.example:80', '127.0.0.1.nip.io', 'localhost.attacker.example', `evil.example:${app.port}`]) {
      const reply = await request(app, '/', { headers: { host } });
      expect(reply.status, host).toBe(403);
    }
    expect((await request(app, '/healthz', { headers: { host: 'attacker.example' } })).status).toBe(403);
    for (const host of [`localhost:${app.port}`, `127.0.0.1:${app.port}`, `app.localhost:${app.port}`]) {
      expect((await request(app, '/', { headers: { host } })).status, host).toBe(200);
    }
  });
});

describe('security headers', () => {
  it('are on every response this file received, error responses included', () => {
    const statuses = new Set(replies.map(({ reply }) => reply.status));
    for (const status of [200, 204, 303, 400, 401, 403, 404, 405, 500]) expect(statuses, `a ${status} was checked`).toContain(status);
    for (const { what, reply } of replies) {
      expect(reply.headers['content-security-policy'], what).toContain("default-src 'none'");
      expect(reply.headers['content-security-policy'], what).toContain("frame-ancestors 'none'");
      expect(reply.headers['x-content-type-options'], what).toBe('nosniff');
      expect(reply.headers['x-frame-options'], what).toBe('DENY');
      expect(reply.headers['referrer-policy'], what).toBe('same-origin');
      expect(reply.headers['cache-control'], what).toBe('no-store');
    }
  });
});

// ---------------------------------------------------------------------------------------------
// The CLI

/** Anything a terminal would act on: C0 but LF, DEL, C1, bidi controls. */
const TERMINAL_CONTROLS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

describe('the CLI escapes control characters of stored text', () => {
  const NASTY = 'ok\u001b[2J\u001b]0;pwned\u0007\rcompleted\u009b31m\u202eevil\u2066\u007f\u0000\ttab\nline\\x1b';

  it('terminalText shows each control as an escape, doubles backslashes and is linear', () => {
    expect(terminalText('a\u001b[31mb')).toBe('a\\x1b[31mb');
    expect(terminalText('\u0007\r\n\t\u007f\u0085\u009b\u202a\u202e\u2066\u2069\u200f\u2028')).toBe(
      '\\x07\\x0d\\x0a\\x09\\x7f\\x85\\x9b\\u202a\\u202e\\u2066\\u2069\\u200f\\u2028',
    );
    expect(terminalText('C:\\x1b')).toBe('C:\\\\x1b');
    expect(terminalText('plain — ünïcode ✓ 日本')).toBe('plain — ünïcode ✓ 日本');
    // linear: 500 000 controls in one pass (a quadratic escaper would take minutes)
    const big = '\u001b'.repeat(500_000);
    const start = performance.now();
    expect(terminalText(big)).toHaveLength(2_000_000);
    expect(performance.now() - start).toBeLessThan(2000);
    for (const value of [NASTY, { a: NASTY, b: [NASTY] }]) {
      const json = terminalJson(value);
      expect(JSON.parse(json)).toEqual(value);
      expect(json).not.toMatch(TERMINAL_CONTROLS);
    }
  });

  it('runs list, runs show and servers print stored text escaped; --json stays exact JSON', async () => {
    const path = join(dir, 'cli-controls.db');
    // every store refuses NUL (one meaning for every input): the stored text has all the rest
    const STORED = NASTY.replace('\u0000', '');
    const store = await SqliteRunStore.open({ path });
    let runId: string;
    try {
      const run = await store.createRun({ configuration: `cfg ${STORED}`, actor: `actor ${STORED}`, createdAt: T0 });
      runId = run.id;
      const server = `srv${STORED}`;
      await store.appendStep(run.id, {
        kind: 'tool',
        round: 1,
        durationMs: 5,
        createdAt: T0 + 10,
        payload: {
          kind: 'tool',
          toolName: `tool ${STORED}`,
          toolServer: server,
          toolIsError: true,
          toolOutcome: 'failed',
          round: 1,
          durationMs: 5,
        },
        toolServer: server,
        toolOutcome: 'failed',
      });
      await store.finishRun(run.id, { status: 'failed', finishedAt: T0 + 20, terminationReason: `reason ${STORED}` });
    } finally {
      await store.close();
    }
    const escaped = terminalText(STORED);
    expect(escaped).toContain('\\x1b[2J');

    const list = await cli(['runs', 'list', '--db', path], dir);
    expect(list.code).toBe(0);
    expect(list.stdout).not.toMatch(TERMINAL_CONTROLS);
    expect(list.stdout).toContain(`cfg ${escaped}`);
    expect(list.stdout.trim().split('\n')).toHaveLength(3);

    const show = await cli(['runs', 'show', runId, '--db', path], dir);
    expect(show.code).toBe(0);
    expect(show.stdout).not.toMatch(TERMINAL_CONTROLS);
    for (const shown of [`cfg ${escaped}`, `reason ${escaped}`, `tool ${escaped}`, `srv${escaped}`]) expect(show.stdout).toContain(shown);

    const health = await cli(['servers', '--db', path, '--window', 'all'], dir);
    expect(health.code).toBe(0);
    expect(health.stdout).not.toMatch(TERMINAL_CONTROLS);
    expect(health.stdout).toContain(`srv${escaped}`);

    const json = await cli(['runs', 'show', runId, '--json', '--db', path], dir);
    expect(json.stdout).not.toMatch(TERMINAL_CONTROLS);
    const parsed = JSON.parse(json.stdout) as { run: StoredRun };
    expect(parsed.run.configuration).toBe(`cfg ${STORED}`);
    expect(parsed.run.terminationReason).toBe(`reason ${STORED}`);
    const listJson = JSON.parse((await cli(['runs', 'list', '--json', '--db', path], dir)).stdout) as { runs: StoredRun[] };
    expect(listJson.runs[0]!.actor).toBe(`actor ${STORED}`);
    const healthJson = JSON.parse((await cli(['servers', '--json', '--db', path, '--window', 'all'], dir)).stdout) as { server: string }[];
    expect(healthJson[0]!.server).toBe(`srv${STORED}`);

    const missing = await cli(['runs', 'show', `x${NASTY}`, '--db', path], dir);
    expect(missing.code).toBe(1);
    expect(missing.stderr).not.toMatch(TERMINAL_CONTROLS);
    expect(missing.stderr).toContain(terminalText(NASTY));
  });
});
