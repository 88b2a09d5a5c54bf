// `runledger runs list`: the runs newest first, as a table or JSON.
import { Translator } from '../i18n/Translator.js';
import { runDurationMs } from '../views/runsView.js';
import type { CliIo } from '../cli/CliIo.js';
import { writeCliJson } from '../cli/cliJsonOutputs.js';
import { CliExitCode } from '../cli/cliSurface.js';
import type { Command } from '../cli/parseCommand.js';
import { terminalTable } from '../cli/terminalTable.js';
import { withStore } from '../cli/withStore.js';

const t = new Translator('en');

/** Prints a page of runs of the store the command names. @internal */
export function runsList(command: Extract<Command, { name: 'runs-list' }>, io: CliIo): Promise<CliExitCode> {
  return withStore(command.store, async (store) => {
    const page = await store.listRuns({
      status: command.status ?? undefined,
      hasOutcome: command.has ?? undefined,
      limit: command.limit,
    });
    if (command.json) {
      writeCliJson(io, 'runs list', page);
      return CliExitCode.OK;
    }
    if (page.runs.length === 0) {
      io.stdout.write('no runs\n');
      return CliExitCode.OK;
    }
    const now = Date.now();
    io.stdout.write(
      terminalTable(
        ['ID', 'STATUS', 'CONFIGURATION', 'STARTED', 'DURATION', 'OK', 'FAILED', 'CANCELLED', 'TITLE'],
        page.runs.map((run) => {
          const duration = runDurationMs(run, now);
          return [
            run.id,
            run.status,
            run.configuration,
            t.date(run.startedAt ?? run.createdAt),
            duration === null ? '—' : t.duration(duration),
            String(run.outcomeCounts.ok),
            String(run.outcomeCounts.failed),
            String(run.outcomeCounts.cancelled),
            // last, so a long title widens no other column
            run.title ?? '',
          ];
        }),
        [4, 5, 6, 7],
      ),
    );
    if (page.nextCursor !== null) io.stdout.write(`(more runs: raise --limit or use the app)\n`);
    return CliExitCode.OK;
  });
}
