import { ServeConfigError } from '../app/startRunsServer.js';
import type { CliIo } from '../commandKit/CliIo.js';
import { CliSetupError } from '../commandKit/CliSetupError.js';
import { CliExitCode } from '../commandKit/cliSurface.js';
import { CLI_COMMANDS } from './cliCommands.js';
import { type ParsedCommand, parseCommand } from './parseCommand.js';
import { terminalLine, terminalText } from '../commandKit/terminalText.js';
import { commandUsage } from './usage.js';
import { UsageError } from '../commandKit/UsageError.js';

/** What a usage error prints: the message and the usage of its command, or where the list of commands is. */
function usageErrorText(error: UsageError): string {
  const usage = error.command === null ? 'Run runledger --help for the list of commands.\n' : commandUsage(CLI_COMMANDS, error.command);
  return `${terminalText(error.message)}\n\n${usage}`;
}

/**
 * Runs the `runledger` command line in-process and returns the exit code ({@link CliExitCode}):
 * 0 on success, 1 when the command failed, 2 for a command line it does not understand (with the
 * usage of the command printed) or a setup to fix first.
 *
 * @public
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<CliExitCode> {
  let parsed: ParsedCommand;
  try {
    parsed = parseCommand(argv, {
      cwd: io.cwd,
      token: io.env['RUNLEDGER_TOKEN'],
      tokenName: io.env['RUNLEDGER_TOKEN_NAME'],
      pgUrl: io.env['RUNLEDGER_PG_URL'],
      spoolDir: io.env['RUNLEDGER_SPOOL_DIR'] || undefined,
    });
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(usageErrorText(error));
      return CliExitCode.USAGE;
    }
    if (error instanceof CliSetupError) {
      io.stderr.write(terminalLine`${error.message}\n`);
      return CliExitCode.USAGE;
    }
    throw error;
  }
  try {
    // each command is its own module under src/commands/, with its parsing and its rendering
    return await parsed.command.run(parsed.options, io);
  } catch (error) {
    if (error instanceof ServeConfigError) {
      io.stderr.write(terminalLine`${error.message}\n`);
      return CliExitCode.USAGE;
    }
    if (error instanceof CliSetupError) {
      io.stderr.write(terminalLine`runledger ${parsed.command.name}: ${error.message}\n`);
      return CliExitCode.USAGE;
    }
    io.stderr.write(terminalLine`runledger ${parsed.command.name}: ${error instanceof Error ? error.message : String(error)}\n`);
    return CliExitCode.FAILED;
  }
}
