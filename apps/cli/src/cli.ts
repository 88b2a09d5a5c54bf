#!/usr/bin/env node
import { closedPipeWriter } from './commandKit/closedPipeWriter.js';
import { CliStop, type CliStopCause } from './commandKit/CliStop.js';
import { listenForStopSignals } from './commandKit/listenForStopSignals.js';
import { quickAnswer } from './cli/quickAnswer.js';

// `--help`, `<command> --help` and `--version` load no command (the router and the commands load
// zod, the stores and the SDKs): their text is the router's own, written at build time.
const argv = process.argv.slice(2);
const quick = quickAnswer(argv, new URL('./cli-help.json', import.meta.url));
if (quick !== null) closedPipeWriter(process.stdout).write(quick);
else await runCommand();

/** Runs the command line with the router, until it ends or a signal stops it. */
async function runCommand(): Promise<void> {
  const { runCli } = await import('./cli/runCli.js');

  const controller = new AbortController();
  const stopOn = (cause: CliStopCause) => () => controller.abort(new CliStop(cause));
  // A second signal of the same kind ends the process the default way, unless it is the first one
  // delivered twice (the terminal's Ctrl+C and pnpm's passing it on, under `pnpm demo`).
  const stopListening = listenForStopSignals((cause) => stopOn(cause)());
  // A parent that dies without passing its signal on (npx / npm exec killed with SIGTERM kills its
  // shell, never this process) leaves us orphaned: a serving command would run on unseen, so a
  // change of parent stops it like a signal.
  const parent = process.ppid;
  const onParentExit = stopOn('parent-exited');
  const parentWatch = setInterval(() => {
    if (process.ppid !== parent) onParentExit();
  }, 500);
  parentWatch.unref();

  const code = await runCli(argv, {
    // a reader that has gone (`runledger runs show … | head -1`) drops the rest of the output: no EPIPE stack trace
    stdout: closedPipeWriter(process.stdout),
    stderr: closedPipeWriter(process.stderr),
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
  // After a stop, the signal's repeat may still be on its way (pnpm passes the Ctrl+C on late): it
  // stays ignored until the process exits.
  if (!controller.signal.aborted) stopListening();
}
