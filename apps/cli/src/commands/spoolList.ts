// `runledger spool list`: the spool files recording processes left, as a table or JSON.
import { inspectSpool } from '@runledger/trace';
import type { CliIo } from '../commandKit/CliIo.js';
import { CliExitCode } from '../commandKit/cliSurface.js';
import type { Command } from '../cli/parseCommand.js';
import { writeCliJson } from '../commandKit/cliJsonOutputs.js';
import { terminalTable } from '../commandKit/terminalTable.js';
import { terminalLine } from '../commandKit/terminalText.js';

/** Lists the spool files of the command's spool folder. @internal */
export async function spoolList(command: Extract<Command, { name: 'spool-list' }>, io: CliIo): Promise<CliExitCode> {
  const files = await inspectSpool(command.spoolDir);
  if (command.json) {
    writeCliJson(io, 'spool list', { dir: command.spoolDir, files });
    return CliExitCode.OK;
  }
  if (files.length === 0) {
    io.stdout.write(terminalLine`no spool files in ${command.spoolDir}\n`);
    return CliExitCode.OK;
  }
  io.stdout.write(
    terminalTable(
      ['FILE', 'PROCESS', 'STEPS', 'FINAL STATUSES', 'RUNS', 'LOST'],
      files.map((file) => [
        file.path,
        `${file.pid ?? '?'}${file.alive ? ' (alive)' : ''}`,
        String(file.steps),
        String(file.finishes),
        String(file.runs),
        // acknowledged entries the file does not hold any more (it was cut short)
        String(file.lost),
      ]),
      [2, 3, 4, 5],
      // a file's path is copied to deliver or remove it: never cut
      { whole: [0] },
    ),
  );
  return CliExitCode.OK;
}
