import { InMemoryRunStore } from '@runledger/trace';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunsServer } from '../src/app/startRunsServer.js';
import { type Reply, send, serve, textOf } from './httpHelpers.js';
import { seedRun } from './seedRun.js';

const servers: RunsServer[] = [];
afterEach(async () => {
  while (servers.length > 0) await servers.pop()!.close();
});

async function started(store: InMemoryRunStore, token: string | null = null): Promise<RunsServer> {
  const server = await serve(store, token);
  servers.push(server);
  return server;
}

const T0 = Date.UTC(2026, 10, 29, 9, 0, 0);

function rowsOf(reply: Reply): string[] {
  return [...reply.body.matchAll(/<tr data-run-id="([^"]+)"/g)].map((m) => m[1]!);
}

describe('runs list', () => {
  it('shows runs newest first with status, configuration, times, duration and outcome counts', async () => {
    const store = InMemoryRunStore.create();
    const older = await seedRun(store, {
      configuration: 'support-agent',
      createdAt: T0,
      calls: [{ server: 'docs', tool: 'search', outcome: 'ok' }],
    });
    const newer = await seedRun(store, {
      configuration: 'ops-agent',
      createdAt: T0 + 60_000,
      calls: [
        { server: 'flaky', tool: 'fetch', outcome: 'ok' },
        { server: 'flaky', tool: 'fetch', outcome: 'failed' },
        { server: 'slow', tool: 'export', outcome: 'cancelled' },
      ],
      finish: 'cancelled',
    });
    const server = await started(store);
    const reply = await send(server, '/');
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(reply.headers['content-security-policy']).toContain("default-src 'none'");
    expect(rowsOf(reply)).toEqual([newer.id, older.id]);
    const newerRow = reply.body.slice(reply.body.indexOf(`data-run-id="${newer.id}"`), reply.body.indexOf(`data-run-id="${older.id}"`));
    const text = textOf(newerRow);
    expect(text).toContain('cancelled');
    expect(text).toContain('ops-agent');
    expect(text).toContain('11/29/2026, 09:01:00');
    expect(text).toContain('1 ok');
    expect(text).toContain('1 failed');
    expect(text).toContain('1 cancelled');
    expect(newerRow).toContain(`href="/runs/${newer.id}"`);
  });

  it('shows the title the recorder gave a run, escaped, on the runs list and as the run page heading', async () => {
    const store = InMemoryRunStore.create();
    const titled = await store.createRun({ configuration: 'support-agent', title: 'Triage the <b>inbox</b>', createdAt: T0 });
    const untitled = await store.createRun({ configuration: 'support-agent', createdAt: T0 + 1 });
    const server = await started(store);
    const list = await send(server, '/');
    const titledRow = list.body.slice(list.body.indexOf(`data-run-id="${titled.id}"`));
    expect(titledRow.slice(0, titledRow.indexOf('</tr>'))).toContain(
      '<span class="run-title" data-run-title>Triage the &lt;b&gt;inbox&lt;/b&gt;</span>',
    );
    const untitledRow = list.body.slice(list.body.indexOf(`data-run-id="${untitled.id}"`));
    expect(untitledRow.slice(0, untitledRow.indexOf('</tr>'))).not.toContain('data-run-title');
    const page = await send(server, `/runs/${titled.id}`);
    expect(page.body).toMatch(/<title>Triage the &lt;b&gt;inbox&lt;\/b&gt;/);
    const heading = page.body.slice(page.body.indexOf('<h1>'), page.body.indexOf('</h1>'));
    expect(heading).toContain('<span data-run-title>Triage the &lt;b&gt;inbox&lt;/b&gt;</span>');
    expect(textOf(heading)).toContain(`Run ${titled.id}`);
    const plain = await send(server, `/runs/${untitled.id}`);
    expect(textOf(plain.body.slice(plain.body.indexOf('<h1>'), plain.body.indexOf('</h1>')))).toBe(`Run ${untitled.id}`);
  });

  it('filters by status and by has-failed / has-cancelled', async () => {
    const store = InMemoryRunStore.create();
    const ok = await seedRun(store, { configuration: 'a', createdAt: T0, calls: [{ server: 'docs', tool: 's', outcome: 'ok' }] });
    const failed = await seedRun(store, {
      configuration: 'b',
      createdAt: T0 + 1,
      calls: [{ server: 'flaky', tool: 'f', outcome: 'failed' }],
      finish: 'failed',
    });
    const cancelled = await seedRun(store, {
      configuration: 'c',
      createdAt: T0 + 2,
      calls: [{ server: 'slow', tool: 'e', outcome: 'cancelled' }],
      finish: 'cancelled',
    });
    const running = await seedRun(store, { configuration: 'd', createdAt: T0 + 3, calls: [], finish: null });
    const server = await started(store);
    expect(rowsOf(await send(server, '/?status=running'))).toEqual([running.id]);
    expect(rowsOf(await send(server, '/?has=failed'))).toEqual([failed.id]);
    expect(rowsOf(await send(server, '/?has=cancelled'))).toEqual([cancelled.id]);
    expect(rowsOf(await send(server, '/?status=completed&has=failed'))).toEqual([]);
    expect(rowsOf(await send(server, '/?status=bogus&has=bogus'))).toEqual([running.id, cancelled.id, failed.id, ok.id]);
    const filtered = await send(server, '/?status=failed');
    expect(filtered.body).toMatch(/<option value="failed" selected>/);
    expect(rowsOf(filtered)).toEqual([failed.id]);
    expect(textOf(await send(server, '/?status=interrupted').then((r) => r.body))).toContain('No runs match these filters.');
  });

  it('pages with a keyset cursor, newest first, without gaps or repeats', async () => {
    const store = InMemoryRunStore.create();
    const ids: string[] = [];
    for (let i = 0; i < 120; i++) ids.unshift((await seedRun(store, { configuration: 'bulk', createdAt: T0 + i * 1000, calls: [] })).id);
    const server = await started(store);
    const seen: string[] = [];
    let path: string | null = '/?status=completed';
    let pages = 0;
    while (path !== null) {
      const reply = await send(server, path);
      expect(reply.status).toBe(200);
      seen.push(...rowsOf(reply));
      pages++;
      const next = /<a class="button" rel="next" href="([^"]+)"/.exec(reply.body);
      path = next === null ? null : next[1]!.replace(/&amp;/g, '&');
      if (path !== null) expect(path).toContain('status=completed');
    }
    expect(pages).toBe(3);
    expect(seen).toEqual(ids);
  });
});

describe('languages', () => {
  it('speaks German for ?lang=de and for Accept-Language de, with a switch to the other language', async () => {
    const store = InMemoryRunStore.create();
    await seedRun(store, {
      configuration: 'x',
      createdAt: T0,
      calls: [{ server: 'slow', tool: 'e', outcome: 'cancelled' }],
      finish: 'cancelled',
    });
    const server = await started(store);
    const byQuery = await send(server, '/?lang=de', { headers: { 'accept-language': 'en-US' } });
    expect(byQuery.body).toContain('<html lang="de">');
    expect(byQuery.headers['content-language']).toBe('de');
    expect(textOf(byQuery.body)).toContain('Läufe');
    expect(textOf(byQuery.body)).toContain('1 abgebrochen');
    expect(byQuery.body).toContain('href="/?lang=en"');
    // an explicit choice sticks to the links
    expect(byQuery.body).toContain('href="/servers?lang=de"');
    const byHeader = await send(server, '/', { headers: { 'accept-language': 'de-DE,de;q=0.9,en;q=0.5' } });
    expect(byHeader.body).toContain('<html lang="de">');
    expect(byHeader.headers.vary).toBe('Accept-Language');
    const english = await send(server, '/', { headers: { 'accept-language': 'fr' } });
    expect(english.body).toContain('<html lang="en">');
    expect(textOf(english.body)).toContain('1 cancelled');
  });
});

describe('MCP servers page', () => {
  it('shows calls by outcome, a failure rate without cancellations, p95 and a flaky badge; sorts by failure rate', async () => {
    const store = InMemoryRunStore.create();
    await seedRun(store, {
      configuration: 'x',
      createdAt: T0,
      calls: [
        ...Array.from({ length: 4 }, () => ({ server: 'flaky', tool: 'f', outcome: 'ok' as const })),
        ...Array.from({ length: 2 }, () => ({ server: 'flaky', tool: 'f', outcome: 'failed' as const })),
        { server: 'flaky', tool: 'f', outcome: 'cancelled' as const },
        ...Array.from({ length: 6 }, () => ({ server: 'docs', tool: 's', outcome: 'ok' as const, durationMs: 40 })),
        { server: 'slow', tool: 'e', outcome: 'cancelled' as const },
      ],
    });
    const server = await started(store);
    const reply = await send(server, '/servers');
    expect(reply.status).toBe(200);
    const order = [...reply.body.matchAll(/<tr data-server="([^"]+)" data-flaky="(true|false)"/g)].map((m) => `${m[1]}:${m[2]}`);
    expect(order).toEqual(['flaky:true', 'docs:false', 'slow:false']);
    const flakyRow = textOf(reply.body.slice(reply.body.indexOf('data-server="flaky"'), reply.body.indexOf('data-server="docs"')));
    // 2 failed of 6 answered: 33.3 %, the cancellation beside it, not in it
    expect(flakyRow).toContain('flaky ⚠ flaky 7 4 2 1 33.3%');
    expect(flakyRow).toContain('1 cancelled, not counted');
    expect(flakyRow).toContain('flaky');
    const slowRow = textOf(reply.body.slice(reply.body.indexOf('data-server="slow"')));
    expect(slowRow).toContain('no answers');
    const ascending = await send(server, '/servers?sort=failure_rate&dir=asc');
    const ascOrder = [...ascending.body.matchAll(/<tr data-server="([^"]+)"/g)].map((m) => m[1]);
    expect(ascOrder).toEqual(['docs', 'flaky', 'slow']);
    expect(ascending.body).toContain('aria-sort="ascending"');
    const german = await send(server, '/servers?lang=de');
    expect(textOf(german.body)).toContain('33,3');
    expect(textOf(german.body)).toContain('unzuverlässig');
  });
});

describe('MCP servers page: health that never charges a server for our own doing', () => {
  it('keeps invalid-argument calls beside the rate, breaks failures down by cause, p95 from answered calls, "too few calls" without evidence', async () => {
    const store = InMemoryRunStore.create();
    const run = await seedRun(store, {
      configuration: 'x',
      createdAt: T0,
      calls: [
        // model: 5 answered calls, 2 refused for invalid arguments, 1 cancelled after 900 ms
        ...Array.from({ length: 4 }, () => ({ server: 'model', tool: 'f', outcome: 'ok' as const, durationMs: 10 })),
        { server: 'model', tool: 'f', outcome: 'failed' as const, durationMs: 12, cause: 'server_error' },
        { server: 'model', tool: 'f', outcome: 'failed' as const, durationMs: 3, cause: 'invalid_arguments' },
        { server: 'model', tool: 'f', outcome: 'failed' as const, durationMs: 3, cause: 'invalid_arguments' },
        { server: 'model', tool: 'f', outcome: 'cancelled' as const, durationMs: 900 },
        // thin: one ok, one timeout: 50 % over two calls is no evidence either way
        { server: 'thin', tool: 'g', outcome: 'ok' as const, durationMs: 7 },
        { server: 'thin', tool: 'g', outcome: 'failed' as const, durationMs: 5000, cause: 'mcp_timeout' },
      ],
    });
    const server = await started(store);
    const reply = await send(server, '/servers');
    const rowOf = (body: string, name: string): string => {
      const start = body.indexOf(`data-server="${name}"`);
      return textOf(body.slice(start, body.indexOf('</tr>', start)));
    };
    const modelRow = rowOf(reply.body, 'model');
    // 1 server error of 5 counted calls: 20 %, flaky at the default threshold; 2 invalid-argument calls beside it
    expect(modelRow).toContain('model ⚠ flaky 8 4 3 1 20.0%');
    expect(modelRow).toContain('2 calls not charged (invalid arguments, unknown or refused tools), not counted');
    expect(modelRow).toContain('invalid arguments: 2');
    expect(modelRow).toContain('server error answer: 1');
    expect(modelRow).toMatch(/ 12 ms over 7 answered/);
    const thinRow = rowOf(reply.body, 'thin');
    expect(thinRow).toContain('50.0%');
    expect(thinRow).toContain('timeout: 1');
    expect(thinRow).toContain('too few calls');
    expect(thinRow).not.toContain('healthy');
    expect(reply.body).toContain('data-server="thin" data-flaky="false" data-health="tooFew"');
    const german = textOf((await send(server, '/servers?lang=de')).body);
    expect(german).toContain('zu wenige Aufrufe');
    expect(german).toContain('2 Aufrufe nicht angerechnet (ungültige Argumente, unbekannte oder abgelehnte Werkzeuge), nicht gezählt');
    expect(german).toContain('Zeitüberschreitung: 1');
    // the timeline row of a failed call shows its cause
    const timeline = textOf((await send(server, `/runs/${run.id}`)).body);
    expect(timeline).toContain('cause: invalid arguments');
    expect(timeline).toContain('cause: timeout');
  });
});

describe('cancel', () => {
  it('refuses a cancel of a finished run (409, how it ended) and writes nothing (issue 38 item 8)', async () => {
    const store = InMemoryRunStore.create();
    const run = await seedRun(store, { configuration: 'x', createdAt: T0, calls: [] });
    const server = await started(store);
    const page = await send(server, `/runs/${run.id}`);
    expect(page.body).not.toContain('data-action="cancel"');
    expect(page.body).not.toContain('http-equiv="refresh"');
    const reply = await send(server, `/runs/${run.id}/cancel`, { method: 'POST', headers: { origin: `http://127.0.0.1:${server.port}` } });
    expect(reply.status).toBe(409);
    expect(reply.body).toContain(`Run ${run.id} had already ended: completed`);
    expect(await store.getRun(run.id)).toEqual(run);
    expect((await send(server, `/runs/${run.id}`)).body).not.toContain('Cancel requested after the run finished');
  });
});

describe('errors', () => {
  it('answers 404 for an unknown page or run (security cases: test/security.*.test.ts)', async () => {
    const server = await started(InMemoryRunStore.create());
    expect((await send(server, '/nope')).status).toBe(404);
    const missing = await send(server, '/runs/does-not-exist');
    expect(missing.status).toBe(404);
    expect(textOf(missing.body)).toContain('There is no run does-not-exist.');
  });
});

describe('live pages (issue 40 item 3)', () => {
  it('serves the live script from its own origin, allowed by the CSP (script and fetch from self only), GET and HEAD only', async () => {
    const store = InMemoryRunStore.create();
    const server = await started(store);
    const script = await send(server, '/assets/live.js');
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.headers['x-content-type-options']).toBe('nosniff');
    const csp = script.headers['content-security-policy'];
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toContain('unsafe-eval');
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    // it parses as a script and reads the page, never writes into it from another origin
    expect(() => new Function(script.body)).not.toThrow();
    expect(script.body).toContain("fetch(location.href, { credentials: 'same-origin'");
    expect((await send(server, '/assets/live.js', { method: 'POST' })).status).toBe(405);
    expect((await send(server, '/assets/other.js')).status).toBe(404);
  });

  it("a running run's page is live with its regions marked; once ended the same regions are there and it is not live", async () => {
    const store = InMemoryRunStore.create();
    const run = await seedRun(store, {
      configuration: 'live',
      createdAt: T0,
      calls: [{ server: 'docs', tool: 'search', outcome: 'ok' }],
      finish: null,
    });
    const server = await started(store);
    const regions = (body: string) => [...body.matchAll(/data-live-region="([^"]+)"/g)].map((m) => m[1]);
    const live = await send(server, `/runs/${run.id}`);
    expect(live.body).not.toContain('http-equiv="refresh"');
    expect(live.body).toContain('<body data-live-seconds="2">');
    expect(live.body).toContain('<script src="/assets/live.js" defer></script>');
    expect(regions(live.body)).toEqual(['summary', 'cancel', 'wire', 'waterfall', 'timeline']);
    // the Cancel button is a region of its own: it is put in again only when it changes, so it keeps the focus
    expect(live.body).toMatch(
      /<div data-live-region="cancel"><form method="post"[^>]*><label for="cancel-reason">[^<]*<\/label> <input type="text" id="cancel-reason" name="reason"[^>]*> <button type="submit" class="danger" data-action="cancel">/,
    );
    expect(live.body).toContain('data-text-over="The run has ended; the page shows how."');
    expect(live.body).toContain(
      `<noscript><p class="muted live-note">This page does not update by itself without JavaScript. <a href="/runs/${run.id}">Reload</a></p></noscript>`,
    );
    await store.finishRun(run.id, { status: 'completed', finishedAt: T0 + 5_000 });
    const ended = await send(server, `/runs/${run.id}`);
    expect(ended.body).not.toContain('data-live-seconds');
    expect(ended.body).not.toContain('/assets/live.js');
    expect(ended.body).not.toContain('data-live-note');
    expect(regions(ended.body)).toEqual(['summary', 'cancel', 'wire', 'waterfall', 'timeline']);
  });
});
