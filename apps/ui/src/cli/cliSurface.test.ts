import { describe, expect, it } from 'vitest';
import { CLI_COMMANDS, CLI_EXIT_CODE_MEANINGS, CliExitCode } from './cliSurface.js';
import { parseCommand } from './parseCommand.js';
import { USAGE } from './usage.js';

const env = { cwd: '/work/here' };

/** A command line naming the command and every required argument and flag, plus `extra`. */
function line(name: string, extra: readonly string[] = []): string[] {
  const command = CLI_COMMANDS.find((c) => c.name === name)!;
  return [
    ...name.split(' '),
    ...command.arguments.filter((a) => a.required).map(() => 'abcdef12'),
    ...command.flags.filter((f) => f.required).flatMap((f) => [`--${f.name}`, 'x.db']),
    ...(name === 'copy' ? ['--pg', 'postgres://h/db'] : []),
    ...extra,
  ];
}

/** A value the parser accepts for a flag. */
const VALUES: Record<string, string> = { port: '0', limit: '5', status: 'failed', has: 'failed', window: '7d', 'stale-after': '10m', 'pg-schema': 'team_a', host: '127.0.0.1', token: 'abcdefgh1' };

describe('the CLI surface is what the parser and the usage do', () => {
  it('the parser takes every declared flag of every command, and nothing else', () => {
    for (const command of CLI_COMMANDS.filter((c) => c.name !== 'help')) {
      expect(() => parseCommand(line(command.name), env), command.name).not.toThrow();
      for (const flag of command.flags) {
        if (flag.required || (command.name === 'copy' && flag.name === 'pg')) continue;
        const args = flag.value === null ? [`--${flag.name}`] : [`--${flag.name}`, VALUES[flag.name] ?? 'x'];
        const skipConflicts = flag.name === 'pg' || flag.name === 'pg-schema' ? args.concat(flag.name === 'pg-schema' ? ['--pg', 'postgres://h/db'] : []) : args;
        expect(() => parseCommand(line(command.name, skipConflicts), env), `${command.name} --${flag.name}`).not.toThrow();
      }
      expect(() => parseCommand(line(command.name, ['--undeclared']), env), command.name).toThrow(/Unknown option '--undeclared'/);
    }
  });

  it('a required flag or argument missing is a usage error', () => {
    for (const command of CLI_COMMANDS) {
      for (const required of [...command.flags.filter((f) => f.required).map((f) => `--${f.name}`), ...command.arguments.filter((a) => a.required).map((a) => a.name)]) {
        const args = line(command.name).filter((a, i, all) => a !== required && all[i - 1] !== required && a !== 'abcdef12');
        expect(() => parseCommand(args, env), `${command.name} without ${required}`).toThrow(/required|missing/);
      }
    }
  });

  it('the usage shows every command with its flags (store flags in its Store paragraph)', () => {
    const lines = USAGE.split('\n');
    const store = USAGE.slice(USAGE.indexOf('Store:'));
    for (const command of CLI_COMMANDS) {
      const synopsis = lines.find((l) => l.startsWith(`  ${command.name} `) || l === `  ${command.name}`);
      expect(synopsis, command.name).toBeDefined();
      for (const flag of command.flags) {
        expect(synopsis!.includes(`--${flag.name}`) || store.includes(`--${flag.name}`), `${command.name} --${flag.name}`).toBe(true);
      }
    }
  });

  it('every exit code has its meaning', () => {
    expect(Object.keys(CLI_EXIT_CODE_MEANINGS).map(Number).sort()).toEqual(Object.values(CliExitCode).sort());
  });
});
