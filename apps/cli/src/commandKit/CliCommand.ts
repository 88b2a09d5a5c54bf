import type { z } from 'zod';
import type { CliIo } from './CliIo.js';
import type { CommandEnv } from './commandArgs.js';
import type { CliArgument, CliExitCode, CliFlag } from './cliSurface.js';

/** One command's usage: its synopsis (after `runledger `) and what it does, in lines of at most 100 characters. @internal */
export interface CommandUsage {
  readonly synopsis: string;
  readonly about: string;
}

/**
 * One command of the `runledger` command line, whole, in one module (src/commands/<name>.ts): its
 * one name, its arguments and flags (the frozen surface), its usage, how it reads its command
 * line, the schema of its `--json` output and what it does. The router (src/cli/) lists the
 * modules, dispatches to them, and builds the usage text and the surface document from them.
 *
 * @internal
 */
export interface CliCommand<Options = unknown, JsonOutput extends z.ZodType | null = z.ZodType | null> {
  /** The words that name it (a subcommand with its group: `runs list`). */
  readonly name: string;
  /** Other spellings of the command (`--help` for `help`). */
  readonly aliases?: readonly string[];
  readonly arguments: readonly CliArgument[];
  readonly flags: readonly CliFlag[];
  readonly usage: CommandUsage;
  /** The shape of its `--json` output (zod 4), or null for a command without `--json`. */
  readonly jsonOutput: JsonOutput;
  /**
   * Reads the words after its name: its options, or null when they ask for its usage (`--help`).
   *
   * @throws UsageError from `parse` for a command line it does not understand.
   * @throws CliSetupError from `parse` for a store named wrongly.
   */
  parse(args: readonly string[], env: CommandEnv): Options | null;
  /** Does what the command line asked; a thrown error is the command's failure (exit 1). */
  run(options: Options, io: CliIo): CliExitCode | Promise<CliExitCode>;
}
