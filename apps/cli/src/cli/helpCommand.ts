// `runledger help [<command>]`, `runledger --help`, `runledger <command> --help`: the usage of every command, or of one.
import { parseArgs } from 'node:util';
import type { CliCommand } from '../commandKit/CliCommand.js';
import type { CliIo } from '../commandKit/CliIo.js';
import { suggestion } from '../commandKit/commandArgs.js';
import { CliExitCode } from '../commandKit/cliSurface.js';
import { UsageError } from '../commandKit/UsageError.js';
import { commandUsage, firstWords, programUsage, subcommandsOf } from './usage.js';

/** What `help` prints: the usage of every command (null), or of one command or group (`runs list`, `runs`). @internal */
export interface HelpOptions {
  readonly topic: string | null;
}

/** The command (`runs list`) or group (`runs`) that `help` is asked about, checked. */
function helpTopic(commands: readonly CliCommand[], words: readonly string[]): string | null {
  if (words.length === 0) return null;
  const topic = words.join(' ');
  if (commands.some((command) => command.name === topic) || subcommandsOf(commands, topic).length > 0) return topic;
  const known = [...firstWords(commands), ...commands.map((command) => command.name)];
  throw new UsageError(`runledger help: there is no command ${JSON.stringify(topic)}${suggestion(topic, known)}`);
}

/**
 * The `help` command of a list of commands (help among them): the router's own command, since
 * what it prints is the usage of them all.
 *
 * @internal
 */
export function helpCommand(commands: () => readonly CliCommand[]): CliCommand<HelpOptions> {
  return {
    name: 'help',
    aliases: ['--help', '-h'],
    arguments: [{ name: 'command', required: false }],
    flags: [],
    usage: { synopsis: 'help    [<command>]', about: 'Print this text, or the usage of one command (as <command> --help does).' },
    jsonOutput: null,
    parse(args) {
      const { values, positionals } = parseArgs({ args: [...args], strict: false, allowPositionals: true });
      if (Object.keys(values).length > 0) throw new UsageError(`runledger help: takes a command name, not options`, 'help');
      return { topic: helpTopic(commands(), positionals) };
    },
    run(options: HelpOptions, io: CliIo): CliExitCode {
      io.stdout.write(options.topic === null ? programUsage(commands()) : commandUsage(commands(), options.topic));
      return CliExitCode.OK;
    },
  };
}
