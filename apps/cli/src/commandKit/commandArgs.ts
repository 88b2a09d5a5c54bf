import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { defaultSpoolDir } from '@runledger/trace';
import type { CliFlag } from './cliSurface.js';
import { didYouMean } from './didYouMean.js';
import { checkDbFlag, checkPgUrl } from './storeTargetChecks.js';
import { UsageError } from './UsageError.js';

/** Where a command's runs are stored. @internal */
export type StoreTarget =
  { readonly kind: 'sqlite'; readonly path: string } | { readonly kind: 'postgres'; readonly url: string; readonly schema?: string };

/** The environment a command line is read in: where relative paths start, and the defaults of flags. @internal */
export interface CommandEnv {
  readonly cwd: string;
  /** RUNLEDGER_TOKEN */
  readonly token?: string | undefined;
  /** RUNLEDGER_TOKEN_NAME: who a cancel through the app is kept as asked by, beside the token */
  readonly tokenName?: string | undefined;
  /** RUNLEDGER_PG_URL */
  readonly pgUrl?: string | undefined;
  /** The spool folder when --spool-dir is not given (RUNLEDGER_SPOOL_DIR, else ~/.runledger/spool). */
  readonly spoolDir?: string | undefined;
}

/** What to add to a refusal when a known name is close to the one given. @internal */
export function suggestion(given: string, known: readonly string[]): string {
  const close = didYouMean(given, known);
  return close === null ? '' : `; did you mean ${JSON.stringify(close)}?`;
}

/**
 * A command's command line as its declared flags read it, with the readers of their values: each
 * refusal is a UsageError that names the command and the flag.
 *
 * @internal
 */
export class CommandArgs {
  constructor(
    /** The command's name (`runs list`), as its refusals name it. */
    readonly command: string,
    private readonly flags: readonly CliFlag[],
    private readonly values: Readonly<Record<string, unknown>>,
    readonly positionals: readonly string[],
    readonly env: CommandEnv,
  ) {}

  private declared(name: string): CliFlag {
    const declared = this.flags.find((f) => f.name === name);
    if (declared === undefined) throw new Error(`CommandArgs: "${this.command}" declares no flag --${name}`);
    return declared;
  }

  /** Whether a switch (a flag without a value) is given. */
  has(name: string): boolean {
    return this.values[name] === true;
  }

  /** A flag's value as given, or undefined; refused when empty. */
  given(name: string): string | undefined {
    const value = this.values[name];
    if (value === undefined) return undefined;
    const text = String(value);
    if (text.trim() === '') throw new UsageError(`runledger ${this.command}: --${name} must not be empty`);
    return text;
  }

  /** A declared flag's value as given (not empty), else its declared default, within its declared choices. */
  text(name: string): string | undefined {
    const declared = this.declared(name);
    const value = this.given(name) ?? declared.default;
    if (value !== undefined && declared.choices !== undefined && !declared.choices.includes(value)) {
      throw new UsageError(
        `runledger ${this.command}: --${name} must be one of ${declared.choices.join(', ')}, got ${JSON.stringify(value)}`,
      );
    }
    return value;
  }

  /** A declared flag's value as {@link CommandArgs.text} reads it, for a flag that declares a default (never undefined). */
  defaulted(name: string): string {
    const value = this.text(name);
    if (value === undefined) throw new Error(`CommandArgs: ${this.command} --${name} must declare a default`);
    return value;
  }

  /** A declared integer flag's value as given, else its declared default, within its declared min and max. */
  integer(name: string): number {
    const declared = this.declared(name);
    const value = this.defaulted(name);
    if (declared.min === undefined || declared.max === undefined) {
      throw new Error(`CommandArgs: ${this.command} --${name} must declare min and max to be read as an integer`);
    }
    const n = Number(value);
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < declared.min || n > declared.max) {
      throw new UsageError(
        `runledger ${this.command}: --${name} must be an integer from ${declared.min} to ${declared.max}, got ${JSON.stringify(value)}`,
      );
    }
    return n;
  }

  /** Refuses any positional argument. */
  noPositionals(): void {
    if (this.positionals.length > 0) {
      throw new UsageError(`runledger ${this.command}: unexpected argument ${JSON.stringify(this.positionals[0])}`);
    }
  }

  /** The one run id (or id prefix) of `runs show` and `runs cancel`. */
  runId(): string {
    const [id] = this.positionals;
    if (this.positionals.length !== 1 || id === undefined || id === '') {
      throw new UsageError(
        this.positionals.length === 0 ? `runledger ${this.command}: missing run id` : `runledger ${this.command}: give exactly one run id`,
      );
    }
    return id;
  }

  /** The store of `--db`, `--pg` (or RUNLEDGER_PG_URL) and `--pg-schema`, else the declared default file. */
  store(): StoreTarget {
    const db = this.given('db');
    const pg = this.given('pg');
    const schema = this.pgSchema();
    if (db !== undefined && pg !== undefined) throw new UsageError(`runledger ${this.command}: give either --db or --pg, not both`);
    if (db !== undefined) checkDbFlag(db, this.command);
    const url = pg ?? (db === undefined && this.env.pgUrl !== undefined && this.env.pgUrl !== '' ? this.env.pgUrl : undefined);
    if (url !== undefined) checkPgUrl(url, this.command, pg === undefined ? 'RUNLEDGER_PG_URL' : '--pg');
    if (url !== undefined) return schema === undefined ? { kind: 'postgres', url } : { kind: 'postgres', url, schema };
    if (schema !== undefined) throw new UsageError(`runledger ${this.command}: --pg-schema needs --pg`);
    const fallback = this.declared('db').default;
    if (fallback === undefined) throw new Error(`CommandArgs: ${this.command} --db must declare a default`);
    return { kind: 'sqlite', path: resolve(this.env.cwd, db ?? fallback) };
  }

  /** `--pg-schema`, checked, or undefined. */
  pgSchema(): string | undefined {
    const schema = this.given('pg-schema');
    if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
      throw new UsageError(`runledger ${this.command}: --pg-schema must match ^[a-z_][a-z0-9_]{0,62}$, got ${JSON.stringify(schema)}`);
    }
    return schema;
  }

  /** `--spool-dir`, else RUNLEDGER_SPOOL_DIR, else ~/.runledger/spool, as an absolute path. */
  spoolDir(): string {
    return resolve(this.env.cwd, this.given('spool-dir') ?? this.env.spoolDir ?? defaultSpoolDir());
  }
}

/**
 * Reads a command's options as its flags declare them: `--help` anywhere before `--` asks for its
 * usage (null); an unknown option is refused with the closest declared one; a value that starts
 * with `-` is a value when it is a number (`--limit -5`, refused then by its range), else the flag
 * is missing its value. A refusal that names no command (the value parsers') is given the
 * command's name, so that its usage is printed.
 *
 * @internal
 */
export function flagParser<Options>(
  command: string,
  flags: readonly CliFlag[],
  read: (args: CommandArgs) => Options,
): (args: readonly string[], env: CommandEnv) => Options | null {
  return (args, env) => {
    try {
      const { values, positionals, tokens } = parseArgs({
        args: [...args],
        options: Object.fromEntries(flags.map((f) => [f.name, { type: f.value === null ? ('boolean' as const) : ('string' as const) }])),
        strict: false,
        allowPositionals: true,
        tokens: true,
      });
      // every option comes before a `--`: what follows it is positional
      const options = tokens.filter((token) => token.kind === 'option');
      if (options.some((token) => token.rawName === '--help' || token.rawName === '-h')) return null;
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
      return read(new CommandArgs(command, flags, values, positionals, env));
    } catch (error) {
      if (error instanceof UsageError && error.command === null) throw new UsageError(error.message, command);
      throw error;
    }
  };
}
