// `runledger spool deliver`: hands spooled steps and final statuses to the store.
import { counted } from '../commandKit/counted.js';
import { deliverSpool, RUN_STATUSES } from '@runledger/trace';
import type { CliIo } from '../commandKit/CliIo.js';
import {
  CliExitCode,
  flag,
  HELP_FLAG,
  JSON_FLAG,
  SPOOL_DIR_FLAG,
  STORE_SYNOPSIS,
  type CliFlag,
  STORE_FLAGS,
} from '../commandKit/cliSurface.js';
import { writeCliJson, count, millis, terminalRunStatus, spoolFile } from '../commandKit/cliJsonOutputs.js';
import { openExistingStore } from '../commandKit/openStore.js';
import { terminalLine } from '../commandKit/terminalText.js';
import { withStore } from '../commandKit/withStore.js';
import type { CliCommand } from '../commandKit/CliCommand.js';
import { flagParser, type StoreTarget } from '../commandKit/commandArgs.js';
import { z } from 'zod';

/** The options of `runledger spool deliver`, as its command line gives them. @internal */
export interface SpoolDeliverOptions {
  readonly store: StoreTarget;
  readonly spoolDir: string;
  readonly all: boolean;
  /** Rename a file that can never be delivered out of the way (`--set-aside`). */
  readonly setAside: boolean;
  readonly json: boolean;
}

/** The shape of `runledger spool deliver --json`. */
const JSON_OUTPUT = z.object({
  dir: z.string(),
  files: z.array(
    z.object({
      ...spoolFile,
      state: z.enum(['delivered', 'skipped', 'kept', 'set_aside']),
      lateFinishes: z
        .array(
          z.object({
            runId: z.string(),
            status: terminalRunStatus,
            finishedAt: millis.nullable(),
            runStatus: z.enum(RUN_STATUSES),
            unstoredSteps: count,
          }),
        )
        .describe('final statuses that arrived after their run had ended otherwise: kept on the run as late ones'),
      problem: z.string().nullable(),
    }),
  ),
});

/** Delivers the spool files of the command's folder to the store it names; exits 1 when a file is kept or set aside. */
function run(command: SpoolDeliverOptions, io: CliIo): Promise<CliExitCode> {
  return withStore(
    command.store,
    async (store) => {
      const result = await deliverSpool(store, {
        dir: command.spoolDir,
        includeLiveProcesses: command.all,
        setAside: command.setAside,
      });
      if (command.json) {
        writeCliJson(io, JSON_OUTPUT, result);
      } else if (result.files.length === 0) {
        io.stdout.write(terminalLine`no spool files in ${result.dir}\n`);
      } else {
        for (const file of result.files) {
          const torn = file.torn > 0 && file.lost === 0 ? `, ${counted('count.tornLines', file.torn)} skipped (never acknowledged)` : '';
          const lateText = file.lateFinishes.length > 0 ? `, ${counted('count.lateFinalStatuses', file.lateFinishes.length)}` : '';
          const what = `${counted('count.steps', file.steps)}, ${counted('count.finalStatuses', file.finishes)}${lateText}${torn}`;
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
              terminalLine`  LATE: the final status "${late.status}" of run ${late.runId} arrived after the run had ended "${late.runStatus}"; kept as its late finish, ${counted('count.unstoredSteps', late.unstoredSteps)} counted\n`,
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

const FLAGS: readonly CliFlag[] = [...STORE_FLAGS, SPOOL_DIR_FLAG, flag('all', null), flag('set-aside', null), JSON_FLAG, HELP_FLAG];

/** `runledger spool deliver`: its flags, usage, parsing, `--json` shape and run. @internal */
export const spoolDeliver: CliCommand<SpoolDeliverOptions, typeof JSON_OUTPUT> = {
  name: 'spool deliver',
  arguments: [],
  flags: FLAGS,
  usage: {
    synopsis: `spool deliver ${STORE_SYNOPSIS} [--spool-dir <dir>] [--all] [--set-aside] [--json]`,
    about: `Deliver the spooled steps and final statuses to the store. Files of processes still
alive are skipped unless --all. Exits 1 when something could not be delivered (the file is
kept; run it again) or was lost; --set-aside renames a file that can never be delivered (its
run is gone) to <file>.set-aside. A missing store is an error, as for the read commands.`,
  },
  jsonOutput: JSON_OUTPUT,
  parse: flagParser('spool deliver', FLAGS, (args) => {
    args.noPositionals();
    return {
      store: args.store(),
      spoolDir: args.spoolDir(),
      all: args.has('all'),
      setAside: args.has('set-aside'),
      json: args.has('json'),
    };
  }),
  run,
};
