// `runledger runs recover`: ends the running runs whose process is gone.
import { counted } from '../commandKit/counted.js';
import type { CliIo } from '../commandKit/CliIo.js';
import { writeCliJson } from '../commandKit/cliJsonOutputs.js';
import { CliExitCode, flag, HELP_FLAG, JSON_FLAG, STORE_SYNOPSIS, type CliFlag, STORE_FLAGS } from '../commandKit/cliSurface.js';
import { terminalLine } from '../commandKit/terminalText.js';
import { withStore } from '../commandKit/withStore.js';
import type { CliCommand } from '../commandKit/CliCommand.js';
import { flagParser, type StoreTarget } from '../commandKit/commandArgs.js';
import { UsageError } from '../commandKit/UsageError.js';
import { durationMs, reachBack } from '../commandKit/reachBack.js';
import { z } from 'zod';

/** The units of `runs recover --stale-after`. */
const STALE_AFTER_UNITS = { s: 1_000, m: 60_000, h: 3_600_000 } as const;

/** The options of `runledger runs recover`, as its command line gives them. @internal */
export interface RunsRecoverOptions {
  readonly store: StoreTarget;
  readonly staleAfterMs: number;
  readonly json: boolean;
}

/** The shape of `runledger runs recover --json`. */
const JSON_OUTPUT = z.object({ recovered: z.array(z.string()) });

/** Marks interrupted (or cancelled) every running run without a sign of life for `--stale-after`. */
function run(command: RunsRecoverOptions, io: CliIo): Promise<CliExitCode> {
  return withStore(command.store, async (store) => {
    const ids = await store.recoverInterrupted(Date.now() - command.staleAfterMs);
    if (command.json) {
      writeCliJson(io, JSON_OUTPUT, { recovered: ids });
      return CliExitCode.OK;
    }
    io.stdout.write(
      ids.length === 0
        ? 'no stale running runs\n'
        : `${ids.map((id) => terminalLine`recovered ${id}\n`).join('')}${counted('count.runs', ids.length)} ended\n`,
    );
    return CliExitCode.OK;
  });
}

const FLAGS: readonly CliFlag[] = [...STORE_FLAGS, flag('stale-after', '<duration>', { default: '10m' }), JSON_FLAG, HELP_FLAG];

/** `runledger runs recover`: its flags, usage, parsing, `--json` shape and run. @internal */
export const runsRecover: CliCommand<RunsRecoverOptions, typeof JSON_OUTPUT> = {
  name: 'runs recover',
  arguments: [],
  flags: FLAGS,
  usage: {
    synopsis: `runs recover ${STORE_SYNOPSIS} [--stale-after <d>] [--json]`,
    about: `Mark interrupted every running run without a sign of life (heartbeat) for <d>
(default 10m; e.g. 90s, 2h): runs whose process is gone. A run whose cancel was
requested ends cancelled. Run it from cron or your supervisor.`,
  },
  jsonOutput: JSON_OUTPUT,
  parse: flagParser('runs recover', FLAGS, (args) => {
    args.noPositionals();
    const duration = args.defaulted('stale-after');
    const staleAfterMs = durationMs(duration, STALE_AFTER_UNITS);
    if (staleAfterMs === null || !(staleAfterMs >= 60_000)) {
      throw new UsageError(
        `runledger runs recover: --stale-after must be a duration of at least 1 minute such as 90s, 10m or 2h, got ${JSON.stringify(duration)}`,
      );
    }
    reachBack(staleAfterMs, Date.now(), STALE_AFTER_UNITS, { command: 'runs recover', flag: '--stale-after', value: duration });
    return { store: args.store(), staleAfterMs, json: args.has('json') };
  }),
  run,
};
