// `runledger runs cancel <id>`: what the app's Cancel button does, from the command line.
import { type CancelRequestInput, checkCancelRequest, isLateCancel, RunStoreError } from '@runledger/trace';
import { cancelRun } from '../app/cancelRun.js';
import { Translator } from '../i18n/Translator.js';
import { reasonText } from '../views/reasonText.js';
import type { CliIo } from '../commandKit/CliIo.js';
import { writeCliJson, storedRun } from '../commandKit/cliJsonOutputs.js';
import { CliExitCode, flag, HELP_FLAG, JSON_FLAG, STORE_SYNOPSIS, type CliFlag, STORE_FLAGS } from '../commandKit/cliSurface.js';
import { osUser } from '../commandKit/osUser.js';
import { UsageError } from '../commandKit/UsageError.js';
import { runNamed } from '../commandKit/runNamed.js';
import { terminalLine } from '../commandKit/terminalText.js';
import { withStore } from '../commandKit/withStore.js';
import type { CliCommand } from '../commandKit/CliCommand.js';
import { flagParser, type StoreTarget } from '../commandKit/commandArgs.js';
import { z } from 'zod';

/** The options of `runledger runs cancel`, as its command line gives them. @internal */
export interface RunsCancelOptions {
  readonly store: StoreTarget;
  readonly id: string;
  readonly json: boolean;
  /** Who asks (`--actor`, else the OS user), from the CLI, and why (`--reason`). */
  readonly request: CancelRequestInput;
}

/** The shape of `runledger runs cancel --json`. */
const JSON_OUTPUT = z.object({
  run: storedRun.describe('the run after the cancel was requested'),
  cancelRequestedAfterFinish: z.boolean().describe('the run had already ended: the request is kept as a late cancel and changes nothing'),
});

const t = new Translator('en');

/**
 * Requests the cancel of the run the command names (its id or a unique prefix), as the app's
 * Cancel button does ({@link cancelRun}), and says what it means for that run. A run that has
 * already ended is refused (exit 1, nothing written), naming how, when and why it ended.
 */
function run(command: RunsCancelOptions, io: CliIo): Promise<CliExitCode> {
  return withStore(command.store, async (store) => {
    const named = await runNamed(store, command.id, { command: 'runs cancel', store: command.store, io });
    if (named === null) return CliExitCode.FAILED;
    const result = await cancelRun(store, named.id, command.request);
    if (result.kind === 'none') {
      // pruned between the two reads
      io.stderr.write(terminalLine`runledger runs cancel: run ${named.id} is gone (deleted meanwhile)
`);
      return CliExitCode.FAILED;
    }
    const { run } = result;
    if (result.kind === 'ended') {
      const when = run.finishedAt === null ? '' : t.date(run.finishedAt);
      const why = reasonText(t, run);
      const reason = why === null ? '' : `reason: ${why}`;
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
      writeCliJson(io, JSON_OUTPUT, { run, cancelRequestedAfterFinish: late });
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

const FLAGS: readonly CliFlag[] = [...STORE_FLAGS, flag('actor', '<name>'), flag('reason', '<text>'), JSON_FLAG, HELP_FLAG];

/** The request `--actor` and `--reason` make, checked by the store's rule; a value outside it is a usage error naming the flag. */
function cancelRequestOf(actor: string | undefined, reason: string | undefined): CancelRequestInput {
  const request = { from: 'cli', by: actor ?? osUser(), reason: reason ?? null } as const;
  try {
    checkCancelRequest(request);
  } catch (error) {
    if (!RunStoreError.is(error)) throw error;
    const flagName = /CancelRequestInput\.by/.test(error.message) ? '--actor' : '--reason';
    throw new UsageError(`runledger runs cancel: ${flagName} ${error.message.replace(/^.*?CancelRequestInput\.(by|reason) /, '')}`);
  }
  return request;
}

/** `runledger runs cancel`: its flags, usage, parsing, `--json` shape and run. @internal */
export const runsCancel: CliCommand<RunsCancelOptions, typeof JSON_OUTPUT> = {
  name: 'runs cancel',
  arguments: [{ name: 'id', required: true }],
  flags: FLAGS,
  usage: {
    synopsis: `runs cancel <id | id prefix of 8+ characters> ${STORE_SYNOPSIS} [--actor <name>] [--reason <text>] [--json]`,
    about: `Cancel a running run, as the app's Cancel button does: the process running it stops its
calls and ends it cancelled. The run keeps who asked (--actor, else your OS user name), that it
came from the CLI, and why (--reason). On a run that has ended, the request is kept as a late
cancel and changes nothing.`,
  },
  jsonOutput: JSON_OUTPUT,
  parse: flagParser('runs cancel', FLAGS, (args) => {
    const request = cancelRequestOf(args.given('actor'), args.given('reason'));
    return { store: args.store(), id: args.runId(), json: args.has('json'), request };
  }),
  run,
};
