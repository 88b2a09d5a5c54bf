import { z } from 'zod';
import { CLI_JSON_OUTPUTS } from './cliJsonOutputs.js';
import { CLI_COMMANDS, CLI_EXIT_CODE_MEANINGS, type CliJsonCommand } from './cliSurface.js';

/**
 * The whole CLI surface as plain JSON, what `pnpm api:update` writes into
 * `api-reports/cli.cli.json` (the API gate loads it from the built `dist/cli-surface.js`, sorts it
 * and classifies its changes): the program, its exit codes, and every command with its arguments,
 * flags and the JSON Schema (draft 2020-12, zod 4's `z.toJSONSchema`) of its `--json` output.
 *
 * @internal
 */
export function cliSurfaceDocument(): Record<string, unknown> {
  return {
    program: 'runledger',
    exitCodes: Object.entries(CLI_EXIT_CODE_MEANINGS).map(([code, meaning]) => ({ code: Number(code), meaning })),
    commands: CLI_COMMANDS.map((command) => ({
      name: command.name,
      aliases: command.aliases ?? [],
      arguments: command.arguments,
      flags: command.flags,
      jsonOutput: command.json ? z.toJSONSchema(CLI_JSON_OUTPUTS[command.name as CliJsonCommand], { io: 'output' }) : null,
    })),
  };
}
