// `runledger serve`: the runs app on a store that exists, until Ctrl+C.
import { checkServeConfig } from '../app/startRunsServer.js';
import type { CliIo } from '../commandKit/CliIo.js';
import { CliExitCode, HELP_FLAG, STORE_SYNOPSIS, type CliFlag, STORE_FLAGS, SERVE_FLAGS } from '../commandKit/cliSurface.js';
import { describeStore, openExistingStore } from '../commandKit/openStore.js';
import { serveStore } from '../commandKit/serveStore.js';
import type { CliCommand } from '../commandKit/CliCommand.js';
import { flagParser, type StoreTarget } from '../commandKit/commandArgs.js';

/** The options of `runledger serve`, as its command line gives them. @internal */
export interface ServeOptions {
  readonly store: StoreTarget;
  readonly port: number;
  readonly host: string;
  readonly token: string | null;
}

/** Serves the store the command names until stopped. */
async function run(command: ServeOptions, io: CliIo): Promise<CliExitCode> {
  checkServeConfig(command.host, command.token);
  const store = await openExistingStore(command.store);
  try {
    await serveStore(io, store, { ...command, what: describeStore(command.store) });
  } finally {
    await store.close();
  }
  return CliExitCode.OK;
}

const FLAGS: readonly CliFlag[] = [...STORE_FLAGS, ...SERVE_FLAGS, HELP_FLAG];

/** `runledger serve`: its flags, usage, parsing, `--json` shape and run. @internal */
export const serve: CliCommand<ServeOptions> = {
  name: 'serve',
  arguments: [],
  flags: FLAGS,
  usage: {
    synopsis: `serve   ${STORE_SYNOPSIS} [--port <n>] [--host <addr>] [--token <t>]`,
    about: `Serve the runs app (default http://127.0.0.1:4310/). Any --host other than a loopback
address requires a token (--token or RUNLEDGER_TOKEN). Stops on Ctrl+C, SIGTERM or SIGHUP, or
when the process that started it exits (exit status 0); the goodbye line says which.`,
  },
  jsonOutput: null,
  parse: flagParser('serve', FLAGS, (args) => {
    args.noPositionals();
    return {
      store: args.store(),
      port: args.integer('port'),
      host: args.defaulted('host'),
      token: args.given('token') ?? (args.env.token || null),
    };
  }),
  run,
};
