// `runledger version`, `runledger --version`: the version of @runledger/cli that runs.
import type { CliIo } from '../cli/CliIo.js';
import { CliExitCode } from '../cli/cliSurface.js';
import { cliVersion } from '../cli/cliVersion.js';

/** Prints `runledger <version>` on stdout. @internal */
export function version(io: CliIo): CliExitCode {
  io.stdout.write(`runledger ${cliVersion()}\n`);
  return CliExitCode.OK;
}
