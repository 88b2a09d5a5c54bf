// `runledger serve`: the runs app on a store that exists, until Ctrl+C.
import { resolve } from 'node:path';
import { alertEvaluatorFor, alertEveryMs, defaultAlertStatePath, evaluateEvery, type AlertFiles } from '../alerts/alertRunner.js';
import { checkServeConfig } from '../app/startRunsServer.js';
import type { CliIo } from '../commandKit/CliIo.js';
import { CliExitCode, flag, HELP_FLAG, STORE_SYNOPSIS, type CliFlag, STORE_FLAGS, SERVE_FLAGS } from '../commandKit/cliSurface.js';
import { describeStore, openExistingStore } from '../commandKit/openStore.js';
import { serveStore } from '../commandKit/serveStore.js';
import type { CliCommand } from '../commandKit/CliCommand.js';
import { flagParser, type StoreTarget } from '../commandKit/commandArgs.js';
import { UsageError } from '../commandKit/UsageError.js';

/** The options of `runledger serve`, as its command line gives them. @internal */
export interface ServeOptions {
  readonly store: StoreTarget;
  readonly port: number;
  readonly host: string;
  readonly token: string | null;
  /** `--alerts`: the alert rules to evaluate while serving, or null. */
  readonly alerts: AlertFiles | null;
  readonly alertsEveryMs: number;
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
    const evaluator = command.alerts === null ? null : alertEvaluatorFor(store, command.store, command.alerts);
    // alerts are evaluated beside the app until it stops, whether stopped or failed to start
    const stopAlerts = new AbortController();
    io.signal?.addEventListener('abort', () => stopAlerts.abort(), { once: true });
    const alerting =
      evaluator === null ? null : evaluateEvery(evaluator, command.alertsEveryMs, { ...io, signal: stopAlerts.signal }, true);
    try {
      // the servers page shows the evaluator's state file: firing alerts, recent changes
      const alertStateFile = command.alerts === null ? null : (command.alerts.state ?? defaultAlertStatePath(command.alerts.rules));
      await serveStore(io, store, { ...command, what: describeStore(command.store), alertStateFile });
    } finally {
      stopAlerts.abort();
      await alerting;
    }
  } finally {
    await store.close();
  }
  return CliExitCode.OK;
}

const FLAGS: readonly CliFlag[] = [
  ...STORE_FLAGS,
  ...SERVE_FLAGS,
  flag('alerts', '<file>'),
  flag('alerts-state', '<file>'),
  flag('alerts-every', '<span>', { default: '1m' }),
  flag('token-name', '<name>', { env: 'RUNLEDGER_TOKEN_NAME' }),
  flag('trust-user-header', '<header>'),
  HELP_FLAG,
];

/** `runledger serve`: its flags, usage, parsing, `--json` shape and run. @internal */
export const serve: CliCommand<ServeOptions> = {
  name: 'serve',
  arguments: [],
  flags: FLAGS,
  usage: {
    synopsis: `serve   ${STORE_SYNOPSIS} [--port <n>] [--host <addr>] [--token <t>] [--token-name <name>] [--trust-user-header <header>] [--alerts <file> [--alerts-state <file>] [--alerts-every <span>]]`,
    about: `Serve the runs app (default http://127.0.0.1:4310/). Any --host other than a loopback
address requires a token (--token or RUNLEDGER_TOKEN). Stops on Ctrl+C, SIGTERM or SIGHUP, or
when the process that started it exits (exit status 0); the goodbye line says which. A cancel
through the app is kept as asked by the token's name (--token-name, default "token"), or, with
--trust-user-header, by the user an authenticating proxy in front of the app names in that header.
--alerts evaluates the alert rules of a file every --alerts-every (default 1m) while serving, as
\`runledger alerts\` does (state in --alerts-state, default <rules>.state.json; see docs/alerts.md).`,
  },
  jsonOutput: null,
  parse: flagParser('serve', FLAGS, (args) => {
    args.noPositionals();
    const alerts = args.given('alerts');
    const alertsState = args.given('alerts-state');
    if (alerts === undefined && alertsState !== undefined) throw new UsageError('runledger serve: --alerts-state needs --alerts <file>');
    return {
      store: args.store(),
      port: args.integer('port'),
      host: args.defaulted('host'),
      token: args.given('token') ?? (args.env.token || null),
      alerts:
        alerts === undefined
          ? null
          : { rules: resolve(args.env.cwd, alerts), state: alertsState === undefined ? null : resolve(args.env.cwd, alertsState) },
      alertsEveryMs: alertEveryMs('serve', 'alerts-every', args.defaulted('alerts-every')),
      tokenName: tokenNameOf(args.given('token-name') ?? (args.env.tokenName || null)),
      trustUserHeader: headerOf(args.given('trust-user-header') ?? null),
    };
  }),
  run,
};
