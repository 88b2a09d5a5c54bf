import { describe, expect, it } from 'vitest';
import { parsedLine } from '../../test/cliHelpers.js';
import { UsageError } from '../commandKit/UsageError.js';

const env = { cwd: '/work/here' };

describe('parseCommand', () => {
  it('parses serve with its defaults: 127.0.0.1, port 4310, ./runledger.db, no token', () => {
    expect(parsedLine(['serve'], env)).toEqual({
      name: 'serve',
      store: { kind: 'sqlite', path: '/work/here/runledger.db' },
      port: 4310,
      host: '127.0.0.1',
      token: null,
      alerts: null,
      alertsEveryMs: 60_000,
      tokenName: null,
      trustUserHeader: null,
    });
  });

  it('parses serve with every option, and takes the token from RUNLEDGER_TOKEN', () => {
    expect(
      parsedLine(
        ['serve', '--pg', 'postgres://u@h/db', '--pg-schema', 'team_a', '--port', '0', '--host', '0.0.0.0', '--token', 'abcdefgh1'],
        env,
      ),
    ).toEqual({
      name: 'serve',
      store: { kind: 'postgres', url: 'postgres://u@h/db', schema: 'team_a' },
      port: 0,
      host: '0.0.0.0',
      token: 'abcdefgh1',
      alerts: null,
      alertsEveryMs: 60_000,
      tokenName: null,
      trustUserHeader: null,
    });
    expect(parsedLine(['serve', '--alerts', 'rules.json', '--alerts-state', 's/a.json', '--alerts-every', '30s'], env)).toMatchObject({
      alerts: { rules: '/work/here/rules.json', state: '/work/here/s/a.json' },
      alertsEveryMs: 30_000,
    });
    expect(() => parsedLine(['serve', '--alerts-state', 'a.json'], env)).toThrow('runledger serve: --alerts-state needs --alerts <file>');
    expect(() => parsedLine(['serve', '--alerts', 'r.json', '--alerts-every', 'often'], env)).toThrow(
      'runledger serve: --alerts-every must be a duration like 30s, 5m or 1h (at least 1s), got "often"',
    );
    expect(parsedLine(['serve', '--db', 'x.db'], { ...env, token: 'from-env-123' })).toMatchObject({
      token: 'from-env-123',
      store: { path: '/work/here/x.db' },
    });
    expect(parsedLine(['serve'], { ...env, pgUrl: 'postgres://x/y' })).toMatchObject({
      store: { kind: 'postgres', url: 'postgres://x/y' },
    });
  });

  it('applies the declared defaults: runs list --limit 20, servers --window all, runs recover --stale-after 10m', () => {
    expect(parsedLine(['runs', 'list'], env)).toMatchObject({
      limit: 20,
      status: null,
      has: null,
      store: { path: '/work/here/runledger.db' },
    });
    expect(parsedLine(['servers'], env)).toMatchObject({ window: 'all' });
    expect(parsedLine(['runs', 'recover'], env)).toMatchObject({ staleAfterMs: 600_000 });
  });

  it('parses demo, runs list|show, servers, migrate and copy', () => {
    expect(parsedLine(['demo', '--no-serve', '--db', 'd.db'], env)).toMatchObject({
      name: 'demo',
      serve: false,
      dbPath: '/work/here/d.db',
    });
    expect(parsedLine(['demo'], env)).toMatchObject({ name: 'demo', serve: true, port: 4310 });
    expect(parsedLine(['runs', 'list', '--status', 'cancelled', '--has', 'failed', '--limit', '5', '--json'], env)).toMatchObject({
      name: 'runs list',
      status: 'cancelled',
      has: 'failed',
      limit: 5,
      json: true,
    });
    expect(parsedLine(['runs', 'show', 'abc'], env)).toMatchObject({ name: 'runs show', id: 'abc', json: false });
    expect(parsedLine(['servers', '--window', '7d'], env)).toMatchObject({ name: 'servers', window: '7d' });
    expect(parsedLine(['migrate', '--pg', 'postgres://a/b'], env)).toMatchObject({ name: 'migrate', store: { kind: 'postgres' } });
    expect(parsedLine(['copy', '--db', 'a.db', '--pg', 'postgres://a/b'], env)).toEqual({
      name: 'copy',
      dbPath: '/work/here/a.db',
      target: { kind: 'postgres', url: 'postgres://a/b' },
    });
    expect(parsedLine(['--help'], env)).toEqual({ name: 'help', topic: null });
  });

  it.each([
    [[], /missing command/],
    [['frobnicate'], /unknown command "frobnicate"/],
    [['serve', '--port', 'eighty'], /--port must be an integer from 0 to 65535, got "eighty"/],
    [['serve', '--port', '70000'], /--port must be an integer/],
    [['serve', '--port'], /--port/],
    [['serve', '--bogus'], /unknown option "--bogus"/],
    [['serve', 'extra'], /unexpected argument "extra"/],
    [['serve', '--db', 'a.db', '--pg', 'postgres://x/y'], /either --db or --pg, not both/],
    [['serve', '--db', ''], /--db must not be empty/],
    [['serve', '--pg-schema', 'x'], /--pg-schema needs --pg/],
    [['serve', '--pg', 'postgres://x', '--pg-schema', 'Bad-Name'], /--pg-schema must match/],
    [['runs'], /missing subcommand \(list, show, recover or cancel\)/],
    [['runs', 'delete'], /unknown subcommand "delete"/],
    [['runs', 'show'], /missing run id/],
    [['runs', 'show', 'a', 'b'], /exactly one run id/],
    [['runs', 'list', '--status', 'done'], /--status must be one of running, completed, failed, cancelled, interrupted, got "done"/],
    [['runs', 'list', '--has', 'timeout'], /--has must be one of ok, failed, cancelled, got "timeout"/],
    [['runs', 'list', '--limit', '1001'], /--limit must be an integer from 1 to 1000, got "1001"/],
    [['runs', 'list', '--limit', '0'], /--limit must be an integer from 1 to 1000/],
    [['servers', '--window', '1y'], /--window must be one of 24h, 7d, all, got "1y"/],
    [['copy', '--pg', 'postgres://x/y'], /--db <file> \(the SQLite source\) is required/],
    [['copy', '--db', 'a.db'], /--pg <url> \(the PostgreSQL target\) is required/],
    [['demo', '--no-serve=yes'], /no-serve/],
  ] as const)('refuses %j', (argv, message) => {
    expect(() => parsedLine(argv, env)).toThrow(UsageError);
    expect(() => parsedLine(argv, env)).toThrow(message);
  });
});

describe('parseCommand prune', () => {
  it('parses prune with its store, cutoff span, --dry-run and --json', () => {
    expect(parsedLine(['prune', '--older-than', '30d'], env)).toEqual({
      name: 'prune',
      store: { kind: 'sqlite', path: '/work/here/runledger.db' },
      olderThanMs: 30 * 86_400_000,
      dryRun: false,
      json: false,
    });
    expect(parsedLine(['prune', '--older-than', '90m', '--dry-run', '--json', '--pg', 'postgres://u@h/db'], env)).toEqual({
      name: 'prune',
      store: { kind: 'postgres', url: 'postgres://u@h/db' },
      olderThanMs: 90 * 60_000,
      dryRun: true,
      json: true,
    });
  });

  it('requires --older-than, a duration like 30d, and takes no argument', () => {
    expect(() => parsedLine(['prune'], env)).toThrow(/runledger prune: --older-than <duration> is required/);
    expect(() => parsedLine(['prune', '--older-than', '30'], env)).toThrow(/--older-than must be a duration like 30d/);
    expect(() => parsedLine(['prune', '--older-than', 'month'], env)).toThrow(UsageError);
    expect(() => parsedLine(['prune', '--older-than', '30d', 'extra'], env)).toThrow(/unexpected argument "extra"/);
    expect(() => parsedLine(['prune', '--older-than', '30d', '--force'], env)).toThrow(/runledger prune: /);
  });
});
