// Issue 32 item 3, "find a run": the runs list filters by configuration, server, tool, outcome,
// status, time range and title text, shows the totals of its filters and each run's tokens,
// refuses a bad filter by naming it (a 400 page with the form, never a 500), keeps its filters
// through paging and the language switch, and refreshes itself while a run on it runs — on each
// store the app runs on.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InMemoryRunStore, type RunStore, type StoredRun } from '@runledger/trace';
import { describe, expect, it } from 'vitest';
import { createRunsApp } from '../src/app/createRunsApp.js';
import { RUNS_TOTALS_UP_TO } from '../src/app/readRunsList.js';
import type { RunsServer } from '../src/app/startRunsServer.js';
import type { Reply } from './httpHelpers.js';
import { seedRun } from './seedRun.js';
import { assertInertPage, closeAfterTest, mainText, request, started, STORES, T0, useSecurityHarness } from './securityHarness.js';

useSecurityHarness();

const HOUR = 3_600_000;

function rowsOf(reply: Reply): string[] {
  return [...reply.body.matchAll(/<tr data-run-id="([^"]+)"/g)].map((m) => m[1]!);
}

/** The links of a page whose text is `label`, decoded. */
function linkTo(reply: Reply, pattern: RegExp): string | null {
  const match = pattern.exec(reply.body);
  return match === null ? null : match[1]!.replace(/&amp;/g, '&');
}

/** An LLM step of `tokens` prompt and completion tokens, as the recorder stores it. */
async function llm(store: RunStore, runId: string, at: number, promptTokens: number, completionTokens: number): Promise<void> {
  await store.appendStep(runId, {
    kind: 'llm',
    round: 1,
    durationMs: 5,
    createdAt: at,
    payload: { kind: 'llm', model: 'm', round: 1, durationMs: 5, promptTokens, completionTokens },
    toolServer: null,
    toolOutcome: null,
  });
}

/** Three runs: A (support, titled, 120 tokens), B (ops, titled, 55 tokens, an hour later), C (ops, untitled, two hours later). */
async function seed(store: RunStore): Promise<{ a: StoredRun; b: StoredRun; c: StoredRun }> {
  const a = await store.createRun({ configuration: 'support-agent', title: 'Triage the Inbox', actor: null, createdAt: T0 });
  await llm(store, a.id, T0 + 1, 100, 20);
  await store.appendStep(a.id, {
    kind: 'tool',
    round: 1,
    durationMs: 5,
    createdAt: T0 + 2,
    payload: {
      kind: 'tool',
      toolName: 'mcp_docs_search',
      toolServer: 'docs',
      toolIsError: false,
      toolOutcome: 'ok',
      round: 1,
      durationMs: 5,
    },
    toolServer: 'docs',
    toolOutcome: 'ok',
  });
  await store.finishRun(a.id, { status: 'completed', finishedAt: T0 + 10 });
  const b = await store.createRun({
    configuration: 'ops-agent',
    title: 'Export the Q3 report (50%_done)',
    actor: null,
    createdAt: T0 + HOUR,
  });
  await llm(store, b.id, T0 + HOUR + 1, 50, 5);
  await seedCalls(store, b.id, T0 + HOUR, [
    { server: 'slow', tool: 'export', outcome: 'cancelled' },
    { server: 'flaky', tool: 'fetch', outcome: 'failed' },
  ]);
  await store.finishRun(b.id, { status: 'failed', finishedAt: T0 + HOUR + 100 });
  const c = await seedRun(store, {
    configuration: 'ops-agent',
    createdAt: T0 + 2 * HOUR,
    calls: [{ server: 'docs', tool: 'fetch', outcome: 'ok' }],
  });
  return { a: (await store.getRun(a.id))!, b: (await store.getRun(b.id))!, c };
}

async function seedCalls(
  store: RunStore,
  runId: string,
  from: number,
  calls: readonly { server: string; tool: string; outcome: 'ok' | 'failed' | 'cancelled' }[],
): Promise<void> {
  let at = from + 10;
  for (const call of calls) {
    await store.appendStep(runId, {
      kind: 'tool',
      round: 1,
      durationMs: 5,
      createdAt: at++,
      payload: {
        kind: 'tool',
        toolName: `mcp_${call.server}_${call.tool}`,
        toolServer: call.server,
        toolIsError: call.outcome !== 'ok',
        toolOutcome: call.outcome,
        round: 1,
        durationMs: 5,
      },
      toolServer: call.server,
      toolOutcome: call.outcome,
    });
  }
}

/** The app with its own page size and time zone, on a random port. */
async function app(store: RunStore, options: { runsPageSize?: number; timeZone?: string } = {}): Promise<RunsServer> {
  const handler = createRunsApp({ store, timeZone: options.timeZone ?? 'UTC', runsPageSize: options.runsPageSize });
  const server = createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const listening: RunsServer = {
    url: `http://127.0.0.1:${port}/`,
    port,
    server,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  closeAfterTest(listening);
  return listening;
}

/** A store without the search methods: one written before them (see canSearchRuns). */
function withoutSearch(store: InMemoryRunStore): RunStore {
  return new Proxy(store, {
    get(target, key, receiver) {
      if (key === 'runTotals' || key === 'listToolCalls' || key === 'findRunIdsByPrefix') return undefined;
      const value: unknown = Reflect.get(target, key, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

describe.each(STORES)('find a run on %s', (_name, open) => {
  it('filters by configuration, server, tool, outcome, time range and title text, with the totals of the filters', async () => {
    const store = await open();
    const { a, b, c } = await seed(store);
    const server = await started(store);
    const list = async (query: string) => {
      const reply = await request(server, `/?${query}`);
      expect(reply.status, query).toBe(200);
      return reply;
    };
    expect(rowsOf(await list(''))).toEqual([c.id, b.id, a.id]);
    expect(rowsOf(await list('configuration=ops-agent'))).toEqual([c.id, b.id]);
    expect(rowsOf(await list('configuration=+ops-agent+'))).toEqual([c.id, b.id]);
    expect(rowsOf(await list('configuration=ops'))).toEqual([]);
    // an ended call to that server; the same step matches server and tool together
    expect(rowsOf(await list('server=slow'))).toEqual([b.id]);
    expect(rowsOf(await list('server=docs'))).toEqual([c.id, a.id]);
    expect(rowsOf(await list('tool=mcp_docs_search'))).toEqual([a.id]);
    expect(rowsOf(await list('server=docs&tool=mcp_docs_fetch'))).toEqual([c.id]);
    expect(rowsOf(await list('server=flaky&tool=mcp_docs_search'))).toEqual([]);
    expect(rowsOf(await list('has=ok'))).toEqual([c.id, a.id]);
    expect(rowsOf(await list('has=cancelled&status=failed'))).toEqual([b.id]);
    // the title: any case of A-Z, % and _ literal
    expect(rowsOf(await list('title=INBOX'))).toEqual([a.id]);
    expect(rowsOf(await list('title=50%25_done'))).toEqual([b.id]);
    expect(rowsOf(await list('title=0%25_'))).toEqual([b.id]);
    expect(rowsOf(await list('title=5_%25'))).toEqual([]);
    // the time range [from, to) on when the run was created, in the app's time zone (UTC here)
    expect(rowsOf(await list('from=2026-11-29T10:00&to=2026-11-29T11:00'))).toEqual([b.id]);
    expect(rowsOf(await list('from=2026-11-29T10:00:00.001'))).toEqual([c.id]);
    expect(rowsOf(await list('to=2026-11-29T10:00'))).toEqual([a.id]);

    const totals = async (query: string) => {
      const reply = await list(query);
      return /<p class="totals" data-totals data-runs="(\d+)" data-tokens="(\d+)" data-complete="(true|false)">([^<]*)<\/p>/
        .exec(reply.body)
        ?.slice(1);
    };
    expect(await totals('')).toEqual(['3', '175', 'true', '3 runs · 175 tokens']);
    expect(await totals('configuration=ops-agent')).toEqual(['2', '55', 'true', '2 runs · 55 tokens']);
    expect(await totals('server=nobody')).toEqual(['0', '0', 'true', '0 runs · 0 tokens']);
    const german = await list('configuration=ops-agent&lang=de');
    expect(mainText(german.body)).toContain('2 Läufe · 55 Tokens');

    // each run's tokens in its own column
    const page = await list('');
    const row = (id: string) => page.body.slice(page.body.indexOf(`data-run-id="${id}"`)).split('</tr>')[0]!;
    expect(row(a.id)).toContain('<td class="num tokens hide-narrow">120</td>');
    expect(row(b.id)).toContain('<td class="num tokens hide-narrow">55</td>');
    expect(row(c.id)).toContain('<td class="num tokens hide-narrow">0</td>');
  });

  it('refuses a bad filter with the form and a message naming the field: a 400 page, never a 500, the list not read', async () => {
    const store = await open();
    await seed(store);
    const server = await started(store);
    const cases: [string, string, string][] = [
      ['from=yesterday', 'from', 'Started from: "yesterday" is not a date and time such as 2026-11-30T08:00 from 1970 on.'],
      ['to=2026-02-30T08:00', 'to', 'Started before: "2026-02-30T08:00" is not a date and time'],
      ['from=1969-12-31T23:59', 'from', 'Started from: "1969-12-31T23:59" is not a date and time'],
      ['from=2026-11-29T10:00&to=2026-11-29T10:00', 'to', 'Started before: must be later than the start of the range.'],
      [`title=${'x'.repeat(201)}`, 'title', 'Title contains: at most 200 characters.'],
      ['title=ab', 'title', 'Title contains: at least 3 characters.'],
      ['configuration=a%0Ab', 'configuration', 'Configuration: no control characters such as line breaks.'],
      ['tool=%00', 'tool', 'Tool: no control characters'],
    ];
    for (const [query, field, message] of cases) {
      const reply = await request(server, `/?${query}`);
      expect(reply.status, query).toBe(400);
      const text = assertInertPage(reply.body, query);
      expect(text, query).toContain('These filters cannot be applied:');
      expect(text, query).toContain(message);
      expect(reply.body, query).toMatch(new RegExp(`<li id="filter-${field}-error" data-field="${field}"><a href="#filter-${field}">`));
      expect(reply.body, query).toMatch(
        new RegExp(`id="filter-${field}"[^>]* aria-invalid="true" aria-describedby="[^"]*filter-${field}-error"`),
      );
      expect(rowsOf(reply), query).toEqual([]);
      expect(reply.body, query).not.toContain('data-totals');
    }
    const german = await request(server, '/?from=gestern&lang=de');
    expect(german.status).toBe(400);
    expect(mainText(german.body)).toContain('Gestartet ab: „gestern“ ist kein Datum mit Uhrzeit wie 2026-11-30T08:00 ab 1970.');
    // a cursor the store refuses: the form with the store's reason, not an error page
    const cursor = await request(server, '/?cursor=not-a-cursor&configuration=ops-agent');
    expect(cursor.status).toBe(400);
    expect(mainText(cursor.body)).toMatch(/This list cannot be read: .*cursor/);
    expect(cursor.body).toContain('value="ops-agent"');
    // a status or outcome it does not know reads as "any": they come from selects
    expect(rowsOf(await request(server, '/?status=bogus&has=bogus'))).toHaveLength(3);
  });

  it('keeps its filters through paging and the language switch', async () => {
    const store = await open();
    for (let i = 0; i < 5; i++)
      await seedRun(store, { configuration: 'bulk', createdAt: T0 + i * 1000, calls: [{ server: 'docs', tool: 'search', outcome: 'ok' }] });
    await seedRun(store, { configuration: 'other', createdAt: T0 + 10_000, calls: [] });
    const server = await app(store, { runsPageSize: 2 });
    const query =
      'configuration=bulk&server=docs&tool=mcp_docs_search&title=&from=2026-11-29T08:00&to=2026-11-30T08:00&has=ok&status=completed';
    let path: string | null = `/?${query}&lang=de`;
    const seen: string[] = [];
    for (let pages = 0; path !== null; pages++) {
      const reply = await request(server, path);
      expect(reply.status).toBe(200);
      seen.push(...rowsOf(reply));
      expect(mainText(reply.body)).toContain('5 Läufe · 0 Tokens');
      // the language switch keeps the filters and the page
      const english = linkTo(reply, /<a href="([^"]+)" hreflang="en"/)!;
      expect(english).toContain('configuration=bulk');
      expect(english).toContain('from=2026-11-29T08%3A00');
      if (pages > 0) expect(english).toContain('cursor=');
      path = linkTo(reply, /<a class="button" rel="next" href="([^"]+)"/);
      if (path !== null) {
        for (const kept of [
          'configuration=bulk',
          'server=docs',
          'tool=mcp_docs_search',
          'has=ok',
          'status=completed',
          'lang=de',
          'to=2026-11-30T08%3A00',
        ]) {
          expect(path).toContain(kept);
        }
      }
    }
    expect(seen).toHaveLength(5);
    expect(new Set(seen).size).toBe(5);
  });
});

describe('find a run: the totals of a large store', () => {
  it(`counts ${RUNS_TOTALS_UP_TO.toLocaleString('en-US')} runs at most and says there are more: both figures are then lower bounds`, async () => {
    const store = InMemoryRunStore.create();
    // two runs past the count; the in-memory store counts in the order the runs were made
    for (let i = 0; i <= RUNS_TOTALS_UP_TO; i += 1) {
      const run = await store.createRun({ configuration: 'fleet', createdAt: T0 + i });
      if (i === 0) {
        await store.appendStep(run.id, {
          kind: 'llm',
          round: 1,
          durationMs: 5,
          createdAt: T0,
          payload: { kind: 'llm', promptTokens: 999 },
          toolServer: null,
          toolOutcome: null,
        });
      }
    }
    await store.createRun({ configuration: 'other', createdAt: T0 - 1 });
    expect(await store.runTotals()).toEqual({ runs: RUNS_TOTALS_UP_TO + 2, tokens: 999, complete: true });
    const server = await started(store);
    for (const [query, line] of [
      ['', '10,000+ runs · 999+ tokens'],
      ['lang=de', '10.000+ Läufe · 999+ Tokens'],
    ] as const) {
      const reply = await request(server, `/?${query}`);
      expect(reply.status).toBe(200);
      expect(reply.body).toContain(`data-runs="${RUNS_TOTALS_UP_TO}" data-tokens="999" data-complete="false">${line}</p>`);
    }
    // a filter that keeps fewer: every run counted
    const few = await request(server, '/?configuration=other');
    expect(few.body).toContain('data-runs="1" data-tokens="0" data-complete="true">1 run · 0 tokens</p>');
  });
});

describe('find a run: the time range in the app’s time zone', () => {
  it('reads from and to as wall-clock times where the app shows its dates, and says which zone', async () => {
    const store = InMemoryRunStore.create();
    const { a, b } = await seed(store);
    const server = await app(store, { timeZone: 'Europe/Berlin' });
    // T0 is 09:00 UTC, 10:00 in Berlin (CET, UTC+1)
    const reply = await request(server, '/?from=2026-11-29T10:00&to=2026-11-29T10:00:01');
    expect(rowsOf(reply)).toEqual([a.id]);
    expect(mainText(reply.body)).toContain('Times are in Europe/Berlin.');
    expect(rowsOf(await request(server, '/?from=2026-11-29T11:00&to=2026-11-29T12:00'))).toEqual([b.id]);
  });
});

describe('find a run: a store that cannot search', () => {
  it('offers no server, tool or title filter and no totals, and ignores them in the URL', async () => {
    const plain = InMemoryRunStore.create();
    const { a, b, c } = await seed(plain);
    const server = await app(withoutSearch(plain));
    const reply = await request(server, '/?server=slow&tool=x&title=inbox');
    expect(reply.status).toBe(200);
    expect(rowsOf(reply)).toEqual([c.id, b.id, a.id]);
    expect(reply.body).not.toContain('name="server"');
    expect(reply.body).not.toContain('name="tool"');
    expect(reply.body).not.toContain('name="title"');
    expect(reply.body).not.toContain('data-totals');
    expect(reply.body).toContain('name="configuration"');
    expect(reply.body).toContain('name="from"');
    expect(rowsOf(await request(server, '/?configuration=support-agent'))).toEqual([a.id]);
  });
});

describe('find a run: the list updates in place while runs run', () => {
  it('is live (the live script, every 5 seconds, no meta refresh) while a run on the page runs, says so, and can be turned off (kept through the filters)', async () => {
    const store = InMemoryRunStore.create();
    const done = await seedRun(store, { configuration: 'done', createdAt: T0, calls: [] });
    const running = await seedRun(store, { configuration: 'live', createdAt: T0 + 1, calls: [], finish: null });
    const server = await app(store);
    const live = await request(server, '/');
    expect(live.body).not.toContain('http-equiv="refresh"');
    expect(live.body).toContain('<script src="/assets/live.js" defer></script>');
    expect(live.body).toContain('<body data-live-seconds="5">');
    // the list's rows, totals and pager are the one region the script puts in again; the filter form is not in it
    expect(live.body).toMatch(/<div data-live-region="list">[\s\S]*<table class="runs">[\s\S]*<\/table>[\s\S]*<\/div>/);
    expect(live.body.indexOf('data-live-region="list"')).toBeGreaterThan(live.body.indexOf('</form>'));
    // the note, shown by the script; without it the page says it does not update by itself and offers a reload
    expect(live.body).toContain('data-text-on="Updates live every 5 seconds."');
    expect(live.body).toContain('data-text-over="No run on this page is running any more; updates stopped."');
    expect(live.body).toMatch(
      /<noscript><p class="muted live-note">This page does not update by itself without JavaScript\. <a href="\/">Reload<\/a><\/p><\/noscript>/,
    );
    expect(rowsOf(live)).toEqual([running.id, done.id]);
    // no running run on the page (filtered away): not live
    const finished = await request(server, '/?configuration=done');
    expect(finished.body).not.toContain('data-live-seconds');
    expect(finished.body).not.toContain('/assets/live.js');
    expect(finished.body).not.toContain('data-refresh');
    // turned off by the address: not live, a link to turn it on, and the form keeps it off
    const quiet = await request(server, '/?refresh=off');
    expect(quiet.body).not.toContain('data-live-seconds');
    expect(quiet.body).toContain('<input type="hidden" name="refresh" value="off">');
    expect(linkTo(quiet, /<p class="muted refresh" data-refresh="off">[^<]*<a href="([^"]+)"/)).toBe('/');
    expect(mainText(quiet.body)).toContain('Runs on this page are running; live updates are off. Update live every 5 seconds');
    const german = await request(server, '/?lang=de');
    expect(german.body).toContain('data-text-on="Wird im Abstand von 5 Sekunden aktualisiert."');
    expect(german.body).toContain('Ohne JavaScript aktualisiert sich diese Seite nicht selbst.');
  });
});
