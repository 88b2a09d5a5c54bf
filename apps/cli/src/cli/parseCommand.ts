import type { CliCommand } from '../commandKit/CliCommand.js';
import { type CommandEnv, suggestion } from '../commandKit/commandArgs.js';
import { UsageError } from '../commandKit/UsageError.js';
import { CLI_COMMANDS, cliCommand } from './cliCommands.js';
import { firstWords, subcommandsOf } from './usage.js';

/** A command line, read: the command it names and its options, as that command's module parsed them. @internal */
export interface ParsedCommand {
  readonly command: CliCommand;
  readonly options: unknown;
}

/** `a, b or c` */
function listed(names: readonly string[]): string {
  return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
}

/** The usage of a command or group, as `help <topic>`. */
function helpAbout(topic: string): ParsedCommand {
  return { command: cliCommand('help'), options: { topic } };
}

/** A command's words after its name, as the command reads them (its usage, for `--help`). */
function parsedBy(command: CliCommand, args: readonly string[], env: CommandEnv): ParsedCommand {
  const options = command.parse(args, env);
  return options === null ? helpAbout(command.name) : { command, options };
}

/**
 * Reads the CLI's arguments (after the program name): finds the command they name (a command's
 * first word, then a group's subcommand), and has that command's module read the rest.
 *
 * @throws UsageError from `parseCommand` for an unknown command or option, a missing or extra
 * argument, or a bad value, naming the command whose usage to print.
 * @throws CliSetupError from `parseCommand` for a store named wrongly (a URL as `--db`, a URL of
 * another database as `--pg`).
 * @internal
 */
export function parseCommand(argv: readonly string[], env: CommandEnv): ParsedCommand {
  const [first, ...rest] = argv;
  if (first === undefined) throw new UsageError('runledger: missing command');
  const word = CLI_COMMANDS.find((command) => command.aliases?.includes(first))?.name ?? first;
  // a command of one word (a group's subcommand is named by two words, never by one argument)
  const named = word.includes(' ') ? undefined : CLI_COMMANDS.find((command) => command.name === word);
  if (named !== undefined) return parsedBy(named, rest, env);
  const words = firstWords(CLI_COMMANDS);
  if (!words.includes(word)) {
    throw new UsageError(`runledger: unknown command ${JSON.stringify(first)}${suggestion(first, words)}`);
  }
  const subcommands = subcommandsOf(CLI_COMMANDS, word);
  const [sub, ...subRest] = rest;
  if (sub === '--help' || sub === '-h') return helpAbout(word);
  if (sub === undefined || !subcommands.includes(sub)) {
    throw new UsageError(
      sub === undefined
        ? `runledger ${word}: missing subcommand (${listed(subcommands)})`
        : `runledger ${word}: unknown subcommand ${JSON.stringify(sub)} (${listed(subcommands)})${suggestion(sub, subcommands)}`,
      word,
    );
  }
  return parsedBy(cliCommand(`${word} ${sub}`), subRest, env);
}
