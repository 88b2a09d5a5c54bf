// `runledger servers`: the health of every MCP server, as a table or JSON.
import { Translator } from '../i18n/Translator.js';
import { healthVerdict, windowSince } from '../viewModels/serversQuery.js';
import type { CliIo } from '../commandKit/CliIo.js';
import { CliExitCode } from '../commandKit/cliSurface.js';
import type { Command } from '../cli/parseCommand.js';
import { writeCliJson } from '../commandKit/cliJsonOutputs.js';
import { terminalTable } from '../commandKit/terminalTable.js';
import { withStore } from '../commandKit/withStore.js';

const t = new Translator('en');

/** Prints the server health of the store the command names over its `--window`. @internal */
export function servers(command: Extract<Command, { name: 'servers' }>, io: CliIo): Promise<CliExitCode> {
  return withStore(command.store, async (store) => {
    const since = windowSince(command.window, Date.now());
    const rows = await store.serverHealth(since === undefined ? {} : { since });
    if (command.json) {
      writeCliJson(io, 'servers', rows);
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
