// `runledger spool deliver`: hands spooled steps and final statuses to the store.
import { deliverSpool } from '@runledger/trace';
import type { CliIo } from '../commandKit/CliIo.js';
import { CliExitCode } from '../commandKit/cliSurface.js';
import type { Command } from '../cli/parseCommand.js';
import { writeCliJson } from '../commandKit/cliJsonOutputs.js';
import { openExistingStore } from '../commandKit/openStore.js';
import { terminalLine } from '../commandKit/terminalText.js';
import { withStore } from '../commandKit/withStore.js';

/** Delivers the spool files of the command's folder to the store it names; exits 1 when a file is kept or set aside. @internal */
export function spoolDeliver(command: Extract<Command, { name: 'spool-deliver' }>, io: CliIo): Promise<CliExitCode> {
  return withStore(
    command.store,
    async (store) => {
      const result = await deliverSpool(store, {
        dir: command.spoolDir,
        includeLiveProcesses: command.all,
        setAside: command.setAside,
      });
      if (command.json) {
        writeCliJson(io, 'spool deliver', result);
      } else if (result.files.length === 0) {
        io.stdout.write(terminalLine`no spool files in ${result.dir}\n`);
      } else {
        for (const file of result.files) {
          const torn = file.torn > 0 && file.lost === 0 ? `, ${file.torn} torn last line skipped (never acknowledged)` : '';
          const what = `${file.steps} steps, ${file.finishes} final statuses${file.lateFinishes.length > 0 ? `, ${file.lateFinishes.length} late final statuses` : ''}${torn}`;
          io.stdout.write(
            file.state === 'delivered'
              ? terminalLine`delivered ${file.path}: ${what}; ${file.problem ?? 'file removed'}\n`
              : file.state === 'skipped'
                ? terminalLine`skipped ${file.path}: ${file.problem} (it delivers its own; --all to deliver anyway)\n`
                : file.state === 'set_aside'
                  ? terminalLine`SET ASIDE ${file.path}: ${what} delivered, then ${file.problem}\n`
                  : terminalLine`KEPT ${file.path}: ${what} delivered, then ${file.problem}${command.setAside ? '' : ' (if it can never be delivered, --set-aside moves it out of the way)'}\n`,
          );
          for (const late of file.lateFinishes) {
            io.stdout.write(
              terminalLine`  LATE: the final status "${late.status}" of run ${late.runId} arrived after the run had ended "${late.runStatus}"; kept as its late finish, ${late.unstoredSteps} unstored steps counted\n`,
            );
          }
        }
      }
      // a file that is not delivered whole, or that lost entries, fails the command (set aside or not)
      return result.files.some((file) => file.state === 'kept' || file.state === 'set_aside') ? CliExitCode.FAILED : CliExitCode.OK;
    },
    // a store that is not there refuses, as the read commands do: it would not hold these runs
    openExistingStore,
  );
}
