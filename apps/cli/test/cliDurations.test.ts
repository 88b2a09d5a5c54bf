// Issue 32 item 9: one duration format and English step kinds everywhere. `runs show` and
// `servers` print a duration as the run page and the servers page do (`812 ms`, `1.234 sec`,
// `1 min 5 sec`), and `runs show` names each step kind in words, as the run page does.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteRunStore } from '@runledger/store-sqlite';
import type { StoredRun } from '@runledger/trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunsServer } from '../src/app/startRunsServer.js';
import { cli } from './cliHelpers.js';
import { send, serve, textOf } from './httpHelpers.js';
import { seedRun } from './seedRun.js';

let dir: string;
let db: string;
let store: SqliteRunStore;
let app: RunsServer;
let run: StoredRun;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'runledger-durations-'));
  db = join(dir, 'runs.db');
  store = await SqliteRunStore.open({ path: db });
  run = await seedRun(store, {
    configuration: 'durations',
    createdAt: Date.UTC(2026, 10, 30, 9),
    calls: [
      { server: 'docs', tool: 'search', outcome: 'ok', durationMs: 812 },
      { server: 'docs', tool: 'search', outcome: 'ok', durationMs: 1_234 },
      { server: 'slow', tool: 'export', outcome: 'ok', durationMs: 65_000 },
    ],
  });
  app = await serve(store);
});
afterAll(async () => {
  await app?.close();
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The text of the cells of one class in the page's timeline rows, in order. */
function cells(page: string, cls: string): string[] {
  return [...page.matchAll(new RegExp(`<td class="[^"]*\\b${cls}\\b[^"]*"[^>]*>([\\s\\S]*?)</td>`, 'g'))].map((m) => textOf(m[1]!));
}

describe('one duration format in the command line and the app', () => {
  it('runs show prints each step’s duration and kind as the run page does', async () => {
    const show = await cli(['runs', 'show', run.id, '--db', db], dir);
    expect(show.stderr).toBe('');
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/END\s+SOURCE\s+KIND\s+ROUND\s+DURATION\s+OUTCOME\s+DETAILS/);
    expect(show.stdout).toMatch(/docs\s+tool call\s+1\s+812 ms\s+ok\s+toolName=mcp_docs_search/);
    expect(show.stdout).toMatch(/docs\s+tool call\s+1\s+1\.234 sec\s+ok\s+toolName=mcp_docs_search/);
    expect(show.stdout).toMatch(/slow\s+tool call\s+1\s+1 min 5 sec\s+ok\s+toolName=mcp_slow_export/);
    expect(show.stdout).toMatch(/run\s+lifecycle\s+.*Run started/);

    const page = (await send(app, `/runs/${run.id}?lang=en`)).body;
    const durations = cells(page, 'duration').filter((text) => text !== '—');
    expect(durations).toEqual(['812 ms', '1.234 sec', '1 min 5 sec']);
    for (const duration of durations) expect(show.stdout).toContain(duration);
    for (const kind of new Set(cells(page, 'kind'))) expect(show.stdout).toContain(kind);
  });

  it('servers prints p95 as the servers page does', async () => {
    const health = await cli(['servers', '--db', db], dir);
    expect(health.code).toBe(0);
    expect(health.stdout).toMatch(/\sP95\s+HEALTH/);
    const page = (await send(app, '/servers?lang=en')).body;
    for (const server of ['docs', 'slow']) {
      const row = new RegExp(`<tr data-server="${server}"[\\s\\S]*?</tr>`).exec(page)?.[0] ?? '';
      // the cell's text: the p95, "over n answered", then the name of its chart over time
      const [p95] = cells(row, 'p95').map((text) => text.replace(/ over \d+ answered .*$/, ''));
      expect(p95, server).toMatch(/^\d+ ms$|^\d+(\.\d+)? sec$|^\d+ min( \d+ sec)?$/);
      const line = health.stdout.split('\n').find((text) => text.startsWith(`${server} `));
      expect(line, health.stdout).toContain(` ${p95} `);
    }
  });
});
