import { PRIVACY_LEVELS, PrivacyLevel, RUN_STATUSES } from '@runledger/trace';
import { DEFAULT_SERVERS_QUERY, SERVER_WINDOWS } from '../viewModels/serversQuery.js';

/**
 * The frozen surface of the `runledger` command line, declared once: its commands, their
 * arguments and flags (with the values they accept and their defaults), the environment variables
 * it reads and its exit codes. The parser builds
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

const flag = (
  name: string,
  value: string | null,
  extra: Omit<CliFlag, 'name' | 'value' | 'required'> & { required?: boolean } = {},
): CliFlag => ({
  ...extra,
  name,
  value,
  required: extra.required ?? false,
});

/** What `runs list --has` accepts. @internal */
export const HAS_CHOICES = ['ok', 'failed', 'cancelled'] as const;

const DB_FLAG = flag('db', '<file>', { default: 'runledger.db' });
const STORE_FLAGS: readonly CliFlag[] = [DB_FLAG, flag('pg', '<url>', { env: 'RUNLEDGER_PG_URL' }), flag('pg-schema', '<name>')];
const JSON_FLAG = flag('json', null);
/** Every command but `help` and `version` takes `--help`: it prints that command's usage and exits 0. */
const HELP_FLAG = flag('help', null);
const SERVE_FLAGS: readonly CliFlag[] = [
  flag('port', '<n>', { min: 0, max: 65535, default: '4310' }),
  flag('host', '<addr>', { default: '127.0.0.1' }),
  flag('token', '<t>', { env: 'RUNLEDGER_TOKEN' }),
];
const SPOOL_DIR = flag('spool-dir', '<dir>', { env: 'RUNLEDGER_SPOOL_DIR' });

/** Every command of the CLI. @internal */
export const CLI_COMMANDS: readonly CliCommand[] = [
  { name: 'help', aliases: ['--help', '-h'], arguments: [{ name: 'command', required: false }], flags: [], json: false },
  { name: 'version', aliases: ['--version'], arguments: [], flags: [], json: false },
  { name: 'serve', arguments: [], flags: [...STORE_FLAGS, ...SERVE_FLAGS, HELP_FLAG], json: false },
  {
    name: 'demo',
    arguments: [],
    flags: [DB_FLAG, ...SERVE_FLAGS, flag('no-serve', null), flag('otlp', '<url>'), HELP_FLAG],
    json: false,
  },
  {
    name: 'runs list',
    arguments: [],
    flags: [
      ...STORE_FLAGS,
      flag('status', '<status>', { choices: RUN_STATUSES }),
      flag('has', HAS_CHOICES.join('|'), { choices: HAS_CHOICES }),
      flag('configuration', '<name>'),
      flag('server', '<id>'),
      flag('tool', '<name>'),
      flag('title', '<text>'),
      flag('since', '<time>'),
      flag('until', '<time>'),
      flag('limit', '<n>', { min: 1, max: 200, default: '20' }),
      JSON_FLAG,
      HELP_FLAG,
    ],
    json: true,
  },
  { name: 'runs show', arguments: [{ name: 'id', required: true }], flags: [...STORE_FLAGS, JSON_FLAG, HELP_FLAG], json: true },
  {
    name: 'runs recover',
    arguments: [],
    flags: [...STORE_FLAGS, flag('stale-after', '<duration>', { default: '10m' }), JSON_FLAG, HELP_FLAG],
    json: true,
  },
  { name: 'runs cancel', arguments: [{ name: 'id', required: true }], flags: [...STORE_FLAGS, JSON_FLAG, HELP_FLAG], json: true },
  {
    name: 'servers',
    arguments: [],
    flags: [
      ...STORE_FLAGS,
      flag('window', SERVER_WINDOWS.join('|'), { choices: SERVER_WINDOWS, default: DEFAULT_SERVERS_QUERY.window }),
      JSON_FLAG,
      HELP_FLAG,
    ],
    json: true,
  },
  { name: 'migrate', arguments: [], flags: [...STORE_FLAGS, HELP_FLAG], json: false },
  {
    name: 'prune',
    arguments: [],
    flags: [...STORE_FLAGS, flag('older-than', '<duration>', { required: true }), flag('dry-run', null), JSON_FLAG, HELP_FLAG],
    json: true,
  },
  { name: 'spool list', arguments: [], flags: [SPOOL_DIR, JSON_FLAG, HELP_FLAG], json: true },
  {
    name: 'spool deliver',
    arguments: [],
    flags: [...STORE_FLAGS, SPOOL_DIR, flag('all', null), flag('set-aside', null), JSON_FLAG, HELP_FLAG],
    json: true,
  },
  {
    name: 'copy',
    arguments: [],
    flags: [
      flag('db', '<file>', { required: true }),
      flag('pg', '<url>', { env: 'RUNLEDGER_PG_URL' }),
      flag('pg-schema', '<name>'),
      HELP_FLAG,
    ],
    json: false,
  },
  {
    name: 'export otlp',
    arguments: [],
    flags: [
      ...STORE_FLAGS,
      flag('endpoint', '<url>', { required: true }),
      flag('run', '<id>'),
      flag('since', '<time>'),
      flag('headers', '<k=v,...>'),
      flag('privacy', '<level>', { choices: PRIVACY_LEVELS, default: PrivacyLevel.METADATA }),
      flag('timeout', '<ms>', { min: 1, max: 3_600_000, default: '10000' }),
      JSON_FLAG,
      HELP_FLAG,
    ],
    json: true,
  },
];

/** The names of the commands that print JSON with `--json`. @internal */
export type CliJsonCommand =
  'runs list' | 'runs show' | 'runs recover' | 'runs cancel' | 'prune' | 'servers' | 'spool list' | 'spool deliver' | 'export otlp';

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

/**
 * The declaration of one flag of one command.
 *
 * @throws Error from `cliFlag` when the command does not declare that flag.
 * @internal
 */
export function cliFlag(command: string, name: string): CliFlag {
  const declared = cliCommand(command).flags.find((f) => f.name === name);
  if (declared === undefined) throw new Error(`cliFlag: "${command}" declares no flag --${name} in CLI_COMMANDS`);
  return declared;
}
