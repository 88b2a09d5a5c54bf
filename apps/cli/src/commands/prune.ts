// `runledger prune --older-than <d>`: retention, whole runs that ended before the cutoff.
import { canPruneRuns } from '@runledger/trace';
import type { CliIo } from '../commandKit/CliIo.js';
import { CliExitCode } from '../commandKit/cliSurface.js';
import type { Command } from '../cli/parseCommand.js';
import { CliSetupError } from '../commandKit/CliSetupError.js';
import { writeCliJson } from '../commandKit/cliJsonOutputs.js';
import { describeStore } from '../commandKit/openStore.js';
import { terminalLine } from '../commandKit/terminalText.js';
import { withStore } from '../commandKit/withStore.js';

/** Deletes (or with --dry-run counts) the runs of the store the command names that ended before the cutoff. @internal */
export function prune(command: Extract<Command, { name: 'prune' }>, io: CliIo): Promise<CliExitCode> {
  return withStore(command.store, async (store) => {
    if (!canPruneRuns(store)) throw new CliSetupError(`${describeStore(command.store)} cannot prune runs`);
    const olderThan = Math.max(0, Date.now() - command.olderThanMs);
    const result = await store.pruneRuns({ olderThan, dryRun: command.dryRun });
    if (command.json) {
      writeCliJson(io, 'prune', { olderThan, ...result });
      return CliExitCode.OK;
    }
    const when = (ms: number | null): string => (ms === null ? '-' : new Date(ms).toISOString());
    const verb = command.dryRun ? 'would delete' : 'deleted';
    io.stdout.write(
      result.runs === 0 && result.steps === 0
        ? terminalLine`no runs ended before ${when(olderThan)}; nothing to delete\n`
        : terminalLine`${verb} ${result.runs} runs (${result.steps} steps) that ended before ${when(olderThan)}: oldest ended ${when(result.oldestFinishedAt)}, newest ${when(result.newestFinishedAt)}${command.dryRun ? ' (dry run: nothing deleted)' : ` in ${result.batches} batches`}\n`,
    );
    return CliExitCode.OK;
  });
}
