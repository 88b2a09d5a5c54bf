import { ServeConfigError } from '../app/startRunsServer.js';
import { copy } from '../commands/copy.js';
import { demo } from '../commands/demo.js';
import { exportOtlp } from '../commands/exportOtlp.js';
import { help } from '../commands/help.js';
import { migrate } from '../commands/migrate.js';
import { prune } from '../commands/prune.js';
import { runsCancel } from '../commands/runsCancel.js';
import { runsList } from '../commands/runsList.js';
import { runsRecover } from '../commands/runsRecover.js';
import { runsShow } from '../commands/runsShow.js';
import { serve } from '../commands/serve.js';
import { servers } from '../commands/servers.js';
import { spoolDeliver } from '../commands/spoolDeliver.js';
import { spoolList } from '../commands/spoolList.js';
import { version } from '../commands/version.js';
import type { CliIo } from '../commandKit/CliIo.js';
import { CliSetupError } from '../commandKit/CliSetupError.js';
import { CliExitCode } from '../commandKit/cliSurface.js';
import { type Command, parseCommand } from './parseCommand.js';
import { terminalLine, terminalText } from '../commandKit/terminalText.js';
import { commandUsage } from './usage.js';
import { UsageError } from '../commandKit/UsageError.js';

/** Runs a parsed command: each command is its own file under src/commands/, with its rendering. */
function execute(command: Command, io: CliIo): CliExitCode | Promise<CliExitCode> {
  switch (command.name) {
    case 'help':
      return help(command, io);
    case 'version':
      return version(io);
    case 'serve':
      return serve(command, io);
    case 'demo':
      return demo(command, io);
    case 'runs-list':
      return runsList(command, io);
    case 'runs-show':
      return runsShow(command, io);
    case 'runs-recover':
      return runsRecover(command, io);
    case 'runs-cancel':
      return runsCancel(command, io);
    case 'servers':
      return servers(command, io);
    case 'migrate':
      return migrate(command, io);
    case 'prune':
      return prune(command, io);
    case 'spool-list':
      return spoolList(command, io);
    case 'spool-deliver':
      return spoolDeliver(command, io);
    case 'copy':
      return copy(command, io);
    case 'export-otlp':
      return exportOtlp(command, io);
  }
}

/** What a usage error prints: the message and the usage of its command, or where the list of commands is. */
function usageErrorText(error: UsageError): string {
  const usage = error.command === null ? 'Run runledger --help for the list of commands.\n' : commandUsage(error.command);
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
  let command: Command;
  try {
    command = parseCommand(argv, {
      cwd: io.cwd,
      token: io.env['RUNLEDGER_TOKEN'],
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
    return await execute(command, io);
  } catch (error) {
    if (error instanceof ServeConfigError) {
      io.stderr.write(terminalLine`${error.message}\n`);
      return CliExitCode.USAGE;
    }
    if (error instanceof CliSetupError) {
      io.stderr.write(terminalLine`runledger ${command.name.replace('-', ' ')}: ${error.message}\n`);
      return CliExitCode.USAGE;
    }
    io.stderr.write(terminalLine`runledger ${command.name.replace('-', ' ')}: ${error instanceof Error ? error.message : String(error)}\n`);
    return CliExitCode.FAILED;
  }
}
