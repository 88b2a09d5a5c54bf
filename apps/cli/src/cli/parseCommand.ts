import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { defaultSpoolDir, type PrivacyLevel, type RunStatus } from '@runledger/trace';
import type { ServerWindow } from '../viewModels/serversQuery.js';
import { CLI_COMMANDS, cliCommand, cliFlag, cliParseOptions, type HAS_CHOICES } from '../commandKit/cliSurface.js';
import { didYouMean } from '../commandKit/didYouMean.js';
import { parseOlderThan } from '../commandKit/olderThan.js';
import { parseHeaders, parseSince } from '../commandKit/otlpFlags.js';
import { parseTimeFlag } from '../commandKit/parseTimeFlag.js';
import { durationMs, reachBack } from '../commandKit/reachBack.js';
import { checkDbFlag, checkPgUrl } from '../commandKit/storeTargetChecks.js';
import { UsageError } from '../commandKit/UsageError.js';

/** Where a command's runs are stored. @internal */
export type StoreTarget =
  { readonly kind: 'sqlite'; readonly path: string } | { readonly kind: 'postgres'; readonly url: string; readonly schema?: string };

/** A parsed command line. @internal */
export type Command =
  /** The usage of every command, or of one command or group of subcommands (`runs list`, `runs`). */
  | { readonly name: 'help'; readonly topic: string | null }
  | { readonly name: 'version' }
  | { readonly name: 'serve'; readonly store: StoreTarget; readonly port: number; readonly host: string; readonly token: string | null }
  | {
      readonly name: 'demo';
      readonly dbPath: string;
      readonly port: number;
      readonly host: string;
      readonly token: string | null;
      readonly serve: boolean;
      /** The OTLP/HTTP endpoint the demo's runs are exported to, or null. */
      readonly otlp: string | null;
    }
  | {
      readonly name: 'runs-list';
      readonly store: StoreTarget;
      readonly status: RunStatus | null;
      readonly has: (typeof HAS_CHOICES)[number] | null;
      /** The exact configuration name, or null. */
      readonly configuration: string | null;
      /** Runs with an ended call to this MCP server, or null. */
      readonly server: string | null;
      /** Runs with an ended call of this tool (its exact name), or null. */
      readonly tool: string | null;
      /** Text the run's title contains, or null. */
      readonly title: string | null;
      /** Runs created at or after this time (ms since the epoch), or null. */
      readonly since: number | null;
      /** Runs created before this time (ms since the epoch), or null. */
      readonly until: number | null;
      readonly limit: number;
      readonly json: boolean;
    }
  | { readonly name: 'runs-show'; readonly store: StoreTarget; readonly id: string; readonly json: boolean }
  | { readonly name: 'runs-recover'; readonly store: StoreTarget; readonly staleAfterMs: number; readonly json: boolean }
  | { readonly name: 'runs-cancel'; readonly store: StoreTarget; readonly id: string; readonly json: boolean }
  | { readonly name: 'servers'; readonly store: StoreTarget; readonly window: ServerWindow; readonly json: boolean }
  | { readonly name: 'migrate'; readonly store: StoreTarget }
  | { readonly name: 'prune'; readonly store: StoreTarget; readonly olderThanMs: number; readonly dryRun: boolean; readonly json: boolean }
  | { readonly name: 'spool-list'; readonly spoolDir: string; readonly json: boolean }
  | {
      readonly name: 'spool-deliver';
      readonly store: StoreTarget;
      readonly spoolDir: string;
      readonly all: boolean;
      /** Rename a file that can never be delivered out of the way (`--set-aside`). */
      readonly setAside: boolean;
      readonly json: boolean;
    }
  | { readonly name: 'copy'; readonly dbPath: string; readonly target: StoreTarget & { readonly kind: 'postgres' } }
  | {
      readonly name: 'export-otlp';
      readonly store: StoreTarget;
      readonly endpoint: string;
      /** The run's id or a prefix of it (`--run`), or null for every run. */
      readonly runId: string | null;
      /** ms since the epoch, or null for every run. */
      readonly since: number | null;
      readonly headers: Readonly<Record<string, string>>;
      readonly privacy: PrivacyLevel;
      /** How long one request may take, its retries included (`--timeout`). */
      readonly timeoutMs: number;
      readonly json: boolean;
    };

/** The units of `runs recover --stale-after`. */
const STALE_AFTER_UNITS = { s: 1_000, m: 60_000, h: 3_600_000 } as const;

/** The port `serve` and `demo` listen on unless told otherwise (declared in cliSurface.ts). @internal */
export const DEFAULT_PORT = Number(cliFlag('serve', 'port').default);

/** A command's options and arguments as parsed, or its `--help`. */
type Parsed = { readonly help: true } | { readonly help: false; readonly values: Record<string, unknown>; readonly positionals: string[] };

/** What to add to a refusal when a known name is close to the one given. */
function suggestion(given: string, known: readonly string[]): string {
  const close = didYouMean(given, known);
  return close === null ? '' : `; did you mean ${JSON.stringify(close)}?`;
}

/**
 * Parses a command's options as declared in cliSurface.ts (CLI_COMMANDS), the one list of its
 * flags: `--help` anywhere before `--` asks for its usage; an unknown option is refused with the
 * closest declared one; a value that starts with `-` is a value when it is a number (`--limit -5`,
 * refused then by its range), else the flag is missing its value.
 */
function parse(args: readonly string[], command: string): Parsed {
  const flags = cliCommand(command).flags;
  const { values, positionals, tokens } = parseArgs({
    args: [...args],
    options: cliParseOptions(command),
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  // every option comes before a `--`: what follows it is positional
  const options = tokens.filter((token) => token.kind === 'option');
  if (options.some((token) => token.rawName === '--help' || token.rawName === '-h')) return { help: true };
  for (const token of options) {
    const declared = token.rawName === `--${token.name}` ? flags.find((f) => f.name === token.name) : undefined;
    if (declared === undefined) {
      const known = flags.filter((f) => f.name !== 'help').map((f) => `--${f.name}`);
      throw new UsageError(`runledger ${command}: unknown option ${JSON.stringify(token.rawName)}${suggestion(token.rawName, known)}`);
    }
    if (declared.value === null) {
      if (token.value !== undefined)
        throw new UsageError(`runledger ${command}: --${declared.name} takes no value, got ${JSON.stringify(token.value)}`);
    } else if (token.value === undefined) {
      throw new UsageError(`runledger ${command}: --${declared.name} needs a value (${declared.value})`);
    } else if (!token.inlineValue && token.value.startsWith('-') && !/^-\d/.test(token.value)) {
      throw new UsageError(
        `runledger ${command}: --${declared.name} needs a value (${declared.value}), got the option ${JSON.stringify(token.value)}; for a value that starts with "-", write --${declared.name}=${token.value}`,
      );
    }
  }
  return { help: false, values, positionals };
}

function noPositionals(positionals: readonly string[], command: string): void {
  if (positionals.length > 0) throw new UsageError(`runledger ${command}: unexpected argument ${JSON.stringify(positionals[0])}`);
}

/** The one run id (or id prefix) of `runs show` and `runs cancel`. */
function runId(positionals: readonly string[], command: string): string {
  if (positionals.length !== 1 || positionals[0] === undefined || positionals[0] === '') {
    throw new UsageError(
      positionals.length === 0 ? `runledger ${command}: missing run id` : `runledger ${command}: give exactly one run id`,
    );
  }
  return positionals[0];
}

/** A declared flag's value as given (not empty), else its declared default, within its declared choices. */
function text(values: Record<string, unknown>, command: string, name: string): string | undefined {
  const declared = cliFlag(command, name);
  const value = nonEmpty(values[name], `--${name}`, command) ?? declared.default;
  if (value !== undefined && declared.choices !== undefined && !declared.choices.includes(value)) {
    throw new UsageError(`runledger ${command}: --${name} must be one of ${declared.choices.join(', ')}, got ${JSON.stringify(value)}`);
  }
  return value;
}

/** A declared flag's value as {@link text} reads it, for a flag that declares a default (never undefined). */
function defaulted(values: Record<string, unknown>, command: string, name: string): string {
  const value = text(values, command, name);
  if (value === undefined) throw new Error(`parseCommand: ${command} --${name} must declare a default in CLI_COMMANDS`);
  return value;
}

/** A declared integer flag's value as given, else its declared default, within its declared min and max. */
function integer(values: Record<string, unknown>, command: string, name: string): number {
  const declared = cliFlag(command, name);
  const value = defaulted(values, command, name);
  if (declared.min === undefined || declared.max === undefined) {
    throw new Error(`parseCommand: ${command} --${name} must declare min and max in CLI_COMMANDS to be read as an integer`);
  }
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < declared.min || n > declared.max) {
    throw new UsageError(
      `runledger ${command}: --${name} must be an integer from ${declared.min} to ${declared.max}, got ${JSON.stringify(value)}`,
    );
  }
  return n;
}

function nonEmpty(value: unknown, option: string, command: string): string | undefined {
  if (value === undefined) return undefined;
  const text = String(value);
  if (text.trim() === '') throw new UsageError(`runledger ${command}: ${option} must not be empty`);
  return text;
}

function store(values: Record<string, unknown>, env: CommandEnv, command: string): StoreTarget {
  const db = nonEmpty(values['db'], '--db', command);
  const pg = nonEmpty(values['pg'], '--pg', command);
  const schema = pgSchema(values, command);
  if (db !== undefined && pg !== undefined) throw new UsageError(`runledger ${command}: give either --db or --pg, not both`);
  if (db !== undefined) checkDbFlag(db, command);
  const url = pg ?? (db === undefined && env.pgUrl !== undefined && env.pgUrl !== '' ? env.pgUrl : undefined);
  if (url !== undefined) checkPgUrl(url, command, pg === undefined ? 'RUNLEDGER_PG_URL' : '--pg');
  if (url !== undefined) return schema === undefined ? { kind: 'postgres', url } : { kind: 'postgres', url, schema };
  if (schema !== undefined) throw new UsageError(`runledger ${command}: --pg-schema needs --pg`);
  return { kind: 'sqlite', path: resolve(env.cwd, db ?? defaulted({}, command, 'db')) };
}

function pgSchema(values: Record<string, unknown>, command: string): string | undefined {
  const schema = nonEmpty(values['pg-schema'], '--pg-schema', command);
  if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new UsageError(`runledger ${command}: --pg-schema must match ^[a-z_][a-z0-9_]{0,62}$, got ${JSON.stringify(schema)}`);
  }
  return schema;
}

function spoolDir(values: Record<string, unknown>, env: CommandEnv, command: string): string {
  const given = nonEmpty(values['spool-dir'], '--spool-dir', command);
  return resolve(env.cwd, given ?? env.spoolDir ?? defaultSpoolDir());
}

/** The environment the parser reads defaults from. @internal */
export interface CommandEnv {
  readonly cwd: string;
  /** RUNLEDGER_TOKEN */
  readonly token?: string | undefined;
  /** RUNLEDGER_PG_URL */
  readonly pgUrl?: string | undefined;
  /** The spool folder when --spool-dir is not given (RUNLEDGER_SPOOL_DIR, else ~/.runledger/spool). */
  readonly spoolDir?: string | undefined;
}

/** The first words of the commands (`runs` for `runs list`), in their declared order. */
const FIRST_WORDS = [...new Set(CLI_COMMANDS.map((command) => command.name.split(' ')[0]!))];

/** The subcommands of a group (`list`, `show`, … of `runs`), or none for a command of one word. */
function subcommandsOf(group: string): readonly string[] {
  return CLI_COMMANDS.filter((command) => command.name.startsWith(`${group} `)).map((command) => command.name.slice(group.length + 1));
}

/** `a, b or c` */
function listed(names: readonly string[]): string {
  return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
}

/** The command (`runs list`) or group (`runs`) that `help` is asked about, checked. */
function helpTopic(words: readonly string[]): string | null {
  if (words.length === 0) return null;
  const topic = words.join(' ');
  if (CLI_COMMANDS.some((command) => command.name === topic) || subcommandsOf(topic).length > 0) return topic;
  const known = [...FIRST_WORDS, ...CLI_COMMANDS.map((command) => command.name)];
  throw new UsageError(`runledger help: there is no command ${JSON.stringify(topic)}${suggestion(topic, known)}`);
}

/**
 * Parses the CLI's arguments (after the program name) into a command.
 *
 * @throws UsageError from `parseCommand` for an unknown command or option, a missing or extra
 * argument, or a bad value, naming the command whose usage to print.
 * @throws CliSetupError from `parseCommand` for a store named wrongly (a URL as `--db`, a URL of
 * another database as `--pg`).
 * @internal
 */
export function parseCommand(argv: readonly string[], env: CommandEnv): Command {
  const [first, ...rest] = argv;
  if (first === undefined) throw new UsageError('runledger: missing command');
  const word = CLI_COMMANDS.find((command) => command.aliases?.includes(first))?.name ?? first;
  if (word === 'help') {
    const { values, positionals } = parseArgs({ args: rest, strict: false, allowPositionals: true });
    if (Object.keys(values).length > 0) throw new UsageError(`runledger help: takes a command name, not options`, 'help');
    return { name: 'help', topic: helpTopic(positionals) };
  }
  if (word === 'version') {
    if (rest.length > 0) throw new UsageError(`runledger version: unexpected argument ${JSON.stringify(rest[0])}`, 'version');
    return { name: 'version' };
  }
  if (!FIRST_WORDS.includes(word)) {
    throw new UsageError(`runledger: unknown command ${JSON.stringify(first)}${suggestion(first, FIRST_WORDS)}`);
  }
  const subcommands = subcommandsOf(word);
  let name = word;
  let args = rest;
  if (subcommands.length > 0) {
    const [sub, ...subRest] = rest;
    if (sub === '--help' || sub === '-h') return { name: 'help', topic: word };
    if (sub === undefined || !subcommands.includes(sub)) {
      throw new UsageError(
        sub === undefined
          ? `runledger ${word}: missing subcommand (${listed(subcommands)})`
          : `runledger ${word}: unknown subcommand ${JSON.stringify(sub)} (${listed(subcommands)})${suggestion(sub, subcommands)}`,
        word,
      );
    }
    name = `${word} ${sub}`;
    args = subRest;
  }
  try {
    return parseNamed(name, args, env);
  } catch (error) {
    // the messages of the value parsers (durations, times, headers) name the command; the usage printed is its own
    if (error instanceof UsageError && error.command === null) throw new UsageError(error.message, name);
    throw error;
  }
}

/** One command's arguments, parsed (`name` is a command of CLI_COMMANDS). */
function parseNamed(name: string, args: readonly string[], env: CommandEnv): Command {
  const parsed = parse(args, name);
  if (parsed.help) return { name: 'help', topic: name };
  const { values, positionals } = parsed;
  switch (name) {
    case 'serve':
      noPositionals(positionals, name);
      return {
        name,
        store: store(values, env, name),
        port: integer(values, name, 'port'),
        host: defaulted(values, name, 'host'),
        token: nonEmpty(values['token'], '--token', name) ?? (env.token || null),
      };
    case 'demo': {
      noPositionals(positionals, name);
      const db = defaulted(values, name, 'db');
      checkDbFlag(db, name);
      return {
        name,
        dbPath: resolve(env.cwd, db),
        port: integer(values, name, 'port'),
        host: defaulted(values, name, 'host'),
        token: nonEmpty(values['token'], '--token', name) ?? (env.token || null),
        serve: values['no-serve'] !== true,
        otlp: nonEmpty(values['otlp'], '--otlp', name) ?? null,
      };
    }
    case 'runs list': {
      noPositionals(positionals, name);
      const status = text(values, name, 'status') as RunStatus | undefined;
      const has = text(values, name, 'has') as (typeof HAS_CHOICES)[number] | undefined;
      const limit = integer(values, name, 'limit');
      const now = Date.now();
      const time = (flag: 'since' | 'until') => {
        const value = nonEmpty(values[flag], `--${flag}`, name);
        return value === undefined ? null : parseTimeFlag(value, now, { command: name, flag: `--${flag}` });
      };
      const since = time('since');
      const until = time('until');
      if (since !== null && until !== null && until <= since) {
        throw new UsageError(
          `runledger runs list: --until must be later than --since, got ${JSON.stringify(values['until'])} and ${JSON.stringify(values['since'])}`,
        );
      }
      return {
        name: 'runs-list',
        store: store(values, env, name),
        status: status ?? null,
        has: has ?? null,
        configuration: nonEmpty(values['configuration'], '--configuration', name) ?? null,
        server: nonEmpty(values['server'], '--server', name) ?? null,
        tool: nonEmpty(values['tool'], '--tool', name) ?? null,
        title: nonEmpty(values['title'], '--title', name) ?? null,
        since,
        until,
        limit,
        json: values['json'] === true,
      };
    }
    case 'runs show':
      return { name: 'runs-show', store: store(values, env, name), id: runId(positionals, name), json: values['json'] === true };
    case 'runs cancel':
      return { name: 'runs-cancel', store: store(values, env, name), id: runId(positionals, name), json: values['json'] === true };
    case 'runs recover': {
      noPositionals(positionals, name);
      const duration = defaulted(values, name, 'stale-after');
      const staleAfterMs = durationMs(duration, STALE_AFTER_UNITS);
      if (staleAfterMs === null || !(staleAfterMs >= 60_000)) {
        throw new UsageError(
          `runledger runs recover: --stale-after must be a duration of at least 1 minute such as 90s, 10m or 2h, got ${JSON.stringify(duration)}`,
        );
      }
      reachBack(staleAfterMs, Date.now(), STALE_AFTER_UNITS, { command: name, flag: '--stale-after', value: duration });
      return { name: 'runs-recover', store: store(values, env, name), staleAfterMs, json: values['json'] === true };
    }
    case 'servers': {
      noPositionals(positionals, name);
      const window = defaulted(values, name, 'window') as ServerWindow;
      return { name, store: store(values, env, name), window, json: values['json'] === true };
    }
    case 'migrate':
      noPositionals(positionals, name);
      return { name, store: store(values, env, name) };
    case 'prune': {
      noPositionals(positionals, name);
      const olderThan = nonEmpty(values['older-than'], '--older-than', name);
      if (olderThan === undefined) throw new UsageError('runledger prune: --older-than <duration> is required (e.g. 30d, 12h, 90m, 2w)');
      return {
        name,
        store: store(values, env, name),
        olderThanMs: parseOlderThan(olderThan, Date.now()),
        dryRun: values['dry-run'] === true,
        json: values['json'] === true,
      };
    }
    case 'spool list':
      noPositionals(positionals, name);
      return { name: 'spool-list', spoolDir: spoolDir(values, env, name), json: values['json'] === true };
    case 'spool deliver':
      noPositionals(positionals, name);
      return {
        name: 'spool-deliver',
        store: store(values, env, name),
        spoolDir: spoolDir(values, env, name),
        all: values['all'] === true,
        setAside: values['set-aside'] === true,
        json: values['json'] === true,
      };
    case 'copy': {
      noPositionals(positionals, name);
      const db = nonEmpty(values['db'], '--db', name);
      const given = nonEmpty(values['pg'], '--pg', name);
      const pg = given ?? (env.pgUrl || undefined);
      if (db === undefined) throw new UsageError('runledger copy: --db <file> (the SQLite source) is required');
      if (pg === undefined) throw new UsageError('runledger copy: --pg <url> (the PostgreSQL target) is required');
      checkDbFlag(db, name);
      checkPgUrl(pg, name, given === undefined ? 'RUNLEDGER_PG_URL' : '--pg');
      const schema = pgSchema(values, name);
      return {
        name,
        dbPath: resolve(env.cwd, db),
        target: schema === undefined ? { kind: 'postgres', url: pg } : { kind: 'postgres', url: pg, schema },
      };
    }
    case 'export otlp': {
      noPositionals(positionals, name);
      const endpoint = nonEmpty(values['endpoint'], '--endpoint', name);
      if (endpoint === undefined)
        throw new UsageError('runledger export otlp: --endpoint <url> (the OTLP/HTTP endpoint, e.g. http://127.0.0.1:4318) is required');
      const runId = nonEmpty(values['run'], '--run', name);
      const since = nonEmpty(values['since'], '--since', name);
      if (runId !== undefined && since !== undefined) throw new UsageError('runledger export otlp: give either --run or --since, not both');
      const headers = nonEmpty(values['headers'], '--headers', name);
      return {
        name: 'export-otlp',
        store: store(values, env, name),
        endpoint,
        runId: runId ?? null,
        since: since === undefined ? null : parseSince(since, Date.now()),
        headers: headers === undefined ? {} : parseHeaders(headers),
        privacy: defaulted(values, name, 'privacy') as PrivacyLevel,
        timeoutMs: integer(values, name, 'timeout'),
        json: values['json'] === true,
      };
    }
    default:
      throw new Error(`parseCommand: "${name}" is declared in CLI_COMMANDS but not parsed`);
  }
}
