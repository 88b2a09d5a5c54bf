#!/usr/bin/env node
import { runCli } from './cli/runCli.js';

const controller = new AbortController();
const stop = () => controller.abort();
process.once('SIGINT', stop);
process.once('SIGTERM', stop);

const code = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  // Run through pnpm (`pnpm demo`, `pnpm --filter @runledger/cli exec runledger …`), the process
  // starts in the package folder; INIT_CWD is where the user typed the command, and relative
  // paths such as the default ./runledger.db mean that folder.
  cwd: process.env['INIT_CWD'] || process.cwd(),
  signal: controller.signal,
});
process.exitCode = code;
// Child processes and pools are closed by the commands; leave nothing to keep the process alive.
process.off('SIGINT', stop);
process.off('SIGTERM', stop);
