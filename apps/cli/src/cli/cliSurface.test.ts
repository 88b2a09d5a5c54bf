import { encodeRunCursor } from '@runledger/trace';
import { describe, expect, it } from 'vitest';
import { CLI_EXIT_CODE_MEANINGS, CliExitCode, type CliFlag } from '../commandKit/cliSurface.js';
import { CLI_COMMANDS } from './cliCommands.js';
import { cliSurfaceDocument } from './cliSurfaceDocument.js';
import { parseCommand } from './parseCommand.js';
import { programUsage } from './usage.js';

const env = { cwd: '/work/here' };

/** A command line naming the command and every required argument and flag, plus `extra`. */
function line(name: string, extra: readonly string[] = []): string[] {
  const command = CLI_COMMANDS.find((c) => c.name === name)!;
  return [
    ...name.split(' '),
    ...command.arguments.filter((a) => a.required).map(() => 'abcdef12'),
    ...command.flags.filter((f) => f.required).flatMap((f) => [`--${f.name}`, VALUES[f.name] ?? 'x.db']),
    ...(name === 'copy' ? ['--pg', 'postgres://h/db'] : []),
    ...extra,
  ];
}

/** A value the parser accepts for a flag (`<command> --<flag>` first, for a flag that reads differently in two commands). */
const VALUES: Record<string, string> = {
  'runs list --cursor': encodeRunCursor({ createdAt: 1_000, id: '00000000-0000-4000-8000-000000000001' }),
  'spool list --cursor': Buffer.from(JSON.stringify({ after: '/tmp/spool-1-1-1.jsonl' })).toString('base64url'),
  'runs show --cursor': Buffer.from(JSON.stringify({ run: '00000000-0000-4000-8000-000000000001', from: 1000 })).toString('base64url'),
  'servers --cursor': Buffer.from(JSON.stringify({ flaky: true, failureRate: 0.4, failed: 4, server: 'docs' })).toString('base64url'),
  port: '0',
  limit: '5',
  status: 'failed',
  has: 'failed',
  window: '7d',
  'stale-after': '10m',
  'older-than': '30d',
  'pg-schema': 'team_a',
  host: '127.0.0.1',
  token: 'abcdefgh1',
  since: '24h',
  until: '1h',
  headers: 'x-tenant=acme',
  privacy: 'full',
  otlp: 'http://127.0.0.1:4318',
  timeout: '500',
  every: '5m',
  'point-every': '0',
  'alerts-every': '5m',
};

/** The flags that are read only beside another one: that one too. */
const COMPANIONS: Readonly<Record<string, readonly string[]>> = {
  'serve --alerts-state': ['--alerts', 'rules.json'],
  'servers --check': ['--rules', 'rules.json'],
  'servers --rules': ['--check'],
  'export otlp --point-every': ['--metrics'],
};

describe('the CLI surface is what the parser and the usage do', () => {
  it('the parser takes every declared flag of every command, and nothing else', () => {
    for (const command of CLI_COMMANDS.filter((c) => c.name !== 'help' && c.name !== 'version')) {
      expect(() => parseCommand(line(command.name), env), command.name).not.toThrow();
      for (const flag of command.flags) {
        if (flag.required || (command.name === 'copy' && flag.name === 'pg')) continue;
        const value = VALUES[`${command.name} --${flag.name}`] ?? VALUES[flag.name] ?? 'x';
        const args = flag.value === null ? [`--${flag.name}`] : [`--${flag.name}`, value];
        const skipConflicts =
          flag.name === 'pg' || flag.name === 'pg-schema'
            ? args.concat(flag.name === 'pg-schema' ? ['--pg', 'postgres://h/db'] : [])
            : args.concat(COMPANIONS[`${command.name} --${flag.name}`] ?? []);
        expect(() => parseCommand(line(command.name, skipConflicts), env), `${command.name} --${flag.name}`).not.toThrow();
      }
      expect(() => parseCommand(line(command.name, ['--undeclared']), env), command.name).toThrow(/unknown option "--undeclared"/);
    }
  });

  it('a required flag or argument missing is a usage error', () => {
    for (const command of CLI_COMMANDS) {
      for (const required of [
        ...command.flags.filter((f) => f.required).map((f) => `--${f.name}`),
        ...command.arguments.filter((a) => a.required).map((a) => a.name),
      ]) {
        const args = line(command.name).filter((a, i, all) => a !== required && all[i - 1] !== required && a !== 'abcdef12');
        expect(() => parseCommand(args, env), `${command.name} without ${required}`).toThrow(/required|missing/);
      }
    }
  });

  it('the usage shows every command with its flags (store flags in its Store paragraph, --help in its first lines)', () => {
    const usage = programUsage(CLI_COMMANDS);
    const lines = usage.split('\n');
    const store = usage.slice(usage.indexOf('Store:')) + lines.slice(0, 2).join('\n');
    for (const command of CLI_COMMANDS) {
      const synopsis = lines.find((l) => l.startsWith(`  ${command.name} `) || l === `  ${command.name}`);
      expect(synopsis, command.name).toBeDefined();
      for (const flag of command.flags) {
        expect(synopsis!.includes(`--${flag.name}`) || store.includes(`--${flag.name}`), `${command.name} --${flag.name}`).toBe(true);
      }
    }
  });

  it('every flag accepts exactly its declared choices and integer range, naming the flag and what it accepts', () => {
    const valued = CLI_COMMANDS.flatMap((command) =>
      command.flags.filter((f) => f.choices !== undefined || f.min !== undefined).map((f) => [command, f] as const),
    );
    expect(valued.map(([c, f]) => `${c.name} --${f.name}`)).toEqual([
      'serve --port',
      'demo --port',
      'runs list --status',
      'runs list --has',
      'runs list --limit',
      'runs show --limit',
      'servers --window',
      'servers --limit',
      'spool list --limit',
      'export otlp --privacy',
      'export otlp --timeout',
      'export otlp --point-every',
    ]);
    for (const [command, f] of valued) {
      const companions = COMPANIONS[`${command.name} --${f.name}`] ?? [];
      const parse = (value: string) => parseCommand(line(command.name, [`--${f.name}=${value}`, ...companions]), env);
      for (const ok of f.choices ?? [String(f.min), String(f.max)])
        expect(() => parse(ok), `${command.name} --${f.name} ${ok}`).not.toThrow();
      const bad = f.choices === undefined ? [String(f.min! - 1), String(f.max! + 1)] : [`${f.choices[0]}x`];
      const rule = f.choices === undefined ? `an integer from ${f.min} to ${f.max}` : `one of ${f.choices.join(', ')}`;
      for (const value of bad)
        expect(() => parse(value), `${command.name} --${f.name} ${value}`).toThrow(`--${f.name} must be ${rule}, got "${value}"`);
    }
  });

  it('a placeholder that lists values (failed|cancelled) lists exactly the declared choices', () => {
    const listing = CLI_COMMANDS.flatMap((c) => c.flags.filter((f) => f.value?.includes('|')).map((f) => [c.name, f] as const));
    expect(listing.length).toBe(2);
    for (const [name, f] of listing) expect(f.value!.split('|'), `${name} --${f.name}`).toEqual(f.choices);
  });

  it('a flag not given takes its declared default: the same command as giving the default', () => {
    const defaulted = CLI_COMMANDS.flatMap((command) =>
      command.flags.filter((f): f is CliFlag & { default: string } => f.default !== undefined).map((f) => [command, f] as const),
    );
    expect(defaulted.length).toBeGreaterThanOrEqual(9);
    for (const [command, f] of defaulted) {
      const companions = COMPANIONS[`${command.name} --${f.name}`] ?? [];
      expect(parseCommand(line(command.name, companions), env), `${command.name} --${f.name}`).toEqual(
        parseCommand(line(command.name, [...companions, `--${f.name}`, f.default]), env),
      );
    }
    const given = (command: string, name: string) =>
      CLI_COMMANDS.find((c) => c.name === command)!.flags.find((f) => f.name === name)!.default;
    expect([
      given('runs list', 'limit'),
      given('servers', 'window'),
      given('serve', 'port'),
      given('serve', 'host'),
      given('serve', 'db'),
      given('runs recover', 'stale-after'),
    ]).toEqual(['20', 'all', '4310', '127.0.0.1', 'runledger.db', '10m']);
  });

  it('the surface document carries the choices (sorted), ranges, defaults and the exit code ids', () => {
    const doc = cliSurfaceDocument() as { exitCodes: unknown[]; commands: { name: string; flags: CliFlag[] }[] };
    expect(doc.exitCodes).toEqual([
      { code: 0, id: 'OK', meaning: CLI_EXIT_CODE_MEANINGS[0] },
      { code: 1, id: 'FAILED', meaning: CLI_EXIT_CODE_MEANINGS[1] },
      { code: 2, id: 'USAGE', meaning: CLI_EXIT_CODE_MEANINGS[2] },
    ]);
    const flags = doc.commands.find((c) => c.name === 'runs list')!.flags;
    expect(flags.find((f) => f.name === 'has')).toMatchObject({ choices: ['cancelled', 'failed', 'ok'] });
    expect(flags.find((f) => f.name === 'status')).toMatchObject({
      choices: ['cancelled', 'completed', 'failed', 'interrupted', 'running'],
    });
    expect(flags.find((f) => f.name === 'limit')).toMatchObject({ min: 1, max: 1000, default: '20' });
  });

  it('every exit code has its meaning', () => {
    expect(Object.keys(CLI_EXIT_CODE_MEANINGS).map(Number).sort()).toEqual(Object.values(CliExitCode).sort());
  });
});
