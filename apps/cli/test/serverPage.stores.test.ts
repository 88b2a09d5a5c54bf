// A server's page on each store the app runs on (in memory, SQLite, PostgreSQL): its failed calls
// listed and paged through the store's own listToolCalls, and every stored string on it as text.
import { describe, expect, it } from 'vitest';
import { escapeHtml } from '../src/html/Html.js';
import { seedRun } from './seedRun.js';
import { assertInertPage, describeSecurityHeaders, request, started, STORES, T0, useSecurityHarness, XSS } from './securityHarness.js';

useSecurityHarness();

describe.each(STORES)('a server page on %s', (_name, open) => {
  it('lists the failed calls of a server whose id and tools are markup, as text, and links each to its step', async () => {
    const store = await open();
    const runs = [];
    for (const [i, payload] of XSS.entries()) {
      const server = `srv${i}${payload}`;
      runs.push(
        await seedRun(store, {
          configuration: `cfg ${i}`,
          createdAt: T0 + i * 1000,
          calls: [
            { server, tool: `ok${payload}`, outcome: 'ok' },
            { server, tool: `bad${payload}`, outcome: 'failed', cause: 'server_error' },
          ],
        }),
      );
    }
    const app = await started(store);
    const list = await request(app, '/servers');
    assertInertPage(list.body, 'servers page with charts');
    for (const [i, payload] of XSS.entries()) {
      const server = `srv${i}${payload}`;
      expect(list.body).toContain(`href="${escapeHtml(`/servers/${encodeURIComponent(server)}?window=all`)}"`);
      const page = await request(app, `/servers/${encodeURIComponent(server)}`);
      expect(page.status, server).toBe(200);
      const text = assertInertPage(page.body, `server page ${i}`);
      expect(text).toContain(`MCP server ${server}`);
      expect(text).toContain(`mcp_${server}_bad${payload}`);
      expect(text).not.toContain(`mcp_${server}_ok${payload}`);
      expect(page.body).toContain(`href="/runs/${runs[i]!.id}#step-1"`);
      const unknown = await request(app, `/servers/${encodeURIComponent(`x${payload}`)}`);
      expect(unknown.status).toBe(404);
      assertInertPage(unknown.body, 'unknown server page');
    }
  });

  it("pages a busy server's failed calls by the store's cursor", async () => {
    const store = await open();
    await seedRun(store, {
      configuration: 'busy',
      createdAt: T0,
      calls: Array.from({ length: 60 }, (_, i) => ({ server: 'busy', tool: 't', outcome: i % 10 === 0 ? 'ok' : 'failed' }) as const),
    });
    const app = await started(store);
    const sequences = (body: string) => [...body.matchAll(/<tr data-run-id="[^"]+" data-sequence="(\d+)">/g)].map((m) => Number(m[1]));
    const first = await request(app, '/servers/busy');
    const failedSequences = Array.from({ length: 60 }, (_, i) => 59 - i).filter((i) => i % 10 !== 0);
    expect(sequences(first.body)).toEqual(failedSequences.slice(0, 50));
    const next = /rel="next" href="([^"]+)"/.exec(first.body)![1]!.replace(/&amp;/g, '&');
    const second = await request(app, next);
    expect(sequences(second.body)).toEqual(failedSequences.slice(50));
    expect(second.body).not.toContain('rel="next"');
  });
});

describeSecurityHeaders([200, 404]);
