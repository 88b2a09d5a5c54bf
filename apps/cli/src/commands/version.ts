// `runledger version`, `runledger --version`: the version of @runledger/cli that runs.
import type { CliCommand } from '../commandKit/CliCommand.js';
import type { CliIo } from '../commandKit/CliIo.js';
import { CliExitCode } from '../commandKit/cliSurface.js';
import { cliVersion } from '../commandKit/cliVersion.js';
import { UsageError } from '../commandKit/UsageError.js';

/** `version` takes no options. @internal */
export type VersionOptions = Readonly<Record<string, never>>;

/** What `runledger version` prints: `runledger <version>` and a newline. @internal */
export const versionLine = (): string => `runledger ${cliVersion()}\n`;

/** Prints `runledger <version>` on stdout. */
function run(_options: VersionOptions, io: CliIo): CliExitCode {
  io.stdout.write(versionLine());
  return CliExitCode.OK;
}

/** `runledger version`: no arguments, no flags (not even `--help`). @internal */
export const version: CliCommand<VersionOptions> = {
  name: 'version',
  aliases: ['--version'],
  arguments: [],
  flags: [],
  usage: { synopsis: 'version', about: 'Print the version of runledger (also --version).' },
  jsonOutput: null,
  parse(args) {
    if (args.length > 0) throw new UsageError(`runledger version: unexpected argument ${JSON.stringify(args[0])}`, 'version');
    return {};
  },
  run,
};
