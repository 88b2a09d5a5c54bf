// `runledger version`, `runledger --version`: the version of @runledger/cli that runs.
import type { CliIo } from '../commandKit/CliIo.js';
import { CliExitCode } from '../commandKit/cliSurface.js';
import { cliVersion } from '../commandKit/cliVersion.js';

/** Prints `runledger <version>` on stdout. @internal */
export function version(io: CliIo): CliExitCode {
  io.stdout.write(`runledger ${cliVersion()}\n`);
  return CliExitCode.OK;
}
