// Servers over time (issue 32 item 2): the charts on the servers page, a server's page with its
// failed calls, and the links to it from the servers page and a run's page.
import { InMemoryRunStore, type RunStore } from '@runledger/trace';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunsServer } from '../src/app/startRunsServer.js';
import { messagesDe as de } from '../src/i18n/messagesDe.js';
import { entryTexts } from '../src/i18n/PluralForms.js';
import { en, type MessageKey } from '../src/i18n/messagesEn.js';
import { type Reply, send, serve, textOf } from './httpHelpers.js';
import { type SeedCall, seedRun } from './seedRun.js';

const servers: RunsServer[] = [];
afterEach(async () => {
  while (servers.length > 0) await servers.pop()!.close();
});

async function started(store: RunStore): Promise<RunsServer> {
  const server = await serve(store);
  servers.push(server);
  return server;
}

const HOUR = 3_600_000;
/** A server id with every character a URL or HTML treats specially. */
const ODD = 'we ird/<b>&"?#%';

/** A store with runs two hours ago: `docs` fine, `flaky` failing, and the odd server. */
async function fleet(): Promise<{ store: InMemoryRunStore; runId: string }> {
  const store = InMemoryRunStore.create();
  const at = Date.now() - 2 * HOUR;
  const run = await seedRun(store, {
    configuration: 'ops-agent',
    createdAt: at,
    calls: [
      { server: 'docs', tool: 'search', outcome: 'ok', durationMs: 40 },
      { server: 'flaky', tool: 'fetch', outcome: 'ok', durationMs: 30 },
      { server: 'flaky', tool: 'fetch', outcome: 'failed', durationMs: 120, cause: 'server_error' },
      { server: 'flaky', tool: 'fetch', outcome: 'failed', durationMs: 5_000, cause: 'mcp_timeout' },
      { server: ODD, tool: 'x', outcome: 'failed', durationMs: 9, cause: 'server_error' },
    ],
  });
  return { store, runId: run.id };
}

/** The same store without the search methods: a RunStore written before them. */
function withoutSearch(store: RunStore): RunStore {
  const hidden = new Set<PropertyKey>(['listToolCalls', 'runTotals', 'findRunIdsByPrefix']);
  return new Proxy(store, {
    get(target, key) {
      if (hidden.has(key)) return undefined;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

function section(reply: Reply, name: string): string {
  const start = reply.body.indexOf(`data-section="${name}"`);
  expect(start, `section ${name}`).toBeGreaterThan(-1);
  return reply.body.slice(start, reply.body.indexOf('</section>', start));
}

describe('the servers page: charts over time', () => {
  it('gives each server two small charts (failure rate, p95) named by what they show, and links its name to its page', async () => {
    const { store } = await fleet();
    const app = await started(store);
    const reply = await send(app, '/servers?window=24h');
    expect(reply.status).toBe(200);
    const row = reply.body.slice(
      reply.body.indexOf('data-server="flaky"'),
      reply.body.indexOf('</tr>', reply.body.indexOf('data-server="flaky"')),
    );
    expect(row).toContain('<a href="/servers/flaky?window=24h">flaky</a>');
    const sparks = [...row.matchAll(/<svg class="spark trend-(\w+)"[^>]*role="img"[^>]*><title>([^<]*)<\/title>/g)];
    expect(sparks.map((m) => m[1])).toEqual(['failureRate', 'p95']);
    expect(sparks[0]![2]).toMatch(/^Failure rate per hour: peak 66\.7% \(.*\), latest 66\.7% \(.*\); no figure in 23 of 24 hours$/);
    expect(sparks[1]![2]).toMatch(/^p95 per hour \(answered calls\): peak 120 ms/);
    expect(textOf(reply.body)).toContain('failure rate and p95 per hour over the last 24 hours');
    // the whole day and week windows cut by day
    expect((await send(app, '/servers?window=7d')).body).toContain('<title>Failure rate per day: ');
    const all = await send(app, '/servers?window=all');
    expect(all.body).toContain('over the last 30 days');
    expect(all.body).toContain('<a href="/servers/flaky?window=all">flaky</a>');
    // no window in the URL: the calls are all within the last day, so the page shows that day by
    // the hour, not 30 days with one dot (issue 40 item 5)
    const fitted = await send(app, '/servers');
    expect(textOf(fitted.body)).toContain('failure rate and p95 per hour over the last 24 hours');
    expect(fitted.body).toContain('<a href="/servers/flaky?window=24h">flaky</a>');
    expect(textOf((await send(app, '/servers/flaky')).body)).toContain('Failure rate per hour');
  });

  it('opens on the week when the calls span it, and on all time when some are older (issue 40 item 5)', async () => {
    const store = InMemoryRunStore.create();
    await seedRun(store, {
      configuration: 'a',
      createdAt: Date.now() - 6 * 24 * HOUR,
      calls: [{ server: 'docs', tool: 's', outcome: 'ok' }],
    });
    await seedRun(store, { configuration: 'a', createdAt: Date.now() - HOUR, calls: [{ server: 'docs', tool: 's', outcome: 'ok' }] });
    const app = await started(store);
    expect(textOf((await send(app, '/servers')).body)).toContain('per day over the last 7 days');
    await seedRun(store, {
      configuration: 'a',
      createdAt: Date.now() - 9 * 24 * HOUR,
      calls: [{ server: 'old', tool: 's', outcome: 'ok' }],
    });
    expect(textOf((await send(app, '/servers')).body)).toContain('over the last 30 days');
    // a server's page fits its own calls: docs still spans the week
    expect(textOf((await send(app, '/servers/docs')).body)).toContain('Failure rate per day');
    expect((await send(app, '/servers/docs')).body).toContain('<a href="/servers?window=7d">');
  });

  it('escapes a server id in its link and its name', async () => {
    const { store } = await fleet();
    const app = await started(store);
    const reply = await send(app, '/servers?window=all');
    const encoded = encodeURIComponent(ODD);
    expect(encoded).toBe('we%20ird%2F%3Cb%3E%26%22%3F%23%25');
    expect(reply.body).toContain(`<a href="/servers/${encoded}?window=all">we ird/&lt;b&gt;&amp;&quot;?#%</a>`);
    expect(reply.body).not.toContain('<b>&');
  });
});

describe('a server page', () => {
  it('shows the health in the window, both charts with axes, and the failed calls newest first, each linking to its step', async () => {
    const { store, runId } = await fleet();
    const app = await started(store);
    const reply = await send(app, '/servers/flaky?window=24h');
    expect(reply.status).toBe(200);
    expect(reply.body).toMatch(/<title>MCP server flaky · runledger<\/title>/);
    expect(reply.body).toContain('<a href="/servers?window=24h">← All MCP servers</a>');
    const health = textOf(section(reply, 'health'));
    expect(health).toContain('too few calls');
    expect(health).toContain('66.7%');
    expect(health).toContain('1 ok 2 failed 0 cancelled (3)');
    expect(health).toContain('server error answer: 1');
    expect(health).toContain('timeout: 1');
    const trends = reply.body.slice(reply.body.indexOf('data-section="trends"'), reply.body.indexOf('data-section="failing"'));
    expect(trends).toContain('<h3 id="trend-failureRate-h">Failure rate per hour</h3>');
    expect(trends).toContain('<h3 id="trend-p95-h">p95 per hour (answered calls)</h3>');
    expect(trends).toContain('<span>100.0%</span><span>50.0%</span><span>0.0%</span>');
    const failing = reply.body.slice(reply.body.indexOf('data-section="failing"'));
    const rows = [...failing.matchAll(/<tr data-run-id="([^"]+)" data-sequence="(\d+)">([\s\S]*?)<\/tr>/g)];
    expect(rows.map((m) => [m[1], Number(m[2])])).toEqual([
      [runId, 3],
      [runId, 2],
    ]);
    expect(textOf(rows[0]![3]!)).toMatch(/^\d\d\/\d\d\/\d{4}, \d\d:\d\d:\d\d mcp_flaky_fetch timeout 5 sec [0-9a-f]{8} step 4$/);
    expect(rows[0]![3]).toContain(`href="/runs/${runId}#step-3"`);
    expect(textOf(rows[1]![3]!)).toContain('server error answer');
    // the back link, the windows and the run links keep the chosen language
    const german = await send(app, '/servers/flaky?lang=de&window=all');
    expect(german.body).toContain(`href="/runs/${runId}?lang=de#step-3"`);
    expect(german.body).toContain('<a href="/servers?window=all&amp;lang=de">← Alle MCP-Server</a>');
    expect(textOf(german.body)).toContain('Fehlgeschlagene Aufrufe');
    expect(textOf(german.body)).toContain('Fehlerquote je Tag');
  });

  it('links a step beyond the first timeline page to the page that holds it', async () => {
    const store = InMemoryRunStore.create();
    const calls: SeedCall[] = Array.from({ length: 205 }, (_, i) => ({ server: 'deep', tool: 't', outcome: i === 203 ? 'failed' : 'ok' }));
    const run = await seedRun(store, { configuration: 'long', createdAt: Date.now() - HOUR, calls });
    const app = await started(store);
    const reply = await send(app, '/servers/deep');
    expect(reply.body).toContain(`href="/runs/${run.id}?from=200#step-203"`);
    const target = await send(app, `/runs/${run.id}?from=200`);
    expect(target.body).toContain('id="step-203"');
  });

  it('pages the failed calls 50 at a time, keyset: next, then back to the newest', async () => {
    const store = InMemoryRunStore.create();
    const calls: SeedCall[] = Array.from({ length: 55 }, () => ({
      server: 'down',
      tool: 't',
      outcome: 'failed',
      cause: 'mcp_transport_failure',
    }));
    await seedRun(store, { configuration: 'c', createdAt: Date.now() - HOUR, calls });
    const app = await started(store);
    const first = await send(app, '/servers/down?window=7d');
    const sequences = (reply: Reply) =>
      [...reply.body.matchAll(/<tr data-run-id="[^"]+" data-sequence="(\d+)">/g)].map((m) => Number(m[1]));
    expect(sequences(first)).toEqual(Array.from({ length: 50 }, (_, i) => 54 - i));
    expect(textOf(first.body)).toContain('50 failed calls on this page');
    const next = /<a class="button" rel="next" href="([^"]+)">Older failed calls →<\/a>/.exec(first.body)![1]!.replace(/&amp;/g, '&');
    expect(next).toMatch(/^\/servers\/down\?window=7d&cursor=[A-Za-z0-9_-]+$/);
    const second = await send(app, next);
    expect(sequences(second)).toEqual([4, 3, 2, 1, 0]);
    expect(second.body).not.toContain('rel="next"');
    expect(second.body).toContain('<a class="button" href="/servers/down?window=7d">Newest failed calls</a>');
    // a cursor that is not one is a bad request naming the rule, not a crash
    const bad = await send(app, '/servers/down?cursor=nope!');
    expect(bad.status).toBe(400);
    expect(textOf(bad.body)).toContain('ToolCallQuery.cursor must be a nextCursor returned by listToolCalls');
  });

  it('says so when the server had no failed call, or no call at all, in the window', async () => {
    const store = InMemoryRunStore.create();
    await seedRun(store, {
      configuration: 'c',
      createdAt: Date.now() - 3 * 24 * HOUR,
      calls: [{ server: 'old', tool: 't', outcome: 'failed' }],
    });
    await seedRun(store, { configuration: 'c', createdAt: Date.now() - HOUR, calls: [{ server: 'fine', tool: 't', outcome: 'ok' }] });
    const app = await started(store);
    const fine = await send(app, '/servers/fine');
    expect(fine.body).toContain('data-note="no-failing"');
    expect(textOf(fine.body)).toContain('No failed calls in this window.');
    // known from before the window: a page, with no calls in it
    const old = await send(app, '/servers/old?window=24h');
    expect(old.status).toBe(200);
    expect(old.body).toContain('data-note="no-calls"');
    expect(old.body).toContain('data-gaps="24"');
    expect((await send(app, '/servers/old?window=all')).body).toContain('data-sequence="0"');
  });

  it('shows the health and charts of a store that cannot list calls, with a note instead of the list', async () => {
    const { store } = await fleet();
    const app = await started(withoutSearch(store));
    const reply = await send(app, '/servers/flaky');
    expect(reply.status).toBe(200);
    expect(textOf(section(reply, 'health'))).toContain('66.7%');
    expect(reply.body).toContain('data-section="trends"');
    expect(reply.body).toContain('data-note="cannot-list"');
    expect(reply.body).not.toContain('table class="failing-calls"');
  });

  it('escapes the server id on its page, and finds it by its URL-encoded id', async () => {
    const { store } = await fleet();
    const app = await started(store);
    const reply = await send(app, `/servers/${encodeURIComponent(ODD)}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toContain('<h1 data-server="we ird/&lt;b&gt;&amp;&quot;?#%">MCP server we ird/&lt;b&gt;&amp;&quot;?#%</h1>');
    expect(reply.body).not.toContain('<b>&');
    expect(reply.body).toContain(`href="/servers/${encodeURIComponent(ODD)}?window=7d"`);
  });

  it('answers 404 for a server the store does not know, 400 for an address that names none, 405 for a POST', async () => {
    const { store } = await fleet();
    const app = await started(store);
    const unknown = await send(app, '/servers/nobody');
    expect(unknown.status).toBe(404);
    expect(textOf(unknown.body)).toContain('No call to an MCP server "nobody" is recorded in this store.');
    const escaped = await send(app, `/servers/${encodeURIComponent('<i>x</i>')}`);
    expect(escaped.status).toBe(404);
    expect(escaped.body).toContain('&lt;i&gt;x&lt;/i&gt;');
    for (const bad of ['/servers/%E0%A4%A', '/servers/%00', '/servers/%ED%A0%80', `/servers/${'x'.repeat(1025)}`]) {
      const reply = await send(app, bad);
      expect(reply.status, bad).toBe(400);
      expect(textOf(reply.body)).toContain('This address names no MCP server');
    }
    expect((await send(app, '/servers/flaky', { method: 'POST' })).status).toBe(405);
    expect((await send(app, '/servers/flaky/more')).status).toBe(404);
  });
});

describe('a server page in German', () => {
  it('shows no English text of the keys it uses that German says differently', async () => {
    const { store } = await fleet();
    const app = await started(withoutSearch(store));
    const pages = [
      textOf((await send(app, '/servers/flaky?lang=de&window=24h')).body),
      textOf((await send(app, '/servers/flaky?lang=de')).body),
      textOf((await send(app, '/servers?lang=de&window=7d')).body),
      textOf((await send(app, '/servers/nobody?lang=de')).body),
    ].join(' ');
    const searching = await started(store);
    const listing = textOf((await send(searching, '/servers/flaky?lang=de')).body);
    const ours = (Object.keys(en) as MessageKey[]).filter((key) => /^(server\.|trend\.|servers\.trends\.)/.test(key));
    expect(ours.length).toBeGreaterThan(30);
    for (const key of ours) {
      const german = entryTexts(de[key]);
      entryTexts(en[key]).forEach((english, form) => {
        if (german[form] === english) return;
        // the longest piece of the English text without a parameter
        const piece = english
          .split(/\{\w+\}/)
          .sort((a, b) => b.length - a.length)[0]!
          .trim();
        if (piece.length >= 6) expect(`${pages} ${listing}`, key).not.toContain(piece);
      });
    }
    expect(listing).toContain('Fehlgeschlagene Aufrufe');
    expect(pages).toContain('Dieser Speicher kann die Aufrufe eines Servers nicht auflisten');
  });
});

describe('a run page links its tool calls to their servers', () => {
  it('links the source (server) and the tool name of each call to the server page', async () => {
    const { store, runId } = await fleet();
    const app = await started(store);
    const reply = await send(app, `/runs/${runId}`);
    const row = (sequence: number) => {
      const start = reply.body.indexOf(`<tr id="step-${sequence}"`);
      return reply.body.slice(start, reply.body.indexOf('</tr>', start));
    };
    expect(row(2)).toContain('<td class="source"><a href="/servers/flaky">flaky</a></td>');
    expect(row(2)).toContain('<span class="v mono"><a href="/servers/flaky">mcp_flaky_fetch</a></span>');
    expect(row(4)).toContain(`<a href="/servers/${encodeURIComponent(ODD)}">we ird/&lt;b&gt;&amp;&quot;?#%</a>`);
    const german = await send(app, `/runs/${runId}?lang=de`);
    expect(german.body).toContain('<a href="/servers/flaky?lang=de">flaky</a>');
  });
});
