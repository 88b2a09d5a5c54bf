// How the tests run the `runledger` CLI: in process (runCli, output captured) or as the real
// binary (dist/cli.js, built by the global setup), and how they reach PostgreSQL.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { parseCommand } from '../src/cli/parseCommand.js';
import { runCli } from '../src/cli/runCli.js';
import type { CommandEnv } from '../src/commandKit/commandArgs.js';

/** The built binary. */
export const BIN = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

/** The environment the binary runs in: no token, no PostgreSQL URL, no npm INIT_CWD. */
export const BIN_ENV = { ...process.env, RUNLEDGER_TOKEN: '', RUNLEDGER_PG_URL: '', INIT_CWD: '' };

/** What a CLI run printed and returned. */
export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the CLI in process in `cwd`, with an empty environment. */
export async function cli(
  args: readonly string[],
  cwd: string,
  extra: { signal?: AbortSignal; onListening?: (url: string) => void } = {},
): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: {},
    cwd,
    ...extra,
  });
  return { code, stdout, stderr };
}

/** Runs the real binary in `cwd` and waits for it to exit. */
export function runBin(args: readonly string[], cwd: string): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(BIN, [...args], { cwd, env: BIN_ENV }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
    });
  });
}

/**
 * A connected client of the test PostgreSQL, or null after skipping the test when it is not
 * reachable — never skipped on CI, where an unreachable PostgreSQL fails the test.
 */
export async function pgClientOrSkip(url: string, ctx: { skip(): void }): Promise<pg.Client | null> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    return client;
  } catch (error) {
    if (process.env['CI'] === 'true') throw error;
    ctx.skip();
    return null;
  }
}

/** The test PostgreSQL (RUNLEDGER_PG_URL, else the local one). */
export const TEST_PG_URL = process.env['RUNLEDGER_PG_URL'] || 'postgres://postgres@127.0.0.1:5432/test';

/**
 * Runs `use` with the test PostgreSQL's URL and a fresh schema name (`<prefix>_<pid>_<now>`), the
 * schema dropped afterwards; skips the test as {@link pgClientOrSkip} does.
 */
export async function withPgSchema(
  ctx: { skip(): void },
  prefix: string,
  use: (url: string, schema: string) => Promise<void>,
): Promise<void> {
  const client = await pgClientOrSkip(TEST_PG_URL, ctx);
  if (client === null) return;
  const schema = `${prefix}_${process.pid}_${Date.now()}`;
  try {
    await use(TEST_PG_URL, schema);
  } finally {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  }
}

/** A command line as the router reads it, flattened for comparing: the command's one name beside its options. */
export function parsedLine(argv: readonly string[], env: CommandEnv): { readonly name: string } & Record<string, unknown> {
  const { command, options } = parseCommand(argv, env);
  return { name: command.name, ...(options as Record<string, unknown>) };
}
