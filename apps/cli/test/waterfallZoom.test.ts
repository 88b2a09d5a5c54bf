// The run page's zoom over HTTP (issue 40 item 4): `?from=<first step>&to=<end step>` shows those
// steps alone, on the waterfall scaled to them and in the table, with links to zoom in, out and
// back; a range that breaks the rule is a 400 page naming the parameter and the rule, in the
// page's language. A 10 000-step run in the in-memory store, the real app server.
import { InMemoryRunStore, type StoredRun } from '@runledger/trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunsServer } from '../src/app/startRunsServer.js';
import { send, serve, textOf } from './httpHelpers.js';
import { seedRun } from './seedRun.js';

const T0 = Date.UTC(2026, 10, 29, 9, 0, 0);
const STEPS = 10_000;

let server: RunsServer;
let run: StoredRun;

beforeAll(async () => {
  const store = InMemoryRunStore.create();
  const calls = Array.from({ length: STEPS }, (_, i) => ({
    server: i % 2 === 0 ? 'docs' : 'flaky',
    tool: 'search',
    outcome: 'ok' as const,
  }));
  run = await seedRun(store, { configuration: 'long', createdAt: T0, calls });
  server = await serve(store);
}, 60_000);
afterAll(async () => {
  await server?.close();
});

const rows = (body: string) => [...body.matchAll(/<tr id="step-(\d+)"/g)].map((m) => Number(m[1]));
const bars = (body: string) => [...body.matchAll(/<a href="#step-(\d+)" class="bar /g)].map((m) => Number(m[1]));
const zoomLinks = (body: string) =>
  Object.fromEntries([...body.matchAll(/data-zoom-link="(\w+)" href="([^"]*)"/g)].map((m) => [m[1], m[2]!.replaceAll('&amp;', '&')]));

describe('zooming into a range of a 10 000-step run', () => {
  it('shows only the steps of the range, on the waterfall and in the table, the axis scaled to them', async () => {
    const reply = await send(server, `/runs/${run.id}?from=5000&to=5020`);
    expect(reply.status).toBe(200);
    const expected = Array.from({ length: 20 }, (_, i) => 5000 + i);
    expect(rows(reply.body)).toEqual(expected);
    expect(bars(reply.body)).toEqual(expected);
    const text = textOf(reply.body);
    expect(text).toContain('Zoomed to steps 5,001–5,020 of 10,000: the waterfall is scaled to them.');
    // seeded 10 ms apart, 5 ms each: step 5000 began at +50 005 ms and step 5019 ended at +50 200 ms
    expect(text).toContain('09:00:50.005 to 09:00:50.200');
    // the first bar starts at the axis start and the last ends at its end
    expect(reply.body).toMatch(/<a href="#step-5000"[^>]*><title>[^<]*<\/title><rect x="0.000%"/);
    expect(reply.body).toMatch(/<a href="#step-5019"[^>]*><title>[^<]*<\/title><rect x="97.436%"[^>]*width="2.564%"/);
    expect(zoomLinks(reply.body)).toEqual({
      in: `/runs/${run.id}?from=5005&to=5015`,
      out: `/runs/${run.id}?from=4990&to=5030`,
      reset: `/runs/${run.id}?from=5000`,
    });
    // the pager keeps the range's width
    expect(reply.body).toContain(`rel="prev" href="/runs/${run.id}?from=4980&amp;to=5000"`);
    expect(reply.body).toContain(`rel="next" href="/runs/${run.id}?from=5020&amp;to=5040"`);
  });

  it('follows its links in and out: zoom in halves the range, zoom out doubles it up to a page, reset is the plain page', async () => {
    const inward = await send(server, zoomLinks((await send(server, `/runs/${run.id}?from=5000&to=5020`)).body)['in']!);
    expect(rows(inward.body)).toEqual(Array.from({ length: 10 }, (_, i) => 5005 + i));
    let address = `/runs/${run.id}?from=5000&to=5001`;
    const one = await send(server, address);
    expect(rows(one.body)).toEqual([5000]);
    expect(zoomLinks(one.body)['in']).toBeUndefined();
    for (const width of [2, 4, 8, 16, 32, 64, 128, 200]) {
      address = zoomLinks((await send(server, address)).body)['out']!;
      expect(rows((await send(server, address)).body)).toHaveLength(width);
    }
    const widest = await send(server, address);
    expect(zoomLinks(widest.body)['out']).toBeUndefined();
    const reset = await send(server, zoomLinks(widest.body)['reset']!);
    expect(reset.body).toContain('data-zoom="page"');
    expect(rows(reset.body)).toHaveLength(200);
    // a plain page offers to zoom into its middle half
    expect(zoomLinks((await send(server, `/runs/${run.id}`)).body)).toEqual({ in: `/runs/${run.id}?from=50&to=150` });
  });

  it('reaches the last steps and the first with `from` left out', async () => {
    expect(rows((await send(server, `/runs/${run.id}?from=9990&to=10000`)).body)).toEqual(Array.from({ length: 10 }, (_, i) => 9990 + i));
    const first = await send(server, `/runs/${run.id}?to=3&lang=de`);
    expect(rows(first.body)).toEqual([0, 1, 2]);
    expect(textOf(first.body)).toContain('Vergrößert auf die Schritte 1–3 von 10.000');
  });

  it('answers a range that breaks the rule with 400, naming the parameter and the rule, in English and German', async () => {
    const cases: [string, string][] = [
      ['from=abc&to=20', 'Parameter “from”: “abc” is not a step number: a whole number from 0 (digits only).'],
      ['from=10&to=', 'Parameter “to”: “” is not a step number: a whole number from 0 (digits only).'],
      ['from=1.5&to=2e3', 'Parameter “from”: “1.5” is not a step number'],
      ['from=20&to=20', 'Parameter “to”: must be greater than from (20); it is 20.'],
      ['from=0&to=500', 'Parameter “to”: a zoom range takes at most 200 steps (to − from ≤ 200); to is 500.'],
      ['from=9990&to=10001', 'Parameter “to”: must be at most the run’s number of steps (10,000); it is 10001.'],
      ['from=10000&to=10001', 'Parameter “from”: must be less than the run’s number of steps (10,000); it is 10000.'],
    ];
    for (const [query, message] of cases) {
      const reply = await send(server, `/runs/${run.id}?${query}`);
      expect(reply.status, query).toBe(400);
      expect(reply.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(textOf(reply.body), query).toContain('Bad request');
      expect(textOf(reply.body), query).toContain(message);
    }
    const german = await send(server, `/runs/${run.id}?from=abc&to=0&lang=de`);
    expect(german.status).toBe(400);
    expect(textOf(german.body)).toContain('Parameter „from“: „abc“ ist keine Schrittnummer: eine ganze Zahl ab 0 (nur Ziffern).');
    expect(german.body).toContain('<html lang="de"');
  });
});
