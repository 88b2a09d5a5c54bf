// The runs list's filter boxes suggest the configurations, servers and tools the store holds
// (issue 40 item 7): an HTML <datalist> each, filled from the store, bounded, no script needed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteRunStore } from '@runledger/store-sqlite';
import { InMemoryRunStore, type RunStore } from '@runledger/trace';
import { afterAll, describe, expect, it } from 'vitest';
import { readFilterSuggestions } from '../src/app/FilterSuggestionCache.js';
import { distinctNames, MAX_SUGGESTIONS } from '../src/viewModels/filterSuggestions.js';
import { send, serve } from './httpHelpers.js';
import { seedRun } from './seedRun.js';

const dir = mkdtempSync(join(tmpdir(), 'runledger-suggestions-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The option values of the datalist an input names with its list attribute. */
function suggested(body: string, field: string): string[] | null {
  const input = new RegExp(`<input id="filter-${field}"[^>]*>`).exec(body)?.[0] ?? '';
  const list = /\slist="([^"]+)"/.exec(input)?.[1];
  if (list === undefined) return null;
  const datalist = new RegExp(`<datalist id="${list}">([\\s\\S]*?)</datalist>`).exec(body)?.[1] ?? '';
  return [...datalist.matchAll(/<option value="([^"]*)"><\/option>/g)].map((m) => m[1]!);
}

async function seeded(store: RunStore): Promise<void> {
  const at = Date.now() - 3_600_000;
  await seedRun(store, { configuration: 'support-agent', createdAt: at, calls: [{ server: 'docs', tool: 'search', outcome: 'ok' }] });
  await seedRun(store, {
    configuration: 'ops <agent> & "co"',
    createdAt: at + 1000,
    calls: [
      { server: 'flaky', tool: 'fetch_metrics', outcome: 'failed', cause: 'server_error' },
      { server: 'docs', tool: 'read_page', outcome: 'ok' },
    ],
  });
}

describe.each([
  ['in memory', async () => InMemoryRunStore.create()],
  ['SQLite', async () => SqliteRunStore.open({ path: join(dir, `${Date.now()}-${Math.random()}.db`) })],
])('the runs list’s filter boxes (%s)', (_name, open) => {
  it('suggest the configurations, servers and tools the store holds, escaped, through a datalist each', async () => {
    const store = await open();
    await seeded(store);
    const app = await serve(store);
    try {
      const body = (await send(app, '/')).body;
      // newest run's configuration first; the markup escaped
      expect(suggested(body, 'configuration')).toEqual(['ops &lt;agent&gt; &amp; &quot;co&quot;', 'support-agent']);
      expect(suggested(body, 'server')?.sort()).toEqual(['docs', 'flaky']);
      expect(suggested(body, 'tool')).toEqual(['mcp_docs_read_page', 'mcp_docs_search', 'mcp_flaky_fetch_metrics']);
      // the title box suggests nothing; the lists stay in a form that works without script
      expect(suggested(body, 'title')).toBeNull();
      expect(body).not.toContain('<datalist id="filter-title');
    } finally {
      await app.close();
      await store.close();
    }
  });
});

describe('filter suggestions', () => {
  it('offer no list on an empty store', async () => {
    const store = InMemoryRunStore.create();
    const app = await serve(store);
    try {
      const body = (await send(app, '/')).body;
      expect(suggested(body, 'configuration')).toBeNull();
      expect(body).not.toContain('<datalist');
    } finally {
      await app.close();
    }
  });

  it('are bounded: the configurations of the 200 most recent runs', async () => {
    const store = InMemoryRunStore.create();
    const at = Date.now() - 3_600_000;
    for (let i = 0; i < MAX_SUGGESTIONS + 5; i++) await store.createRun({ configuration: `config-${i}`, createdAt: at + i });
    const suggestions = await readFilterSuggestions(store);
    expect(suggestions.configuration).toHaveLength(MAX_SUGGESTIONS);
    expect(suggestions.configuration[0]).toBe(`config-${MAX_SUGGESTIONS + 4}`);
    expect(suggestions.configuration).not.toContain('config-4');
  });

  it('keep each name once, in its first place, without empty names, at most 200', () => {
    expect(distinctNames(['b', 'a', 'b', '', null, undefined, 'c'])).toEqual(['b', 'a', 'c']);
    expect(distinctNames(Array.from({ length: 500 }, (_, i) => `n${i}`))).toHaveLength(MAX_SUGGESTIONS);
  });
});
