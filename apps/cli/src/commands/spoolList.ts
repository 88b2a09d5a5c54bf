// `runledger spool list`: the spool files recording processes left, as a table or JSON.
import { inspectSpool } from '@runledger/trace';
import type { CliIo } from '../commandKit/CliIo.js';
import { CliExitCode, flag, HELP_FLAG, JSON_FLAG, SPOOL_DIR_FLAG, type CliFlag } from '../commandKit/cliSurface.js';
import { writeCliJson, count, spoolFile } from '../commandKit/cliJsonOutputs.js';
import { terminalTable } from '../commandKit/terminalTable.js';
import { terminalLine } from '../commandKit/terminalText.js';
import type { CliCommand } from '../commandKit/CliCommand.js';
import { flagParser } from '../commandKit/commandArgs.js';
import { badCursorError, decodeListingCursor, encodeListingCursor } from '../commandKit/listingCursor.js';
import { z } from 'zod';

/** The options of `runledger spool list`, as its command line gives them. @internal */
export interface SpoolListOptions {
  readonly spoolDir: string;
  /** The most files to list: 1 to 1000. */
  readonly limit: number;
  /** The path of the last file of the page before (decoded from its `nextCursor`), or null for the first page. */
  readonly after: string | null;
  readonly json: boolean;
}

/** The cursor of the page after the file at `path` (the files are listed in the order of their paths). */
const cursorAfter = (path: string): string => encodeListingCursor({ after: path });

/** The path a `--cursor` made by {@link cursorAfter} names, or null when it is not one. */
function pathOfCursor(cursor: string): string | null {
  const after = decodeListingCursor(cursor)?.['after'];
  return typeof after === 'string' && after !== '' ? after : null;
}

/** The shape of `runledger spool list --json`. */
const JSON_OUTPUT = z.object({
  dir: z.string(),
  files: z.array(z.object({ ...spoolFile, alive: z.boolean(), runs: count })),
  nextCursor: z.string().nullable().describe('pass as --cursor for the next page; null on the last page'),
});

/** Lists the spool files of the command's spool folder. */
async function run(command: SpoolListOptions, io: CliIo): Promise<CliExitCode> {
  const after = command.after;
  const sorted = [...(await inspectSpool(command.spoolDir))].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const rest = after === null ? sorted : sorted.filter((file) => file.path > after);
  const files = rest.slice(0, command.limit);
  const nextCursor = rest.length > files.length ? cursorAfter(files.at(-1)!.path) : null;
  if (command.json) {
    writeCliJson(io, JSON_OUTPUT, { dir: command.spoolDir, files, nextCursor });
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
  if (nextCursor !== null) io.stdout.write(`(more spool files: the next page is --cursor ${nextCursor})\n`);
  return CliExitCode.OK;
}

const FLAGS: readonly CliFlag[] = [
  SPOOL_DIR_FLAG,
  flag('limit', '<n>', { min: 1, max: 1000, default: '100' }),
  flag('cursor', '<cursor>'),
  JSON_FLAG,
  HELP_FLAG,
];

/** `runledger spool list`: its flags, usage, parsing, `--json` shape and run. @internal */
export const spoolList: CliCommand<SpoolListOptions, typeof JSON_OUTPUT> = {
  name: 'spool list',
  arguments: [],
  flags: FLAGS,
  usage: {
    synopsis: 'spool list [--spool-dir <dir>] [--limit <n>] [--cursor <cursor>] [--json]',
    about: `List the steps and final statuses that recording processes spooled while their store
could not take them (default dir: RUNLEDGER_SPOOL_DIR, else ~/.runledger/spool), by path
(--limit 1 to 1000, default 100; --cursor: the nextCursor of the page before).`,
  },
  jsonOutput: JSON_OUTPUT,
  parse: flagParser('spool list', FLAGS, (args) => {
    args.noPositionals();
    const cursor = args.given('cursor');
    const after = cursor === undefined ? null : pathOfCursor(cursor);
    if (cursor !== undefined && after === null) throw badCursorError('spool list', cursor);
    return { spoolDir: args.spoolDir(), limit: args.integer('limit'), after, json: args.has('json') };
  }),
  run,
};
