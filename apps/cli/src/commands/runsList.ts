// `runledger runs list`: the runs newest first, filtered, with what every page adds up to, as a table or JSON.
import { canSearchRuns, type RunQuery } from '@runledger/trace';
import { runDurationMs } from '../viewModels/runDurationMs.js';
import { Translator } from '../i18n/Translator.js';
import type { CliIo } from '../commandKit/CliIo.js';
import { writeCliJson } from '../commandKit/cliJsonOutputs.js';
import { CliExitCode } from '../commandKit/cliSurface.js';
import type { Command } from '../cli/parseCommand.js';
import { terminalTable } from '../commandKit/terminalTable.js';
import { terminalLine } from '../commandKit/terminalText.js';
import { withStore } from '../commandKit/withStore.js';

const t = new Translator('en');

type RunsListCommand = Extract<Command, { name: 'runs-list' }>;

/** The store filters of the command line (every page; `limit` added to list one). */
function filtersOf(command: RunsListCommand): Omit<RunQuery, 'limit' | 'cursor'> {
  return {
    status: command.status ?? undefined,
    hasOutcome: command.has ?? undefined,
    configuration: command.configuration ?? undefined,
    server: command.server ?? undefined,
    tool: command.tool ?? undefined,
    titleContains: command.title ?? undefined,
    createdFrom: command.since ?? undefined,
    createdTo: command.until ?? undefined,
  };
}

/** Prints a page of runs of the store the command names, and the totals of its filters. @internal */
export function runsList(command: RunsListCommand, io: CliIo): Promise<CliExitCode> {
  return withStore(command.store, async (store) => {
    const filters = filtersOf(command);
    const searchable = canSearchRuns(store);
    if (!searchable && (command.server !== null || command.tool !== null || command.title !== null)) {
      io.stderr.write('runledger runs list: this store cannot search its runs: --server, --tool and --title need a runledger store\n');
      return CliExitCode.FAILED;
    }
    const [page, totals] = await Promise.all([
      store.listRuns({ ...filters, limit: command.limit }),
      searchable ? store.runTotals(filters) : null,
    ]);
    if (command.json) {
      writeCliJson(io, 'runs list', totals === null ? page : { ...page, totals: { runs: totals.runs, tokens: totals.tokens } });
      return CliExitCode.OK;
    }
    if (page.runs.length === 0) {
      io.stdout.write('no runs\n');
      return CliExitCode.OK;
    }
    const now = Date.now();
    io.stdout.write(
      terminalTable(
        ['ID', 'STATUS', 'CONFIGURATION', 'STARTED', 'DURATION', 'TOKENS', 'OK', 'FAILED', 'CANCELLED', 'TITLE'],
        page.runs.map((run) => {
          const duration = runDurationMs(run, now);
          return [
            run.id,
            run.status,
            run.configuration,
            t.date(run.startedAt ?? run.createdAt),
            duration === null ? '—' : t.duration(duration),
            run.tokens === undefined ? '—' : String(run.tokens),
            String(run.outcomeCounts.ok),
            String(run.outcomeCounts.failed),
            String(run.outcomeCounts.cancelled),
            // last, so a long title widens no other column
            run.title ?? '',
          ];
        }),
        [4, 5, 6, 7, 8],
      ),
    );
    if (totals !== null) io.stdout.write(terminalLine`total: ${t.t('runs.totals', { runs: totals.runs, tokens: totals.tokens })}\n`);
    if (page.nextCursor !== null) io.stdout.write(`(more runs: raise --limit or use the app)\n`);
    return CliExitCode.OK;
  });
}
