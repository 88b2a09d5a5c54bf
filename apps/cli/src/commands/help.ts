// `runledger help [<command>]`, `runledger --help`, `runledger <command> --help`: the usage of every command, or of one.
import type { CliIo } from '../commandKit/CliIo.js';
import { CliExitCode } from '../commandKit/cliSurface.js';
import type { Command } from '../cli/parseCommand.js';
import { commandUsage, USAGE } from '../cli/usage.js';

/** Prints the usage asked for on stdout. @internal */
export function help(command: Extract<Command, { name: 'help' }>, io: CliIo): CliExitCode {
  io.stdout.write(command.topic === null ? USAGE : commandUsage(command.topic));
  return CliExitCode.OK;
}
