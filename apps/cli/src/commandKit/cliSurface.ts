/**
 * What the frozen surface of the `runledger` command line is declared with: its exit codes, the
 * shape of a flag and of an argument, and the flags several commands share. Each command declares
 * its own flags in its module (src/commands/, see CliCommand.ts); the router (src/cli/) lists the
 * modules, and `pnpm api:update` writes what they declare (with the JSON Schema of every `--json`
 * output) into `api-reports/cli.cli.json`, where the API gate classifies every change.
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
  /** A command line it does not understand, or a setup to fix first (a non-loopback host without a token, a store named wrongly, an optional package not installed). */
  USAGE: 2,
} as const;

/** One of the CLI's exit codes: 0, 1 or 2. @public */
export type CliExitCode = (typeof CliExitCode)[keyof typeof CliExitCode];

/** The stable id of an exit code (`OK`, `FAILED`, `USAGE`): a key of {@link CliExitCode}. @internal */
export type CliExitCodeId = keyof typeof CliExitCode;

/** What each exit code means, as `api-reports/cli.cli.json` records it. @internal */
export const CLI_EXIT_CODE_MEANINGS: Readonly<Record<CliExitCode, string>> = {
  0: 'success (serve and demo also exit 0 when stopped with Ctrl+C)',
  1: 'the command failed (no such run, runs cancel of a run that has already ended, a missing or unreachable store, a spool file kept)',
  2: 'usage or setup error: a command line it does not understand (the usage of the command is printed), a serve setup to fix (a non-loopback host without a token), a store named wrongly (a folder or a URL as --db, a URL that is not PostgreSQL or whose host does not resolve as --pg), an optional package not installed (@runledger/store-postgres for --pg)',
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
  /** The only values it accepts (the parser refuses any other). */
  readonly choices?: readonly string[];
  /** The smallest integer it accepts (an integer flag). */
  readonly min?: number;
  /** The largest integer it accepts (an integer flag). */
  readonly max?: number;
  /** The value used when it is not given (and its environment variable is not set), as typed. */
  readonly default?: string;
}

/** One positional argument of a command. @internal */
export interface CliArgument {
  readonly name: string;
  readonly required: boolean;
}

/** A flag's declaration (not required unless said). @internal */
export const flag = (
  name: string,
  value: string | null,
  extra: Omit<CliFlag, 'name' | 'value' | 'required'> & { required?: boolean } = {},
): CliFlag => ({
  ...extra,
  name,
  value,
  required: extra.required ?? false,
});

/** `--db <file>`: a SQLite file, default ./runledger.db (alone: `demo`; with --pg: {@link STORE_FLAGS}). @internal */
export const DB_FLAG = flag('db', '<file>', { default: 'runledger.db' });
/** The flags that name a command's store: `--db`, `--pg`, `--pg-schema`. @internal */
export const STORE_FLAGS: readonly CliFlag[] = [DB_FLAG, flag('pg', '<url>', { env: 'RUNLEDGER_PG_URL' }), flag('pg-schema', '<name>')];
/** `--json`: the command prints its result as JSON of its declared schema. @internal */
export const JSON_FLAG = flag('json', null);
/** Every command but `help` and `version` takes `--help`: it prints that command's usage and exits 0. @internal */
export const HELP_FLAG = flag('help', null);
/** The flags of the commands that serve the app: `--port`, `--host`, `--token`. @internal */
export const SERVE_FLAGS: readonly CliFlag[] = [
  flag('port', '<n>', { min: 0, max: 65535, default: '4310' }),
  flag('host', '<addr>', { default: '127.0.0.1' }),
  flag('token', '<t>', { env: 'RUNLEDGER_TOKEN' }),
];
/** `--spool-dir <dir>` of the spool commands. @internal */
export const SPOOL_DIR_FLAG = flag('spool-dir', '<dir>', { env: 'RUNLEDGER_SPOOL_DIR' });
/** How a synopsis names the store flags (the usage's Store paragraph says the rest). @internal */
export const STORE_SYNOPSIS = '[--db <file> | --pg <url>]';
