// Issue 40 item 7: every listing of the command line pages with `--limit` (1 to 1000) and
// `--cursor`, the `nextCursor` its --json printed: followed to the end, the pages list every item
// once, in the order of one long page, whatever the page size (store pages are at most 200 runs).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteRunStore } from '@runledger/store-sqlite';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runsList } from '../src/commands/runsList.js';
import { runsShow } from '../src/commands/runsShow.js';
import { servers } from '../src/commands/servers.js';
import { spoolList } from '../src/commands/spoolList.js';
import { cli } from './cliHelpers.js';
import { type SeedCall, seedRun } from './seedRun.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'runledger-listing-cursor-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A SQLite store with runs created at these times (ties included), and its run ids. */
async function storeWith(times: readonly number[]): Promise<{ db: string; ids: string[] }> {
  const db = join(mkdtempSync(join(dir, 'runs-')), 'runs.db');
  const store = await SqliteRunStore.open({ path: db });
  const ids: string[] = [];
  try {
    for (const createdAt of times) ids.push((await store.createRun({ configuration: 'paged', createdAt })).id);
  } finally {
    await store.close();
  }
  return { db, ids };
}

/** One `runs list --json` page. */
async function runsPage(db: string, args: readonly string[]): Promise<{ ids: string[]; nextCursor: string | null }> {
  const result = await cli(['runs', 'list', '--db', db, '--json', ...args], dir);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  const page = runsList.jsonOutput.parse(JSON.parse(result.stdout));
  return { ids: page.runs.map((run) => run.id), nextCursor: page.nextCursor };
}

/**
 * Follows a listing's nextCursor at `--limit <limit>` (`items` reads each page) and checks that the
 * pages list `whole`, the listing as one page, each item once and in its order: full pages, then the
 * rest (an empty page only for an empty listing).
 */
async function expectPagesListItOnce<P extends { nextCursor: string | null }>(
  read: (args: readonly string[]) => Promise<P>,
  items: (page: P) => string[],
  limit: number,
  whole: readonly string[],
): Promise<void> {
  const pages: string[][] = [];
  let cursor: string | null = null;
  do {
    const page: P = await read(['--limit', String(limit), ...(cursor === null ? [] : ['--cursor', cursor])]);
    pages.push(items(page));
    cursor = page.nextCursor;
  } while (cursor !== null && pages.length <= 1000);
  expect(pages.flat()).toEqual(whole);
  expect(pages.slice(0, -1).every((page) => page.length === limit)).toBe(true);
  expect(pages.length).toBe(Math.max(1, Math.ceil(whole.length / limit)));
}

describe('runs list --cursor', () => {
  it('pages through every run once, in the order of one page, whatever --limit', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 1_000, max: 1_010 }), { maxLength: 40 }),
        fc.integer({ min: 1, max: 15 }),
        async (times, limit) => {
          const { db, ids } = await storeWith(times);
          const whole = await runsPage(db, ['--limit', '1000']);
          expect(whole.nextCursor).toBeNull();
          expect([...whole.ids].sort()).toEqual([...ids].sort());
          await expectPagesListItOnce(
            (args) => runsPage(db, args),
            (page) => page.ids,
            limit,
            whole.ids,
          );
        },
      ),
      { numRuns: 12 },
    );
  });

  it('lists up to 1000 runs in one page, across the store pages of 200, and the cursor of a 300-run page follows on', async () => {
    const { db, ids } = await storeWith(Array.from({ length: 450 }, (_, i) => 5_000 + Math.floor(i / 3)));
    const whole = await runsPage(db, ['--limit', '1000']);
    expect(whole.ids).toHaveLength(450);
    expect(new Set(whole.ids)).toEqual(new Set(ids));
    expect(whole.nextCursor).toBeNull();
    const first = await runsPage(db, ['--limit', '300']);
    expect(first.ids).toEqual(whole.ids.slice(0, 300));
    const second = await runsPage(db, ['--limit', '300', '--cursor', first.nextCursor!]);
    expect(second).toEqual({ ids: whole.ids.slice(300), nextCursor: null });
    // the table says the cursor of the next page
    const table = await cli(['runs', 'list', '--db', db, '--limit', '300'], dir);
    expect(table.stdout.trimEnd().split('\n').at(-1)).toBe(`(more runs: the next page is --cursor ${first.nextCursor})`);
  });

  it('refuses a cursor no runs list printed, and a --limit out of 1 to 1000, naming the flag and the rule', async () => {
    const { db } = await storeWith([1_000]);
    const bad = await cli(['runs', 'list', '--db', db, '--cursor', 'nope'], dir);
    expect(bad.code).toBe(2);
    expect(bad.stderr.split('\n')[0]).toBe(
      'runledger runs list: --cursor must be the nextCursor of an earlier runs list (its --json, or the line under its table), got "nope"',
    );
    const big = await cli(['runs', 'list', '--db', db, '--limit', '1001'], dir);
    expect(big.code).toBe(2);
    expect(big.stderr.split('\n')[0]).toBe('runledger runs list: --limit must be an integer from 1 to 1000, got "1001"');
  });
});

/** A SQLite store with finished runs of these many tool calls each, and their ids. */
async function storeWithSteps(counts: readonly number[]): Promise<{ db: string; ids: string[] }> {
  const db = join(mkdtempSync(join(dir, 'steps-')), 'runs.db');
  const store = await SqliteRunStore.open({ path: db });
  const ids: string[] = [];
  try {
    for (const n of counts) {
      const calls = Array.from({ length: n }, (_, i): SeedCall => ({
        server: 'srv',
        tool: `t${i}`,
        outcome: i % 3 === 2 ? 'failed' : 'ok',
      }));
      ids.push((await seedRun(store, { configuration: 'steps-paged', createdAt: 1_000_000, calls, finish: 'completed' })).id);
    }
  } finally {
    await store.close();
  }
  return { db, ids };
}

/** One `runs show --json` page, its timeline entries as JSON text. */
async function stepsPage(db: string, id: string, args: readonly string[]): Promise<{ entries: string[]; nextCursor: string | null }> {
  const result = await cli(['runs', 'show', id, '--db', db, '--json', ...args], dir);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  const page = runsShow.jsonOutput.parse(JSON.parse(result.stdout));
  return { entries: page.timeline.map((entry) => JSON.stringify(entry)), nextCursor: page.nextCursor };
}

describe('runs show --cursor', () => {
  it("pages through a run's timeline once, in the order of one page, whatever --limit (a long run is read a page at a time)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 25 }), fc.integer({ min: 1, max: 9 }), async (steps, limit) => {
        const { db, ids } = await storeWithSteps([steps]);
        const whole = await stepsPage(db, ids[0]!, []);
        expect(whole.nextCursor).toBeNull();
        // the steps and the run's lifecycle (started, completed), each once
        expect(whole.entries).toHaveLength(steps + 2);
        const pages: string[][] = [];
        let cursor: string | null = null;
        do {
          const page = await stepsPage(db, ids[0]!, ['--limit', String(limit), ...(cursor === null ? [] : ['--cursor', cursor])]);
          pages.push(page.entries);
          cursor = page.nextCursor;
        } while (cursor !== null && pages.length <= 100);
        expect(pages.flat()).toEqual(whole.entries);
        expect(pages).toHaveLength(Math.max(1, Math.ceil(steps / limit)));
      }),
      { numRuns: 10 },
    );
  });

  it('says where the next page starts under the table, and refuses a cursor of another run, one no page printed and a --limit out of 1 to 1000', async () => {
    const { db, ids } = await storeWithSteps([5, 5]);
    const first = await stepsPage(db, ids[0]!, ['--limit', '2']);
    const table = await cli(['runs', 'show', ids[0]!, '--db', db, '--limit', '2'], dir);
    expect(table.stdout.trimEnd().split('\n').at(-1)).toBe(`(steps 1–2 of 5: the next page is --cursor ${first.nextCursor})`);
    for (const cursor of [first.nextCursor!, 'nope']) {
      const bad = await cli(['runs', 'show', ids[1]!, '--db', db, '--cursor', cursor], dir);
      expect(bad.code).toBe(2);
      expect(bad.stderr.split('\n')[0]).toBe(
        `runledger runs show: --cursor must be the nextCursor of an earlier runs show (its --json, or the line under its table), got ${JSON.stringify(cursor)}`,
      );
    }
    const big = await cli(['runs', 'show', ids[0]!, '--db', db, '--limit', '1001'], dir);
    expect(big.code).toBe(2);
    expect(big.stderr.split('\n')[0]).toBe('runledger runs show: --limit must be an integer from 1 to 1000, got "1001"');
  });
});

describe('spool list --cursor', () => {
  it('pages through the spool files by path, each once', async () => {
    const spool = join(dir, 'spool');
    mkdirSync(spool);
    const names = Array.from({ length: 7 }, (_, i) => `spool-999999991-${i}-000000a${i}.jsonl`);
    for (const name of names) writeFileSync(join(spool, name), '');
    const page = async (args: readonly string[]) => {
      const result = await cli(['spool', 'list', '--spool-dir', spool, '--json', ...args], dir);
      expect(result.stderr).toBe('');
      return spoolList.jsonOutput.parse(JSON.parse(result.stdout));
    };
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const out = await page(['--limit', '3', ...(cursor === null ? [] : ['--cursor', cursor])]);
      expect(out.files.length).toBeLessThanOrEqual(3);
      seen.push(...out.files.map((file) => file.path));
      cursor = out.nextCursor;
    } while (cursor !== null);
    expect(seen).toEqual(names.map((name) => join(spool, name)));
    expect((await page([])).nextCursor).toBeNull();
    const bad = await cli(['spool', 'list', '--spool-dir', spool, '--cursor', 'bm9wZQ'], dir);
    expect(bad.code).toBe(2);
    expect(bad.stderr.split('\n')[0]).toBe(
      'runledger spool list: --cursor must be the nextCursor of an earlier spool list (its --json, or the line under its table), got "bm9wZQ"',
    );
  });
});

/** A SQLite store whose servers had these outcomes (ok, failed, cancelled per server): ties of rate, flaky and not. */
async function storeWithServers(outcomes: readonly (readonly [number, number, number])[]): Promise<string> {
  const db = join(mkdtempSync(join(dir, 'servers-')), 'runs.db');
  const store = await SqliteRunStore.open({ path: db });
  try {
    const calls: SeedCall[] = outcomes.flatMap(([ok, failed, cancelled], i) => {
      const server = `srv-${String(i).padStart(2, '0')}`;
      const of = (n: number, outcome: SeedCall['outcome']) =>
        Array.from({ length: n }, (): SeedCall => ({
          server,
          tool: 't',
          outcome,
          ...(outcome === 'failed' ? { cause: 'server_error' } : {}),
        }));
      return [...of(ok, 'ok'), ...of(failed, 'failed'), ...of(cancelled, 'cancelled')];
    });
    await seedRun(store, { configuration: 'servers-paged', createdAt: Date.now() - 60_000, calls });
  } finally {
    await store.close();
  }
  return db;
}

/** One `servers --json` page. */
async function serversPage(db: string, args: readonly string[]): Promise<{ names: string[]; nextCursor: string | null }> {
  const result = await cli(['servers', '--db', db, '--json', ...args], dir);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  const page = servers.jsonOutput.parse(JSON.parse(result.stdout));
  return { names: page.servers.map((row) => row.server), nextCursor: page.nextCursor };
}

describe('servers --cursor', () => {
  it('pages through every server once, worst first as one page lists them, whatever --limit', async () => {
    await fc.assert(
      fc.asyncProperty(
        // 1 to 30 servers; few outcomes, so failure rates, flaky verdicts and failed counts tie
        fc
          .array(fc.tuple(fc.integer({ min: 0, max: 6 }), fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 1 })), {
            minLength: 1,
            maxLength: 30,
          })
          .filter((rows) => rows.every(([ok, failed, cancelled]) => ok + failed + cancelled > 0)),
        fc.integer({ min: 1, max: 8 }),
        async (outcomes, limit) => {
          const db = await storeWithServers(outcomes);
          const whole = await serversPage(db, ['--limit', '1000']);
          expect(whole.nextCursor).toBeNull();
          expect(whole.names).toHaveLength(outcomes.length);
          await expectPagesListItOnce(
            (args) => serversPage(db, args),
            (page) => page.names,
            limit,
            whole.names,
          );
        },
      ),
      { numRuns: 10 },
    );
  });

  it('prints the next page’s cursor under the table, lists 100 by default, and refuses a bad --cursor or --limit naming the flag and the rule', async () => {
    const db = await storeWithServers(
      Array.from({ length: 105 }, (_, i) => [i % 5, i % 3, 0] as const).map(([ok, failed]) => [ok + 1, failed, 0] as const),
    );
    const first = await serversPage(db, []);
    expect(first.names).toHaveLength(100);
    expect(first.nextCursor).not.toBeNull();
    const rest = await serversPage(db, ['--cursor', first.nextCursor!]);
    expect(rest).toEqual({ names: expect.any(Array), nextCursor: null });
    expect(new Set([...first.names, ...rest.names]).size).toBe(105);
    const table = await cli(['servers', '--db', db, '--limit', '3'], dir);
    expect(table.code).toBe(0);
    const third = await serversPage(db, ['--limit', '3']);
    expect(table.stdout.trimEnd().split('\n').at(-1)).toBe(`(more servers: the next page is --cursor ${third.nextCursor})`);
    for (const cursor of ['nope', Buffer.from('{"server":1}').toString('base64url'), first.nextCursor!.slice(0, -1) + '!']) {
      const bad = await cli(['servers', '--db', db, '--cursor', cursor], dir);
      expect(bad.code).toBe(2);
      expect(bad.stderr.split('\n')[0]).toBe(
        `runledger servers: --cursor must be the nextCursor of an earlier servers (its --json, or the line under its table), got ${JSON.stringify(cursor)}`,
      );
    }
    for (const limit of ['0', '1001']) {
      const big = await cli(['servers', '--db', db, '--limit', limit], dir);
      expect(big.code).toBe(2);
      expect(big.stderr.split('\n')[0]).toBe(`runledger servers: --limit must be an integer from 1 to 1000, got "${limit}"`);
    }
  });
});
