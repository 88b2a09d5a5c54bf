// `runledger spool list`: the spool files recording processes left, as a table or JSON.
import { inspectSpool } from '@runledger/trace';
import type { CliIo } from '../commandKit/CliIo.js';
import { CliExitCode, HELP_FLAG, JSON_FLAG, SPOOL_DIR_FLAG, type CliFlag } from '../commandKit/cliSurface.js';
import { writeCliJson, count, spoolFile } from '../commandKit/cliJsonOutputs.js';
import { terminalTable } from '../commandKit/terminalTable.js';
import { terminalLine } from '../commandKit/terminalText.js';
import type { CliCommand } from '../commandKit/CliCommand.js';
import { flagParser } from '../commandKit/commandArgs.js';
import { z } from 'zod';

/** The options of `runledger spool list`, as its command line gives them. @internal */
export interface SpoolListOptions {
  readonly spoolDir: string;
  readonly json: boolean;
}

/** The shape of `runledger spool list --json`. */
const JSON_OUTPUT = z.object({ dir: z.string(), files: z.array(z.object({ ...spoolFile, alive: z.boolean(), runs: count })) });

/** Lists the spool files of the command's spool folder. */
async function run(command: SpoolListOptions, io: CliIo): Promise<CliExitCode> {
  const files = await inspectSpool(command.spoolDir);
  if (command.json) {
    writeCliJson(io, JSON_OUTPUT, { dir: command.spoolDir, files });
    return CliExitCode.OK;
  }
  if (files.length === 0) {
    io.stdout.write(terminalLine`no spool files in ${command.spoolDir}\n`);
    return CliExitCode.OK;
  }
  io.stdout.write(
    terminalTable(
      ['FILE', 'PROCESS', 'STEPS', 'FINAL STATUSES', 'RUNS', 'LOST'],
      files.map((file) => [
        file.path,
        `${file.pid ?? '?'}${file.alive ? ' (alive)' : ''}`,
        String(file.steps),
        String(file.finishes),
        String(file.runs),
        // acknowledged entries the file does not hold any more (it was cut short)
        String(file.lost),
      ]),
      [2, 3, 4, 5],
      // a file's path is copied to deliver or remove it: never cut
      { whole: [0] },
    ),
  );
  return CliExitCode.OK;
}

const FLAGS: readonly CliFlag[] = [SPOOL_DIR_FLAG, JSON_FLAG, HELP_FLAG];

/** `runledger spool list`: its flags, usage, parsing, `--json` shape and run. @internal */
export const spoolList: CliCommand<SpoolListOptions, typeof JSON_OUTPUT> = {
  name: 'spool list',
  arguments: [],
  flags: FLAGS,
  usage: {
    synopsis: 'spool list [--spool-dir <dir>] [--json]',
    about: `List the steps and final statuses that recording processes spooled while their store
could not take them (default dir: RUNLEDGER_SPOOL_DIR, else ~/.runledger/spool).`,
  },
  jsonOutput: JSON_OUTPUT,
  parse: flagParser('spool list', FLAGS, (args) => {
    args.noPositionals();
    return { spoolDir: args.spoolDir(), json: args.has('json') };
  }),
  run,
};
