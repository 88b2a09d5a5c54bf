// `runledger copy`: every run of a SQLite file into PostgreSQL, runs already there skipped.
import { copyRuns } from '@runledger/trace';
import type { CliIo } from '../commandKit/CliIo.js';
import { CliExitCode } from '../commandKit/cliSurface.js';
import type { Command } from '../cli/parseCommand.js';
import { describeStore, openExistingStore, openStore } from '../commandKit/openStore.js';
import { terminalLine } from '../commandKit/terminalText.js';

/** Copies the runs of the command's SQLite file into its PostgreSQL target, printing progress. @internal */
export async function copy(command: Extract<Command, { name: 'copy' }>, io: CliIo): Promise<CliExitCode> {
  const source = await openExistingStore({ kind: 'sqlite', path: command.dbPath });
  try {
    const target = await openStore(command.target);
    try {
      io.stdout.write(terminalLine`copying runs from SQLite ${command.dbPath} to ${describeStore(command.target)} …\n`);
      const result = await copyRuns(source, target, {
        onProgress: (p) =>
          io.stdout.write(
            terminalLine`  [${p.runsSeen}] run ${p.runId}: ${p.runsCopied} copied, ${p.runsSkipped} already there, ${p.stepsCopied} steps so far\n`,
          ),
      });
      io.stdout.write(
        `copy finished: ${result.runsCopied} runs copied (${result.stepsCopied} steps), ${result.runsSkipped} already there and skipped, ${result.runsSeen} seen\n`,
      );
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
  return CliExitCode.OK;
}
