/**
 * The frozen surface of the `runledger` command line, declared once: its commands, their
 * arguments and flags, the environment variables it reads and its exit codes. The parser builds
 * its options from it ({@link cliParseOptions}), the usage text is checked against it, and
 * `pnpm api:update` writes it (with the JSON Schema of every `--json` output) into
 * `api-reports/cli.cli.json`, where the API gate classifies every change.
 */

/**
 * The CLI's exit codes: a closed vocabulary (a const object and a same-named union type).
 *
 * @public
 */
export const CliExitCode = {
  /** The command did what it was asked (serve and demo also end with 0 on Ctrl+C). */
  OK: 0,
  /** The command failed: no such run, a store that is missing or refused, a spool file kept. */
  FAILED: 1,
  /** A command line it does not understand, or a setup to fix first (a non-loopback host without a token, an optional package not installed). */
  USAGE: 2,
} as const;

/** One of the CLI's exit codes: 0, 1 or 2. @public */
export type CliExitCode = (typeof CliExitCode)[keyof typeof CliExitCode];

/** What each exit code means, as `api-reports/cli.cli.json` records it. @internal */
export const CLI_EXIT_CODE_MEANINGS: Readonly<Record<CliExitCode, string>> = {
  0: 'success (serve and demo also exit 0 when stopped with Ctrl+C)',
  1: 'the command failed (no such run, a missing or unreachable store, a spool file kept)',
  2: 'usage or setup error: a command line it does not understand (the usage is printed), a serve setup to fix (a non-loopback host without a token), an optional package not installed (@runledger/store-postgres for --pg)',
};

/** One flag of a command. @internal */
export interface CliFlag {
  /** Without the leading `--`. */
  readonly name: string;
  /** The placeholder of its value (`<file>`), or null for a boolean switch. */
  readonly value: string | null;
  /** The command line is refused without it. */
  readonly required: boolean;
  /** The environment variable read when the flag is not given. */
  readonly env?: string;
}

/** One positional argument of a command. @internal */
export interface CliArgument {
  readonly name: string;
  readonly required: boolean;
}

/** One command (a subcommand is named with its parent: `runs list`). @internal */
export interface CliCommand {
  readonly name: string;
  /** Other spellings of the command (`--help` for `help`). */
  readonly aliases?: readonly string[];
  readonly arguments: readonly CliArgument[];
  readonly flags: readonly CliFlag[];
  /** Whether `--json` prints a machine-readable result (its shape is in cliJsonOutputs.ts). */
  readonly json: boolean;
}

const flag = (name: string, value: string | null, extra: { required?: boolean; env?: string } = {}): CliFlag => ({
  name,
  value,
  required: extra.required ?? false,
  ...(extra.env === undefined ? {} : { env: extra.env }),
});

const STORE_FLAGS: readonly CliFlag[] = [flag('db', '<file>'), flag('pg', '<url>', { env: 'RUNLEDGER_PG_URL' }), flag('pg-schema', '<name>')];
const JSON_FLAG = flag('json', null);
const SERVE_FLAGS: readonly CliFlag[] = [flag('port', '<n>'), flag('host', '<addr>'), flag('token', '<t>', { env: 'RUNLEDGER_TOKEN' })];
const SPOOL_DIR = flag('spool-dir', '<dir>', { env: 'RUNLEDGER_SPOOL_DIR' });

/** Every command of the CLI. @internal */
export const CLI_COMMANDS: readonly CliCommand[] = [
  { name: 'help', aliases: ['--help', '-h'], arguments: [], flags: [], json: false },
  { name: 'serve', arguments: [], flags: [...STORE_FLAGS, ...SERVE_FLAGS], json: false },
  { name: 'demo', arguments: [], flags: [flag('db', '<file>'), ...SERVE_FLAGS, flag('no-serve', null)], json: false },
  {
    name: 'runs list',
    arguments: [],
    flags: [...STORE_FLAGS, flag('status', '<status>'), flag('has', 'failed|cancelled'), flag('limit', '<n>'), JSON_FLAG],
    json: true,
  },
  { name: 'runs show', arguments: [{ name: 'id', required: true }], flags: [...STORE_FLAGS, JSON_FLAG], json: true },
  { name: 'runs recover', arguments: [], flags: [...STORE_FLAGS, flag('stale-after', '<duration>'), JSON_FLAG], json: true },
  { name: 'servers', arguments: [], flags: [...STORE_FLAGS, flag('window', '24h|7d|all'), JSON_FLAG], json: true },
  { name: 'migrate', arguments: [], flags: STORE_FLAGS, json: false },
  { name: 'spool list', arguments: [], flags: [SPOOL_DIR, JSON_FLAG], json: true },
  { name: 'spool deliver', arguments: [], flags: [...STORE_FLAGS, SPOOL_DIR, flag('all', null), JSON_FLAG], json: true },
  { name: 'copy', arguments: [], flags: [flag('db', '<file>', { required: true }), flag('pg', '<url>', { env: 'RUNLEDGER_PG_URL' }), flag('pg-schema', '<name>')], json: false },
];

/** The names of the commands that print JSON with `--json`. @internal */
export type CliJsonCommand = 'runs list' | 'runs show' | 'runs recover' | 'servers' | 'spool list' | 'spool deliver';

/**
 * The declaration of one command.
 *
 * @throws Error from `cliCommand` when the name is not a command of {@link CLI_COMMANDS}.
 * @internal
 */
export function cliCommand(name: string): CliCommand {
  const command = CLI_COMMANDS.find((c) => c.name === name);
  if (command === undefined) throw new Error(`cliCommand: "${name}" is not a command of CLI_COMMANDS`);
  return command;
}

/** The `node:util` parseArgs options of a command, built from its declaration. @internal */
export function cliParseOptions(name: string): Record<string, { type: 'string' | 'boolean' }> {
  return Object.fromEntries(cliCommand(name).flags.map((f) => [f.name, { type: f.value === null ? 'boolean' : 'string' }]));
}
