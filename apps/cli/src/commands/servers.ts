// `runledger servers`: the health of every MCP server, as a table or JSON.
import { Translator } from '../i18n/Translator.js';
import { healthVerdict, windowSince, SERVER_WINDOWS, DEFAULT_SERVERS_QUERY, type ServerWindow } from '../viewModels/serversQuery.js';
import type { CliIo } from '../commandKit/CliIo.js';
import { CliExitCode, flag, HELP_FLAG, JSON_FLAG, STORE_SYNOPSIS, type CliFlag, STORE_FLAGS } from '../commandKit/cliSurface.js';
import { writeCliJson, serverHealth } from '../commandKit/cliJsonOutputs.js';
import { terminalTable } from '../commandKit/terminalTable.js';
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
    const rows = await store.serverHealth(since === undefined ? {} : { since });
    if (command.json) {
      writeCliJson(io, JSON_OUTPUT, rows);
      return CliExitCode.OK;
    }
    if (rows.length === 0) {
      io.stdout.write('no tool calls recorded\n');
      return CliExitCode.OK;
    }
    io.stdout.write(
      terminalTable(
        [
          'SERVER',
          'CALLS',
          'OK',
          'FAILED',
          'CANCELLED',
          'NOT CHARGED',
          'FAILURE RATE',
          'FAILURES BY CAUSE',
          'LAST FAILURE',
          'P95',
          'HEALTH',
        ],
        rows.map((row) => {
          const verdict = healthVerdict(row);
          return [
            row.server,
            String(row.calls),
            String(row.ok),
            String(row.failed),
            String(row.cancelled),
            String(row.notCharged),
            row.failureRate === null ? '—' : t.ratio(row.failureRate),
            row.failureCauses.length === 0 ? '—' : row.failureCauses.map((c) => `${c.cause} ${c.calls}`).join(', '),
            row.lastFailureAt === null ? 'never' : t.date(row.lastFailureAt),
            row.p95DurationMs === null ? '—' : t.duration(row.p95DurationMs),
            verdict === 'flaky' ? 'FLAKY' : verdict === 'noAnswers' ? 'no answers' : verdict === 'tooFew' ? 'too few calls' : 'healthy',
          ];
        }),
        [1, 2, 3, 4, 5, 6, 9],
      ),
    );
    io.stdout.write(
      'failure rate = failed / (ok + failed), without cancellations and calls not charged to the server (refused arguments, unknown, not found or unapproved tools: ours or the model’s, never the server’s); p95 over answered calls only\n',
    );
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
