// `runledger runs list`: the runs newest first, filtered, with what every page adds up to, as a table or JSON.
import { canSearchRuns, decodeRunCursor, type RunPage, type RunQuery, RUN_STATUSES, type RunStatus, type RunStore } from '@runledger/trace';
import { runDurationMs } from '../viewModels/runDurationMs.js';
import { runsTotalsText } from '../i18n/runsTotalsText.js';
import { Translator } from '../i18n/Translator.js';
import type { CliIo } from '../commandKit/CliIo.js';
import { writeCliJson, storedRun, count } from '../commandKit/cliJsonOutputs.js';
import { CliExitCode, flag, HELP_FLAG, JSON_FLAG, STORE_SYNOPSIS, type CliFlag, STORE_FLAGS } from '../commandKit/cliSurface.js';
import { terminalTable } from '../commandKit/terminalTable.js';
import { terminalLine } from '../commandKit/terminalText.js';
import { withStore } from '../commandKit/withStore.js';
import type { CliCommand } from '../commandKit/CliCommand.js';
import { flagParser, type StoreTarget } from '../commandKit/commandArgs.js';
import { UsageError } from '../commandKit/UsageError.js';
import { badCursorError } from '../commandKit/listingCursor.js';
import { parseTimeFlag } from '../commandKit/parseTimeFlag.js';
import { z } from 'zod';

/** What `runs list --has` accepts. */
const HAS_CHOICES = ['ok', 'failed', 'cancelled'] as const;

/** The options of `runledger runs list`, as its command line gives them. @internal */
export interface RunsListOptions {
  readonly store: StoreTarget;
  readonly status: RunStatus | null;
  readonly has: (typeof HAS_CHOICES)[number] | null;
  /** The exact configuration name, or null. */
  readonly configuration: string | null;
  /** Runs with an ended call to this MCP server, or null. */
  readonly server: string | null;
  /** Runs with an ended call of this tool (its exact name), or null. */
  readonly tool: string | null;
  /** Text the run's title contains, or null. */
  readonly title: string | null;
  /** Runs created at or after this time (ms since the epoch), or null. */
  readonly since: number | null;
  /** Runs created before this time (ms since the epoch), or null. */
  readonly until: number | null;
  /** The most runs to list: 1 to {@link MAX_LIMIT}. */
  readonly limit: number;
  /** The `nextCursor` of the page before (its JSON output), or null for the first page. */
  readonly cursor: string | null;
  readonly json: boolean;
}

/** The most runs one `runs list` lists (it reads the store's pages of at most {@link STORE_PAGE} runs until it has them). */
const MAX_LIMIT = 1000;
/** The most runs a store lists in one page (RunQuery.limit). */
const STORE_PAGE = 200;

/** The shape of `runledger runs list --json`. */
const JSON_OUTPUT = z.object({
  runs: z.array(storedRun),
  nextCursor: z.string().nullable(),
  totals: z
    .object({ runs: count, tokens: count })
    .optional()
    .describe('what every page of the listing adds up to: its runs and their model tokens (absent from a store that cannot search)'),
});

const t = new Translator('en');

/** The store filters of the command line (every page; `limit` added to list one). */
function filtersOf(command: RunsListOptions): Omit<RunQuery, 'limit' | 'cursor'> {
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

/**
 * One page of `limit` runs after `cursor`, read as store pages of at most {@link STORE_PAGE} runs:
 * its `nextCursor` is the store's after the last run listed, so the pages of any `--limit` chain
 * without a gap or a repeat.
 */
async function listPage(
  store: RunStore,
  filters: Omit<RunQuery, 'limit' | 'cursor'>,
  limit: number,
  cursor: string | null,
): Promise<RunPage> {
  const runs: RunPage['runs'][number][] = [];
  let next = cursor;
  do {
    const page = await store.listRuns({ ...filters, limit: Math.min(STORE_PAGE, limit - runs.length), cursor: next });
    runs.push(...page.runs);
    next = page.nextCursor;
  } while (next !== null && runs.length < limit);
  return { runs, nextCursor: next };
}

/** Prints a page of runs of the store the command names, and the totals of its filters. */
function run(command: RunsListOptions, io: CliIo): Promise<CliExitCode> {
  return withStore(command.store, async (store) => {
    const filters = filtersOf(command);
    const searchable = canSearchRuns(store);
    if (!searchable && (command.server !== null || command.tool !== null || command.title !== null)) {
      io.stderr.write('runledger runs list: this store cannot search its runs: --server, --tool and --title need a runledger store\n');
      return CliExitCode.FAILED;
    }
    const [page, totals] = await Promise.all([
      listPage(store, filters, command.limit, command.cursor),
      searchable ? store.runTotals(filters) : null,
    ]);
    if (command.json) {
      writeCliJson(io, JSON_OUTPUT, totals === null ? page : { ...page, totals: { runs: totals.runs, tokens: totals.tokens } });
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
    if (totals !== null) io.stdout.write(terminalLine`total: ${runsTotalsText(t, totals)}\n`);
    if (page.nextCursor !== null) io.stdout.write(`(more runs: the next page is --cursor ${page.nextCursor})\n`);
    return CliExitCode.OK;
  });
}

/** Refuses a `--cursor` that no `runs list` printed (the store's own check, as a usage error). */
function checkCursor(cursor: string): void {
  try {
    decodeRunCursor(cursor);
  } catch {
    throw badCursorError('runs list', cursor);
  }
}

const FLAGS: readonly CliFlag[] = [
  ...STORE_FLAGS,
  flag('status', '<status>', { choices: RUN_STATUSES }),
  flag('has', HAS_CHOICES.join('|'), { choices: HAS_CHOICES }),
  flag('configuration', '<name>'),
  flag('server', '<id>'),
  flag('tool', '<name>'),
  flag('title', '<text>'),
  flag('since', '<time>'),
  flag('until', '<time>'),
  flag('limit', '<n>', { min: 1, max: MAX_LIMIT, default: '20' }),
  flag('cursor', '<cursor>'),
  JSON_FLAG,
  HELP_FLAG,
];

/** `runledger runs list`: its flags, usage, parsing, `--json` shape and run. @internal */
export const runsList: CliCommand<RunsListOptions, typeof JSON_OUTPUT> = {
  name: 'runs list',
  arguments: [],
  flags: FLAGS,
  usage: {
    synopsis: `runs list ${STORE_SYNOPSIS} [--status <s>] [--has ok|failed|cancelled] [--configuration <name>] [--server <id>] [--tool <name>] [--title <text>] [--since <time>] [--until <time>] [--limit <n>] [--cursor <cursor>] [--json]`,
    about: `List runs newest first (--limit 1 to 1000, default 20) and what all pages add up to (runs, tokens).
--cursor: the nextCursor of the page before (printed under the table and in --json).
--server, --tool: an ended call to that server, of that tool; --title: text in the title (A-Z in any
case); <time>: a date or time (2026-11-30T08:00:00Z) or a span back from now (90m, 24h, 7d).`,
  },
  jsonOutput: JSON_OUTPUT,
  parse: flagParser('runs list', FLAGS, (args) => {
    args.noPositionals();
    const status = args.text('status') as RunStatus | undefined;
    const has = args.text('has') as (typeof HAS_CHOICES)[number] | undefined;
    const limit = args.integer('limit');
    const now = Date.now();
    const time = (flag: 'since' | 'until') => {
      const value = args.given(flag);
      return value === undefined ? null : parseTimeFlag(value, now, { command: 'runs list', flag: `--${flag}` });
    };
    const cursor = args.given('cursor') ?? null;
    if (cursor !== null) checkCursor(cursor);
    const since = time('since');
    const until = time('until');
    if (since !== null && until !== null && until <= since) {
      throw new UsageError(
        `runledger runs list: --until must be later than --since, got ${JSON.stringify(args.given('until'))} and ${JSON.stringify(args.given('since'))}`,
      );
    }
    return {
      store: args.store(),
      status: status ?? null,
      has: has ?? null,
      configuration: args.given('configuration') ?? null,
      server: args.given('server') ?? null,
      tool: args.given('tool') ?? null,
      title: args.given('title') ?? null,
      since,
      until,
      limit,
      cursor,
      json: args.has('json'),
    };
  }),
  run,
};
