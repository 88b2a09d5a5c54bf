// `runledger prune --older-than <d>`: retention, whole runs that ended before the cutoff.
import { counted } from '../commandKit/counted.js';
import { canPruneRuns } from '@runledger/trace';
import type { CliIo } from '../commandKit/CliIo.js';
import { CliExitCode, flag, HELP_FLAG, JSON_FLAG, STORE_SYNOPSIS, type CliFlag, STORE_FLAGS } from '../commandKit/cliSurface.js';
import { CliSetupError } from '../commandKit/CliSetupError.js';
import { writeCliJson, count } from '../commandKit/cliJsonOutputs.js';
import { describeStore } from '../commandKit/openStore.js';
import { terminalLine } from '../commandKit/terminalText.js';
import { withStore } from '../commandKit/withStore.js';
import type { CliCommand } from '../commandKit/CliCommand.js';
import { flagParser, type StoreTarget } from '../commandKit/commandArgs.js';
import { UsageError } from '../commandKit/UsageError.js';
import { parseOlderThan } from '../commandKit/olderThan.js';
import { z } from 'zod';

/** The options of `runledger prune`, as its command line gives them. @internal */
export interface PruneOptions {
  readonly store: StoreTarget;
  readonly olderThanMs: number;
  readonly dryRun: boolean;
  readonly json: boolean;
}

/** The shape of `runledger prune --json`. */
const JSON_OUTPUT = z.object({
  olderThan: z.number().int().describe('the cutoff, ms since the epoch: runs that ended before it'),
  dryRun: z.boolean(),
  runs: count,
  steps: count,
  oldestFinishedAt: z.number().int().nullable(),
  newestFinishedAt: z.number().int().nullable(),
  batches: count,
  complete: z.boolean(),
});

/** Deletes (or with --dry-run counts) the runs of the store the command names that ended before the cutoff. */
function run(command: PruneOptions, io: CliIo): Promise<CliExitCode> {
  return withStore(command.store, async (store) => {
    if (!canPruneRuns(store)) throw new CliSetupError(`${describeStore(command.store)} cannot prune runs`);
    const olderThan = Math.max(0, Date.now() - command.olderThanMs);
    const result = await store.pruneRuns({ olderThan, dryRun: command.dryRun });
    if (command.json) {
      writeCliJson(io, JSON_OUTPUT, { olderThan, ...result });
      return CliExitCode.OK;
    }
    const when = (ms: number | null): string => (ms === null ? '-' : new Date(ms).toISOString());
    const verb = command.dryRun ? 'would delete' : 'deleted';
    io.stdout.write(
      result.runs === 0 && result.steps === 0
        ? terminalLine`no runs ended before ${when(olderThan)}; nothing to delete\n`
        : terminalLine`${verb} ${counted('count.runs', result.runs)} (${counted('count.steps', result.steps)}) that ended before ${when(olderThan)}: oldest ended ${when(result.oldestFinishedAt)}, newest ${when(result.newestFinishedAt)}${command.dryRun ? ' (dry run: nothing deleted)' : ` in ${counted('count.batches', result.batches)}`}\n`,
    );
    return CliExitCode.OK;
  });
}

const FLAGS: readonly CliFlag[] = [
  ...STORE_FLAGS,
  flag('older-than', '<duration>', { required: true }),
  flag('dry-run', null),
  JSON_FLAG,
  HELP_FLAG,
];

/** `runledger prune`: its flags, usage, parsing, `--json` shape and run. @internal */
export const prune: CliCommand<PruneOptions, typeof JSON_OUTPUT> = {
  name: 'prune',
  arguments: [],
  flags: FLAGS,
  usage: {
    synopsis: `prune --older-than <d> ${STORE_SYNOPSIS} [--dry-run] [--json]`,
    about: `Delete every run that ended more than <d> ago (30d, 12h, 90m, 2w), whole: its steps,
its row and its share of server health, in short batches while recording goes on.
Running runs are never deleted. --dry-run counts what would go and deletes nothing.`,
  },
  jsonOutput: JSON_OUTPUT,
  parse: flagParser('prune', FLAGS, (args) => {
    args.noPositionals();
    const olderThan = args.given('older-than');
    if (olderThan === undefined) throw new UsageError('runledger prune: --older-than <duration> is required (e.g. 30d, 12h, 90m, 2w)');
    return {
      store: args.store(),
      olderThanMs: parseOlderThan(olderThan, Date.now()),
      dryRun: args.has('dry-run'),
      json: args.has('json'),
    };
  }),
  run,
};
