// Each route's methods, CSRF on the cancel action, token mode (no open redirect, the token never
// in a page, link or log line) and the DNS-rebinding guard, over real HTTP on a real server.
import { InMemoryRunStore } from '@runledger/trace';
import { describe, expect, it } from 'vitest';
import { startRunsServer } from '../src/app/startRunsServer.js';
import { seedRun } from './seedRun.js';
import {
  assertInertPage,
  closeAfterTest,
  describeSecurityHeaders,
  request,
  started,
  T0,
  TOKEN,
  useSecurityHarness,
} from './securityHarness.js';

useSecurityHarness();

describe('methods: each route answers only its own', () => {
  it('pages, /healthz and /favicon.ico answer GET and HEAD; cancel answers POST; everything else is 405 with Allow', async () => {
    const store = InMemoryRunStore.create();
    const run = await seedRun(store, { configuration: 'x', createdAt: T0, calls: [], finish: null });
    const app = await started(store);
    const origin = `http://127.0.0.1:${app.port}`;
    const reads = ['/', '/runs', '/servers', `/runs/${run.id}`, '/healthz', '/metrics', '/favicon.ico'];
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
      ['/metrics', 'GET'],
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
    closeAfterTest(server);
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

describeSecurityHeaders([200, 204, 303, 400, 401, 403, 404, 405]);
