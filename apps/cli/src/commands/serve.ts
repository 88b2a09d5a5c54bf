// `runledger serve`: the runs app on a store that exists, until Ctrl+C.
import { checkServeConfig } from '../app/startRunsServer.js';
import type { CliIo } from '../commandKit/CliIo.js';
import { CliExitCode, flag, HELP_FLAG, STORE_SYNOPSIS, type CliFlag, STORE_FLAGS, SERVE_FLAGS } from '../commandKit/cliSurface.js';
import { describeStore, openExistingStore } from '../commandKit/openStore.js';
import { serveStore } from '../commandKit/serveStore.js';
import type { CliCommand } from '../commandKit/CliCommand.js';
import { UsageError } from '../commandKit/UsageError.js';
import { flagParser, type StoreTarget } from '../commandKit/commandArgs.js';

/** The options of `runledger serve`, as its command line gives them. @internal */
export interface ServeOptions {
  readonly store: StoreTarget;
  readonly port: number;
  readonly host: string;
  readonly token: string | null;
  /** The token's name: who asked for a cancel through the app (default `token`). */
  readonly tokenName: string | null;
  /** The header an authenticating proxy names its user in, trusted for who asked; null: none. */
  readonly trustUserHeader: string | null;
}

/** An HTTP header name (RFC 9110 token characters). */
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/;

/** --token-name by the rule of who asked for a cancel (1 to 200 characters, no control characters). */
function tokenNameOf(name: string | null): string | null {
  if (name !== null && (name.length > 200 || /\p{Cc}/u.test(name))) {
    throw new UsageError('runledger serve: --token-name must be 1 to 200 characters without control characters');
  }
  return name;
}

/** --trust-user-header: an HTTP header name. */
function headerOf(name: string | null): string | null {
  if (name !== null && !HEADER_NAME.test(name)) {
    throw new UsageError(`runledger serve: --trust-user-header must be an HTTP header name, got ${JSON.stringify(name)}`);
  }
  return name;
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

const FLAGS: readonly CliFlag[] = [
  ...STORE_FLAGS,
  ...SERVE_FLAGS,
  flag('token-name', '<name>'),
  flag('trust-user-header', '<header>'),
  HELP_FLAG,
];

/** `runledger serve`: its flags, usage, parsing, `--json` shape and run. @internal */
export const serve: CliCommand<ServeOptions> = {
  name: 'serve',
  arguments: [],
  flags: FLAGS,
  usage: {
    synopsis: `serve   ${STORE_SYNOPSIS} [--port <n>] [--host <addr>] [--token <t>] [--token-name <name>] [--trust-user-header <header>]`,
    about: `Serve the runs app (default http://127.0.0.1:4310/). Any --host other than a loopback
address requires a token (--token or RUNLEDGER_TOKEN). Stops on Ctrl+C, SIGTERM or SIGHUP, or
when the process that started it exits (exit status 0); the goodbye line says which. A cancel
through the app is kept as asked by the token's name (--token-name, default "token"), or, with
--trust-user-header, by the user an authenticating proxy in front of the app names in that header.`,
  },
  jsonOutput: null,
  parse: flagParser('serve', FLAGS, (args) => {
    args.noPositionals();
    return {
      store: args.store(),
      port: args.integer('port'),
      host: args.defaulted('host'),
      token: args.given('token') ?? (args.env.token || null),
      tokenName: tokenNameOf(args.given('token-name') ?? null),
      trustUserHeader: headerOf(args.given('trust-user-header') ?? null),
    };
  }),
  run,
};
