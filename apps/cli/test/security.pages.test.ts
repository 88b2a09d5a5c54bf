// Every displayed field is text (checked by parsing the HTML as a browser would), malformed input
// is a 400 page and a failure a generic 500 page — over real HTTP, on each store the app runs on.
import type { StoredRun } from '@runledger/trace';
import { describe, expect, it } from 'vitest';
import { seedRun } from './seedRun.js';
import {
  assertInertPage,
  describeSecurityHeaders,
  mainText,
  request,
  started,
  STORES,
  T0,
  TOKEN,
  useSecurityHarness,
  XSS,
} from './securityHarness.js';

useSecurityHarness();

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

describeSecurityHeaders([200, 400, 404, 500]);
