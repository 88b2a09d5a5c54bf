// `runledger runs cancel <id>`: what the app's Cancel button does, from the command line.
import { isLateCancel } from '@runledger/trace';
import { cancelRun } from '../app/cancelRun.js';
import type { CliIo } from '../cli/CliIo.js';
import { writeCliJson } from '../cli/cliJsonOutputs.js';
import { CliExitCode } from '../cli/cliSurface.js';
import type { Command } from '../cli/parseCommand.js';
import { runNamed } from '../cli/runNamed.js';
import { terminalLine } from '../cli/terminalText.js';
import { withStore } from '../cli/withStore.js';

/**
 * Requests the cancel of the run the command names (its id or a unique prefix), as the app's
 * Cancel button does ({@link cancelRun}), and says what it means for that run.
 *
 * @internal
 */
export function runsCancel(command: Extract<Command, { name: 'runs-cancel' }>, io: CliIo): Promise<CliExitCode> {
  return withStore(command.store, async (store) => {
    const named = await runNamed(store, command.id, { command: 'runs cancel', store: command.store, io });
    if (named === null) return CliExitCode.FAILED;
    const run = await cancelRun(store, named.id);
    if (run === null) {
      // pruned between the two reads
      io.stderr.write(terminalLine`runledger runs cancel: run ${named.id} is gone (deleted meanwhile)
`);
      return CliExitCode.FAILED;
    }
    const late = isLateCancel(run);
    if (command.json) {
      writeCliJson(io, 'runs cancel', { run, cancelRequestedAfterFinish: late });
      return CliExitCode.OK;
    }
    io.stdout.write(
      late
        ? terminalLine`run ${run.id} had already ended ${run.status}: the cancel is kept as a late cancel and changes nothing\n`
        : run.status === 'running'
          ? terminalLine`cancel requested for run ${run.id}: the process running it stops its calls and ends it cancelled (runledger runs show ${run.id} follows it)\n`
          : terminalLine`run ${run.id} has already ended ${run.status}; nothing to cancel\n`,
    );
    return CliExitCode.OK;
  });
}
