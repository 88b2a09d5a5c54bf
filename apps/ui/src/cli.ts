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
  // Relative paths (the default ./runledger.db included) mean the folder the command runs in, as
  // for every npm bin: in a consumer's npm script, that package's folder — never npm's INIT_CWD,
  // which in a monorepo is the folder the user typed `npm run` in.
  cwd: process.cwd(),
  signal: controller.signal,
});
process.exitCode = code;
// Child processes and pools are closed by the commands; leave nothing to keep the process alive.
process.off('SIGINT', stop);
process.off('SIGTERM', stop);
