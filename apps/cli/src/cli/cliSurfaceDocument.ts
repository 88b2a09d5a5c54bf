import { z } from 'zod';
import { CLI_EXIT_CODE_MEANINGS, CliExitCode } from '../commandKit/cliSurface.js';
import { CLI_COMMANDS } from './cliCommands.js';

/**
 * The whole CLI surface as plain JSON, what `pnpm api:update` writes into
 * `api-reports/cli.cli.json` (the API gate loads it from the built `dist/cli-surface.js`, sorts it
 * and classifies its changes), read from the command modules (src/commands/): the program, its exit codes (each with its stable id: `OK`, `FAILED`,
 * `USAGE`), and every command with its arguments, flags (with their accepted values, sorted, their
 * integer range and their default) and the JSON Schema (draft 2020-12, zod 4's `z.toJSONSchema`) of its `--json` output.
 *
 * @internal
 */
export function cliSurfaceDocument(): Record<string, unknown> {
  return {
    program: 'runledger',
    exitCodes: Object.entries(CliExitCode).map(([id, code]) => ({ code, id, meaning: CLI_EXIT_CODE_MEANINGS[code] })),
    commands: CLI_COMMANDS.map((command) => ({
      name: command.name,
      aliases: command.aliases ?? [],
      arguments: command.arguments,
      flags: command.flags.map((f) => (f.choices === undefined ? f : { ...f, choices: [...f.choices].sort() })),
      jsonOutput: command.jsonOutput === null ? null : z.toJSONSchema(command.jsonOutput, { io: 'output' }),
    })),
  };
}
