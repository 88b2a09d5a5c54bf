// `runledger copy`: every run of a SQLite file into PostgreSQL, runs already there skipped.
import { counted } from '../commandKit/counted.js';
import { copyRuns } from '@runledger/trace';
import type { CliIo } from '../commandKit/CliIo.js';
import { CliExitCode, flag, HELP_FLAG, type CliFlag } from '../commandKit/cliSurface.js';
import { describeStore, openExistingStore, openStore } from '../commandKit/openStore.js';
import { terminalLine } from '../commandKit/terminalText.js';
import type { CliCommand } from '../commandKit/CliCommand.js';
import { flagParser, type StoreTarget } from '../commandKit/commandArgs.js';
import { UsageError } from '../commandKit/UsageError.js';
import { resolve } from 'node:path';
import { checkDbFlag, checkPgUrl } from '../commandKit/storeTargetChecks.js';

/** The options of `runledger copy`, as its command line gives them. @internal */
export interface CopyOptions {
  readonly dbPath: string;
  readonly target: StoreTarget & { readonly kind: 'postgres' };
}

/** Copies the runs of the command's SQLite file into its PostgreSQL target, printing progress. */
async function run(command: CopyOptions, io: CliIo): Promise<CliExitCode> {
  const source = await openExistingStore({ kind: 'sqlite', path: command.dbPath });
  try {
    const target = await openStore(command.target);
    try {
      io.stdout.write(terminalLine`copying runs from SQLite ${command.dbPath} to ${describeStore(command.target)} …\n`);
      const result = await copyRuns(source, target, {
        onProgress: (p) =>
          io.stdout.write(
            terminalLine`  [${p.runsSeen}] run ${p.runId}: ${p.runsCopied} copied, ${p.runsSkipped} already there, ${counted('count.steps', p.stepsCopied)} so far\n`,
          ),
      });
      io.stdout.write(
        `copy finished: ${counted('count.runs', result.runsCopied)} copied (${counted('count.steps', result.stepsCopied)}), ${result.runsSkipped} already there and skipped, ${result.runsSeen} seen\n`,
      );
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
  return CliExitCode.OK;
}

const FLAGS: readonly CliFlag[] = [
  flag('db', '<file>', { required: true }),
  flag('pg', '<url>', { env: 'RUNLEDGER_PG_URL' }),
  flag('pg-schema', '<name>'),
  HELP_FLAG,
];

/** `runledger copy`: its flags, usage, parsing, `--json` shape and run. @internal */
export const copy: CliCommand<CopyOptions> = {
  name: 'copy',
  arguments: [],
  flags: FLAGS,
  usage: {
    synopsis: 'copy    --db <file> --pg <url> [--pg-schema <name>]',
    about: 'Copy every run from a SQLite file into PostgreSQL (runs already there are skipped).',
  },
  jsonOutput: null,
  parse: flagParser('copy', FLAGS, (args) => {
    args.noPositionals();
    const db = args.given('db');
    const given = args.given('pg');
    const pg = given ?? (args.env.pgUrl || undefined);
    if (db === undefined) throw new UsageError('runledger copy: --db <file> (the SQLite source) is required');
    if (pg === undefined) throw new UsageError('runledger copy: --pg <url> (the PostgreSQL target) is required');
    checkDbFlag(db, 'copy');
    checkPgUrl(pg, 'copy', given === undefined ? 'RUNLEDGER_PG_URL' : '--pg');
    const schema = args.pgSchema();
    return {
      dbPath: resolve(args.env.cwd, db),
      target: schema === undefined ? { kind: 'postgres', url: pg } : { kind: 'postgres', url: pg, schema },
    };
  }),
  run,
};
