import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { defaultSpoolDir, type PrivacyLevel, type RunStatus } from '@runledger/trace';
import { cliFlag, cliParseOptions, type HAS_CHOICES, type WINDOW_CHOICES } from './cliSurface.js';
import { parseOlderThan } from './olderThan.js';
import { parseHeaders, parseSince } from './otlpFlags.js';
import { durationMs, reachBack } from './reachBack.js';
import { UsageError } from './UsageError.js';

/** Where a command's runs are stored. @internal */
export type StoreTarget =
  { readonly kind: 'sqlite'; readonly path: string } | { readonly kind: 'postgres'; readonly url: string; readonly schema?: string };

/** A parsed command line. @internal */
export type Command =
  | { readonly name: 'help' }
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
      readonly limit: number;
      readonly json: boolean;
    }
  | { readonly name: 'runs-show'; readonly store: StoreTarget; readonly id: string; readonly json: boolean }
  | { readonly name: 'runs-recover'; readonly store: StoreTarget; readonly staleAfterMs: number; readonly json: boolean }
  | { readonly name: 'servers'; readonly store: StoreTarget; readonly window: (typeof WINDOW_CHOICES)[number]; readonly json: boolean }
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

/** Parses a command's options as declared in cliSurface.ts (CLI_COMMANDS), the one list of its flags. */
function parse(args: readonly string[], command: string) {
  try {
    return parseArgs({ args: [...args], options: cliParseOptions(command), strict: true, allowPositionals: true });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new UsageError(`runledger ${command}: ${message}`);
  }
}

function noPositionals(positionals: readonly string[], command: string): void {
  if (positionals.length > 0) throw new UsageError(`runledger ${command}: unexpected argument ${JSON.stringify(positionals[0])}`);
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
  const url = pg ?? (db === undefined && env.pgUrl !== undefined && env.pgUrl !== '' ? env.pgUrl : undefined);
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

/**
 * Parses the CLI's arguments (after the program name) into a command.
 *
 * @throws UsageError from `parseCommand` for an unknown command or option, a missing or extra argument, or a bad value.
 * @internal
 */
export function parseCommand(argv: readonly string[], env: CommandEnv): Command {
  const [name, ...rest] = argv;
  switch (name) {
    case undefined:
      throw new UsageError('runledger: missing command');
    case 'help':
    case '--help':
    case '-h':
      return { name: 'help' };
    case 'serve': {
      const { values, positionals } = parse(rest, name);
      noPositionals(positionals, name);
      return {
        name,
        store: store(values, env, name),
        port: integer(values, name, 'port'),
        host: defaulted(values, name, 'host'),
        token: nonEmpty(values['token'], '--token', name) ?? (env.token || null),
      };
    }
    case 'demo': {
      const { values, positionals } = parse(rest, name);
      noPositionals(positionals, name);
      return {
        name,
        dbPath: resolve(env.cwd, defaulted(values, name, 'db')),
        port: integer(values, name, 'port'),
        host: defaulted(values, name, 'host'),
        token: nonEmpty(values['token'], '--token', name) ?? (env.token || null),
        serve: values['no-serve'] !== true,
        otlp: nonEmpty(values['otlp'], '--otlp', name) ?? null,
      };
    }
    case 'runs': {
      const [sub, ...subRest] = rest;
      if (sub === 'list') {
        const { values, positionals } = parse(subRest, 'runs list');
        noPositionals(positionals, 'runs list');
        const status = text(values, 'runs list', 'status') as RunStatus | undefined;
        const has = text(values, 'runs list', 'has') as (typeof HAS_CHOICES)[number] | undefined;
        const limit = integer(values, 'runs list', 'limit');
        return {
          name: 'runs-list',
          store: store(values, env, 'runs list'),
          status: status ?? null,
          has: has ?? null,
          limit,
          json: values['json'] === true,
        };
      }
      if (sub === 'show') {
        const { values, positionals } = parse(subRest, 'runs show');
        if (positionals.length !== 1 || positionals[0] === undefined || positionals[0] === '') {
          throw new UsageError(
            positionals.length === 0 ? 'runledger runs show: missing run id' : 'runledger runs show: give exactly one run id',
          );
        }
        return { name: 'runs-show', store: store(values, env, 'runs show'), id: positionals[0], json: values['json'] === true };
      }
      if (sub === 'recover') {
        const { values, positionals } = parse(subRest, 'runs recover');
        noPositionals(positionals, 'runs recover');
        const duration = defaulted(values, 'runs recover', 'stale-after');
        const staleAfterMs = durationMs(duration, STALE_AFTER_UNITS);
        if (staleAfterMs === null || !(staleAfterMs >= 60_000)) {
          throw new UsageError(
            `runledger runs recover: --stale-after must be a duration of at least 1 minute such as 90s, 10m or 2h, got ${JSON.stringify(duration)}`,
          );
        }
        reachBack(staleAfterMs, Date.now(), STALE_AFTER_UNITS, { command: 'runs recover', flag: '--stale-after', value: duration });
        return { name: 'runs-recover', store: store(values, env, 'runs recover'), staleAfterMs, json: values['json'] === true };
      }
      throw new UsageError(
        sub === undefined
          ? 'runledger runs: missing subcommand (list, show or recover)'
          : `runledger runs: unknown subcommand ${JSON.stringify(sub)} (list, show or recover)`,
      );
    }
    case 'servers': {
      const { values, positionals } = parse(rest, name);
      noPositionals(positionals, name);
      const window = defaulted(values, name, 'window') as (typeof WINDOW_CHOICES)[number];
      return { name, store: store(values, env, name), window, json: values['json'] === true };
    }
    case 'migrate': {
      const { values, positionals } = parse(rest, name);
      noPositionals(positionals, name);
      return { name, store: store(values, env, name) };
    }
    case 'prune': {
      const { values, positionals } = parse(rest, name);
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
    case 'spool': {
      const [sub, ...subRest] = rest;
      if (sub === 'list') {
        const { values, positionals } = parse(subRest, 'spool list');
        noPositionals(positionals, 'spool list');
        return { name: 'spool-list', spoolDir: spoolDir(values, env, 'spool list'), json: values['json'] === true };
      }
      if (sub === 'deliver') {
        const { values, positionals } = parse(subRest, 'spool deliver');
        noPositionals(positionals, 'spool deliver');
        return {
          name: 'spool-deliver',
          store: store(values, env, 'spool deliver'),
          spoolDir: spoolDir(values, env, 'spool deliver'),
          all: values['all'] === true,
          setAside: values['set-aside'] === true,
          json: values['json'] === true,
        };
      }
      throw new UsageError(
        sub === undefined
          ? 'runledger spool: missing subcommand (list or deliver)'
          : `runledger spool: unknown subcommand ${JSON.stringify(sub)} (list or deliver)`,
      );
    }
    case 'copy': {
      const { values, positionals } = parse(rest, name);
      noPositionals(positionals, name);
      const db = nonEmpty(values['db'], '--db', name);
      const pg = nonEmpty(values['pg'], '--pg', name) ?? (env.pgUrl || undefined);
      if (db === undefined) throw new UsageError('runledger copy: --db <file> (the SQLite source) is required');
      if (pg === undefined) throw new UsageError('runledger copy: --pg <url> (the PostgreSQL target) is required');
      const schema = pgSchema(values, name);
      return {
        name,
        dbPath: resolve(env.cwd, db),
        target: schema === undefined ? { kind: 'postgres', url: pg } : { kind: 'postgres', url: pg, schema },
      };
    }
    case 'export': {
      const [sub, ...subRest] = rest;
      if (sub !== 'otlp') {
        throw new UsageError(
          sub === undefined
            ? 'runledger export: missing subcommand (otlp)'
            : `runledger export: unknown subcommand ${JSON.stringify(sub)} (otlp)`,
        );
      }
      const command = 'export otlp';
      const { values, positionals } = parse(subRest, command);
      noPositionals(positionals, command);
      const endpoint = nonEmpty(values['endpoint'], '--endpoint', command);
      if (endpoint === undefined)
        throw new UsageError('runledger export otlp: --endpoint <url> (the OTLP/HTTP endpoint, e.g. http://127.0.0.1:4318) is required');
      const runId = nonEmpty(values['run'], '--run', command);
      const since = nonEmpty(values['since'], '--since', command);
      if (runId !== undefined && since !== undefined) throw new UsageError('runledger export otlp: give either --run or --since, not both');
      const headers = nonEmpty(values['headers'], '--headers', command);
      return {
        name: 'export-otlp',
        store: store(values, env, command),
        endpoint,
        runId: runId ?? null,
        since: since === undefined ? null : parseSince(since, Date.now()),
        headers: headers === undefined ? {} : parseHeaders(headers),
        privacy: defaulted(values, command, 'privacy') as PrivacyLevel,
        timeoutMs: integer(values, command, 'timeout'),
        json: values['json'] === true,
      };
    }
    default:
      throw new UsageError(`runledger: unknown command ${JSON.stringify(name)}`);
  }
}
