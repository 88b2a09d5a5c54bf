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
  type ServerWindow,
} from '../viewModels/serversQuery.js';
import type { CliIo } from '../commandKit/CliIo.js';
import { CliExitCode, flag, HELP_FLAG, JSON_FLAG, STORE_SYNOPSIS, type CliFlag, STORE_FLAGS } from '../commandKit/cliSurface.js';
import { writeCliJson, serverHealth } from '../commandKit/cliJsonOutputs.js';
import { terminalTable } from '../commandKit/terminalTable.js';
import { terminalLine } from '../commandKit/terminalText.js';
import { withStore } from '../commandKit/withStore.js';
import type { CliCommand } from '../commandKit/CliCommand.js';
import { flagParser, type StoreTarget } from '../commandKit/commandArgs.js';
import { z } from 'zod';

/** The options of `runledger servers`, as its command line gives them. @internal */
export interface ServersOptions {
  readonly store: StoreTarget;
  readonly window: ServerWindow;
  readonly json: boolean;
}

/** The shape of `runledger servers --json`. */
const JSON_OUTPUT = z.array(serverHealth);

const t = new Translator('en');

/** Prints the server health of the store the command names over its `--window`. */
function run(command: ServersOptions, io: CliIo): Promise<CliExitCode> {
  return withStore(command.store, async (store) => {
    const since = windowSince(command.window, Date.now());
    // worst first, as the servers page lists them by default
    const rows = worstFirst(await store.serverHealth(since === undefined ? {} : { since }));
    if (command.json) {
      writeCliJson(io, JSON_OUTPUT, rows);
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
    return CliExitCode.OK;
  });
}

const FLAGS: readonly CliFlag[] = [
  ...STORE_FLAGS,
  flag('window', SERVER_WINDOWS.join('|'), { choices: SERVER_WINDOWS, default: DEFAULT_SERVERS_QUERY.window }),
  JSON_FLAG,
  HELP_FLAG,
];

/** `runledger servers`: its flags, usage, parsing, `--json` shape and run. @internal */
export const servers: CliCommand<ServersOptions, typeof JSON_OUTPUT> = {
  name: 'servers',
  arguments: [],
  flags: FLAGS,
  usage: {
    synopsis: `servers ${STORE_SYNOPSIS} [--window 24h|7d|all] [--json]`,
    about: 'Print the health of every MCP server (failure rate excludes cancellations).',
  },
  jsonOutput: JSON_OUTPUT,
  parse: flagParser('servers', FLAGS, (args) => {
    args.noPositionals();
    const window = args.defaulted('window') as ServerWindow;
    return { store: args.store(), window, json: args.has('json') };
  }),
  run,
};
