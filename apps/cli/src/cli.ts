#!/usr/bin/env node
import { CliStop, type CliStopCause } from './cli/CliStop.js';
import { runCli } from './cli/runCli.js';

const controller = new AbortController();
const stopOn = (cause: CliStopCause) => () => controller.abort(new CliStop(cause));
// Once each: a second signal of the same kind ends the process the default way.
const onSignal = { SIGINT: stopOn('SIGINT'), SIGTERM: stopOn('SIGTERM'), SIGHUP: stopOn('SIGHUP') } as const;
for (const [name, listener] of Object.entries(onSignal)) process.once(name, listener);
// A parent that dies without passing its signal on (npx / npm exec killed with SIGTERM kills its
// shell, never this process) leaves us orphaned: a serving command would run on unseen, so a
// change of parent stops it like a signal.
const parent = process.ppid;
const onParentExit = stopOn('parent-exited');
const parentWatch = setInterval(() => {
  if (process.ppid !== parent) onParentExit();
}, 500);
parentWatch.unref();

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
clearInterval(parentWatch);
for (const [name, listener] of Object.entries(onSignal)) process.off(name, listener);
