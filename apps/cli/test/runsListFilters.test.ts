// Issue 32 item 3 on the command line: `runledger runs list` filters as the app's list does
// (--configuration, --server, --tool, --title, --since, --until), prints what every page adds up
// to under its table and in --json, and a bad value is a usage error naming the flag.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteRunStore } from '@runledger/store-sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runsList } from '../src/commands/runsList.js';
import { cli, parsedLine } from './cliHelpers.js';
import { seedRun } from './seedRun.js';

const HOUR = 3_600_000;
/** Two hours ago, on the minute: the older run; the newer one is an hour later. */
const T0 = Math.floor((Date.now() - 2 * HOUR) / 60_000) * 60_000;

let dir: string;
let db: string;
let older: string;
let newer: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'runledger-runs-list-'));
  db = join(dir, 'runs.db');
  const store = await SqliteRunStore.open({ path: db });
  try {
    const first = await store.createRun({ configuration: 'support-agent', title: 'Triage the Inbox', actor: null, createdAt: T0 });
    await store.appendStep(first.id, {
      kind: 'llm',
      round: 1,
      durationMs: 5,
      createdAt: T0 + 1,
      payload: { kind: 'llm', model: 'm', round: 1, durationMs: 5, promptTokens: 1200, completionTokens: 34 },
      toolServer: null,
      toolOutcome: null,
    });
    await store.finishRun(first.id, { status: 'completed', finishedAt: T0 + 10 });
    older = first.id;
    newer = (
      await seedRun(store, {
        configuration: 'ops-agent',
        createdAt: T0 + HOUR,
        calls: [
          { server: 'slow', tool: 'export', outcome: 'cancelled' },
          { server: 'docs', tool: 'search', outcome: 'ok' },
        ],
      })
    ).id;
  } finally {
    await store.close();
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function ids(args: readonly string[]): Promise<string[]> {
  const result = await cli(['runs', 'list', '--db', db, '--json', ...args], dir);
  expect(result.stderr, args.join(' ')).toBe('');
  expect(result.code, args.join(' ')).toBe(0);
  return runsList.jsonOutput.parse(JSON.parse(result.stdout)).runs.map((run) => run.id);
}

describe('runs list: the filters of the app', () => {
  it('--configuration, --server, --tool, --title, --since, --until and --has (ok too), alone and together', async () => {
    expect(await ids([])).toEqual([newer, older]);
    expect(await ids(['--configuration', 'ops-agent'])).toEqual([newer]);
    expect(await ids(['--server', 'slow'])).toEqual([newer]);
    expect(await ids(['--server', 'nobody'])).toEqual([]);
    expect(await ids(['--tool', 'mcp_docs_search'])).toEqual([newer]);
    expect(await ids(['--server', 'slow', '--tool', 'mcp_docs_search'])).toEqual([]);
    expect(await ids(['--title', 'inbox'])).toEqual([older]);
    expect(await ids(['--since', new Date(T0 + 1).toISOString()])).toEqual([newer]);
    expect(await ids(['--until', new Date(T0 + HOUR).toISOString()])).toEqual([older]);
    expect(await ids(['--since', '90m'])).toEqual([newer]);
    expect(await ids(['--since', '3h', '--until', '90m'])).toEqual([older]);
    // --has: a run with an ended call of that outcome (the older run has no tool call at all)
    expect(await ids(['--has', 'ok'])).toEqual([newer]);
    expect(await ids(['--has', 'cancelled'])).toEqual([newer]);
    expect(await ids(['--has', 'failed'])).toEqual([]);
    expect(await ids(['--has', 'ok', '--configuration', 'support-agent'])).toEqual([]);
  });

  it('prints the tokens of each run and what every page adds up to under the table; --json has them as totals', async () => {
    const table = await cli(['runs', 'list', '--db', db, '--limit', '1'], dir);
    expect(table.code).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+STATUS\s+CONFIGURATION\s+STARTED\s+DURATION\s+TOKENS\s+OK\s+FAILED\s+CANCELLED\s+TITLE$/);
    expect(lines.at(-2)).toBe('total: 2 runs · 1,234 tokens');
    expect(lines.at(-1)).toMatch(/^\(more runs: the next page is --cursor [A-Za-z0-9_-]+\)$/);
    const first = await cli(['runs', 'list', '--db', db, '--title', 'INBOX'], dir);
    expect(first.stdout).toMatch(/support-agent .* 1234 +0 +0 +0 +Triage the Inbox\n/);
    expect(first.stdout.trimEnd().split('\n').at(-1)).toBe('total: 1 run · 1,234 tokens');
    const json = await cli(['runs', 'list', '--db', db, '--json', '--server', 'slow'], dir);
    const out = runsList.jsonOutput.parse(JSON.parse(json.stdout));
    expect(out.totals).toEqual({ runs: 1, tokens: 0 });
    expect(out.runs[0]!.tokens).toBe(0);
    const all = runsList.jsonOutput.parse(JSON.parse((await cli(['runs', 'list', '--db', db, '--json'], dir)).stdout));
    expect(all.totals).toEqual({ runs: 2, tokens: 1234 });
    expect(all.runs.map((run) => run.tokens)).toEqual([0, 1234]);
  });
});

describe('runs list: bad values are usage errors naming the flag', () => {
  const env = { cwd: '/work/here' };
  it.each([
    [
      ['--since', 'yesterday'],
      'runledger runs list: --since must be a date or time such as 2026-11-30 or 2026-11-30T08:00:00Z, or a span back from now such as 90m, 24h or 7d, got "yesterday"',
    ],
    [['--until', '1969-12-31'], 'runledger runs list: --until must not reach back before 1970-01-01, got "1969-12-31"'],
    [['--since', '1h', '--until', '2h'], 'runledger runs list: --until must be later than --since, got "2h" and "1h"'],
    [['--server', ' '], 'runledger runs list: --server must not be empty'],
    [['--title', ''], 'runledger runs list: --title must not be empty'],
  ])('%j', async (args, message) => {
    expect(() => parsedLine(['runs', 'list', ...args], env)).toThrow(message);
    const result = await cli(['runs', 'list', '--db', db, ...args], dir);
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe(message);
    expect(result.stderr).toContain('Usage: runledger runs list ');
    expect(result.stdout).toBe('');
  });

  it('parses every filter into the command', () => {
    const now = Date.now();
    const command = parsedLine(
      [
        'runs',
        'list',
        '--configuration',
        'ops',
        '--server',
        'docs',
        '--tool',
        'mcp_docs_search',
        '--title',
        'Q3',
        '--since',
        '2026-11-30',
        '--until',
        '1m',
      ],
      env,
    );
    expect(command).toMatchObject({
      name: 'runs list',
      configuration: 'ops',
      server: 'docs',
      tool: 'mcp_docs_search',
      title: 'Q3',
      since: Date.parse('2026-11-30'),
    });
    expect(command.until).toBeGreaterThanOrEqual(now - 60_000);
    expect(command.until).toBeLessThanOrEqual(Date.now() - 60_000);
    expect(parsedLine(['runs', 'list'], env)).toMatchObject({
      configuration: null,
      server: null,
      tool: null,
      title: null,
      since: null,
      until: null,
    });
  });
});

describe('runs list --help', () => {
  it('names every filter, what <time> is, and the 1970 rule of the time flags', async () => {
    const help = await cli(['runs', 'list', '--help'], dir);
    expect(help.code).toBe(0);
    for (const flag of ['--configuration <name>', '--server <id>', '--tool <name>', '--title <text>', '--since <time>', '--until <time>']) {
      expect(help.stdout).toContain(flag);
    }
    expect(help.stdout).toContain('<time>: a date or time (2026-11-30T08:00:00Z) or a span back from now (90m, 24h, 7d)');
    expect(help.stdout).toContain(
      'Times: --since, --until, --stale-after and --older-than must not reach back before 1970-01-01 (exit 2).',
    );
    expect(help.stdout).toContain('what all pages add up to (runs, tokens)');
  });
});
