// `runledger servers`: the health of every MCP server, worst first, as a table or JSON; in the
// servers page's words and order.
import { Translator } from '../i18n/Translator.js';
import type { MessageKey } from '../i18n/messagesEn.js';
import { failureCauseLabel } from '../i18n/failureCauseLabel.js';
import {
  healthText,
  windowSince,
  worstFirst,
  SERVER_WINDOWS,
  DEFAULT_SERVERS_QUERY,
  compareWorstFirst,
  type ServerWindow,
  type WorstFirstKey,
} from '../viewModels/serversQuery.js';
import { badCursorError, decodeListingCursor, encodeListingCursor } from '../commandKit/listingCursor.js';
import type { CliIo } from '../commandKit/CliIo.js';
import { CliExitCode, flag, HELP_FLAG, JSON_FLAG, STORE_SYNOPSIS, type CliFlag, STORE_FLAGS } from '../commandKit/cliSurface.js';
import { writeCliJson, serverHealth } from '../commandKit/cliJsonOutputs.js';
import { terminalTable } from '../commandKit/terminalTable.js';
import { terminalLine } from '../commandKit/terminalText.js';
import { withStore } from '../commandKit/withStore.js';
import type { CliCommand } from '../commandKit/CliCommand.js';
import { flagParser, type StoreTarget } from '../commandKit/commandArgs.js';
import { z } from 'zod';
import { resolve } from 'node:path';
import type { RunStore } from '@runledger/trace';
import { loadAlertRules } from '../alerts/alertRules.js';
import { firingAlerts } from '../alerts/readAlertReadings.js';
import { UsageError } from '../commandKit/UsageError.js';
import { counted } from '../commandKit/counted.js';

/** The options of `runledger servers`, as its command line gives them. @internal */
export interface ServersOptions {
  readonly store: StoreTarget;
  readonly window: ServerWindow;
  /** The most servers to list: 1 to 1000. */
  readonly limit: number;
  /** Where the page before ended in the worst-first order (decoded from its `nextCursor`), or null for the first page. */
  readonly after: WorstFirstKey | null;
  readonly json: boolean;
  /** `--check --rules <file>`: the rules whose firing makes the exit status 1, or null. */
  readonly checkRules: string | null;
}

/** The shape of `runledger servers --json`: a page of servers, worst first. */
const JSON_OUTPUT = z.object({
  servers: z.array(serverHealth),
  nextCursor: z.string().nullable().describe('pass as --cursor for the next page; null on the last page'),
});

/** The cursor of the page after `row`: its place in the worst-first order. */
const cursorAfter = (row: WorstFirstKey): string =>
  encodeListingCursor({ flaky: row.flaky, failureRate: row.failureRate, failed: row.failed, server: row.server });

/** The place in the worst-first order a `--cursor` made by {@link cursorAfter} names, or null when it is not one. */
function placeOfCursor(cursor: string): WorstFirstKey | null {
  const place = decodeListingCursor(cursor);
  if (place === null) return null;
  const { flaky, failureRate, failed, server } = place;
  if (typeof flaky !== 'boolean' || typeof server !== 'string' || typeof failed !== 'number' || !Number.isSafeInteger(failed)) return null;
  if (failureRate !== null && (typeof failureRate !== 'number' || !Number.isFinite(failureRate))) return null;
  return { flaky, failureRate, failed, server };
}

const t = new Translator('en');

/** Prints the server health of the store the command names over its `--window` (then, with `--check`, the rules that fire). */
function run(command: ServersOptions, io: CliIo): Promise<CliExitCode> {
  return withStore(command.store, async (store) => {
    const rules = command.checkRules === null ? null : loadAlertRules(command.checkRules);
    const printed = await printHealth(command, io, store);
    if (rules === null) return printed;
    const firing = await firingAlerts(store, rules, Date.now());
    // with --json, stdout holds the JSON alone: the verdict goes to stderr
    const out = command.json ? io.stderr : io.stdout;
    for (const alert of firing) out.write(terminalLine`firing: ${alert.ruleId}: ${alert.summary}\n`);
    out.write(firing.length === 0 ? 'check: no alert rule fires\n' : `check: ${counted('count.alertsFiring', firing.length)}\n`);
    return firing.length === 0 ? CliExitCode.OK : CliExitCode.FAILED;
  });
}

/** The health table (or JSON) of `runledger servers`: a page of them, worst first. */
async function printHealth(command: ServersOptions, io: CliIo, store: RunStore): Promise<CliExitCode> {
  const since = windowSince(command.window, Date.now());
  // worst first, as the servers page lists them by default
  const all = worstFirst(await store.serverHealth(since === undefined ? {} : { since }));
  const after = command.after;
  const rest = after === null ? all : all.filter((row) => compareWorstFirst(row, after) > 0);
  const rows = rest.slice(0, command.limit);
  const nextCursor = rest.length > rows.length ? cursorAfter(rows.at(-1)!) : null;
  if (command.json) {
    writeCliJson(io, JSON_OUTPUT, { servers: rows, nextCursor });
    return CliExitCode.OK;
  }
  if (rows.length === 0) {
    io.stdout.write(terminalLine`${t.t('servers.empty')}\n`);
    return CliExitCode.OK;
  }
  const none = t.t('common.none');
  const header = (key: MessageKey) => t.t(key).toLocaleUpperCase(t.locale);
  io.stdout.write(
    terminalTable(
      [
        header('servers.col.server'),
        header('servers.col.calls'),
        header('servers.col.ok'),
        header('servers.col.failed'),
        header('servers.col.cancelled'),
        header('servers.col.notCharged'),
        header('servers.col.failureRate'),
        header('servers.col.causes'),
        header('servers.col.lastFailure'),
        header('servers.col.p95'),
        header('servers.col.health'),
      ],
      rows.map((row) => [
        row.server,
        t.number(row.calls),
        t.number(row.ok),
        t.number(row.failed),
        t.number(row.cancelled),
        t.number(row.notCharged),
        row.failureRate === null ? none : t.ratio(row.failureRate),
        row.failureCauses.length === 0
          ? none
          : row.failureCauses.map((c) => `${failureCauseLabel(t, c.cause)}: ${t.number(c.calls)}`).join(', '),
        row.lastFailureAt === null ? t.t('common.never') : t.date(row.lastFailureAt),
        row.p95DurationMs === null ? none : t.duration(row.p95DurationMs),
        healthText(t, row),
      ]),
      [1, 2, 3, 4, 5, 6, 9],
    ),
  );
  io.stdout.write(terminalLine`${t.t('servers.intro')}\n`);
  if (nextCursor !== null) io.stdout.write(`(more servers: the next page is --cursor ${nextCursor})\n`);
  return CliExitCode.OK;
}

const FLAGS: readonly CliFlag[] = [
  ...STORE_FLAGS,
  flag('window', SERVER_WINDOWS.join('|'), { choices: SERVER_WINDOWS, default: DEFAULT_SERVERS_QUERY.window }),
  flag('limit', '<n>', { min: 1, max: 1000, default: '100' }),
  flag('cursor', '<cursor>'),
  JSON_FLAG,
  flag('check', null),
  flag('rules', '<file>'),
  HELP_FLAG,
];

/** `runledger servers`: its flags, usage, parsing, `--json` shape and run. @internal */
export const servers: CliCommand<ServersOptions, typeof JSON_OUTPUT> = {
  name: 'servers',
  arguments: [],
  flags: FLAGS,
  usage: {
    synopsis: `servers ${STORE_SYNOPSIS} [--window 24h|7d|all] [--limit <n>] [--cursor <cursor>] [--json] [--check --rules <file>]`,
    about: `Print the health of every MCP server, worst first (failure rate excludes cancellations);
--limit 1 to 1000, default 100; --cursor: the nextCursor of the page before. --check --rules
<file> then lists the alert rules of the file that fire now and exits 1 while any fires (0
otherwise); see docs/alerts.md.`,
  },
  jsonOutput: JSON_OUTPUT,
  parse: flagParser('servers', FLAGS, (args) => {
    args.noPositionals();
    const window = args.defaulted('window') as ServerWindow;
    const cursor = args.given('cursor');
    const after = cursor === undefined ? null : placeOfCursor(cursor);
    if (cursor !== undefined && after === null) throw badCursorError('servers', cursor);
    const rules = args.given('rules');
    if (args.has('check') !== (rules !== undefined))
      throw new UsageError(
        `runledger servers: ${rules === undefined ? '--check needs --rules <file>' : '--rules is read by --check only; add --check'}`,
      );
    return {
      store: args.store(),
      window,
      limit: args.integer('limit'),
      after,
      json: args.has('json'),
      checkRules: rules === undefined ? null : resolve(args.env.cwd, rules),
    };
  }),
  run,
};
