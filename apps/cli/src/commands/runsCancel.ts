// `runledger runs cancel <id>`: what the app's Cancel button does, from the command line.
import { isLateCancel } from '@runledger/trace';
import { cancelRun } from '../app/cancelRun.js';
import { Translator } from '../i18n/Translator.js';
import { reasonText } from '../views/reasonText.js';
import type { CliIo } from '../commandKit/CliIo.js';
import { writeCliJson } from '../commandKit/cliJsonOutputs.js';
import { CliExitCode } from '../commandKit/cliSurface.js';
import type { Command } from '../cli/parseCommand.js';
import { runNamed } from '../commandKit/runNamed.js';
import { terminalLine } from '../commandKit/terminalText.js';
import { withStore } from '../commandKit/withStore.js';

const t = new Translator('en');

/**
 * Requests the cancel of the run the command names (its id or a unique prefix), as the app's
 * Cancel button does ({@link cancelRun}), and says what it means for that run. A run that has
 * already ended is refused (exit 1, nothing written), naming how, when and why it ended.
 *
 * @internal
 */
export function runsCancel(command: Extract<Command, { name: 'runs-cancel' }>, io: CliIo): Promise<CliExitCode> {
  return withStore(command.store, async (store) => {
    const named = await runNamed(store, command.id, { command: 'runs cancel', store: command.store, io });
    if (named === null) return CliExitCode.FAILED;
    const result = await cancelRun(store, named.id);
    if (result.kind === 'none') {
      // pruned between the two reads
      io.stderr.write(terminalLine`runledger runs cancel: run ${named.id} is gone (deleted meanwhile)
`);
      return CliExitCode.FAILED;
    }
    const { run } = result;
    if (result.kind === 'ended') {
      const when = run.finishedAt === null ? '' : t.date(run.finishedAt);
      const reason = run.terminationReason === null ? '' : `reason: ${reasonText(t, run.terminationReason)}`;
      const how = [when, reason].filter((part) => part !== '').join('; ');
      io.stderr.write(
        terminalLine`runledger runs cancel: run ${run.id} has already ended ${run.status}` +
          (how === '' ? '' : terminalLine` (${how})`) +
          '; nothing was cancelled\n',
      );
      return CliExitCode.FAILED;
    }
    const late = isLateCancel(run);
    if (command.json) {
      writeCliJson(io, 'runs cancel', { run, cancelRequestedAfterFinish: late });
      return CliExitCode.OK;
    }
    io.stdout.write(
      late
        ? terminalLine`run ${run.id} ended ${run.status} as the cancel was requested: the cancel is kept as a late cancel and changes nothing\n`
        : terminalLine`cancel requested for run ${run.id}: the process running it stops its calls and ends it cancelled (runledger runs show ${run.id} follows it)\n`,
    );
    return CliExitCode.OK;
  });
}
