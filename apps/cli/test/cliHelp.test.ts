// Issue 32 item 6: a CLI with real help. `runledger <command> --help` and `--version`, a usage error
// that prints only its command's usage, "did you mean" for a mistyped command or flag, negative
// numbers answered with the flag's range, and a store named wrongly (a folder or a URL as --db, a URL
// of another database, a PostgreSQL host that does not resolve) answered in one paragraph with what
// to do (exit 2, no stack).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_COMMANDS } from '../src/cli/cliCommands.js';
import { cli, runBin } from './cliHelpers.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'runledger-cli-help-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** One paragraph: a single line, no usage, no stack. */
function oneParagraph(text: string): void {
  expect(text.trimEnd().split('\n')).toHaveLength(1);
  expect(text).not.toContain('Usage:');
  expect(text).not.toMatch(/\n\s+at /);
}

describe('runledger <command> --help and --version', () => {
  it.each(CLI_COMMANDS.filter((c) => c.name !== 'help' && c.name !== 'version').map((c) => c.name))(
    '%s --help prints that command’s usage on stdout and exits 0',
    async (name) => {
      const result = await cli([...name.split(' '), '--help'], dir);
      expect(result.code).toBe(0);
      expect(result.stderr).toBe('');
      expect(result.stdout.startsWith(`Usage: runledger ${name} `) || result.stdout.startsWith(`Usage: runledger ${name}\n`)).toBe(true);
      expect(result.stdout.match(/^Usage: /gm)).toHaveLength(1);
      // --help wins over anything else on the line, a mistake included
      expect((await cli([...name.split(' '), '--bogus', '-h'], dir)).stdout).toBe(result.stdout);
      expect((await cli(['help', ...name.split(' ')], dir)).stdout).toBe(result.stdout);
    },
  );

  it('a group of subcommands lists its own: runs --help', async () => {
    const result = await cli(['runs', '--help'], dir);
    expect(result.code).toBe(0);
    expect(result.stdout.match(/^Usage: runledger runs \w+/gm)).toEqual([
      'Usage: runledger runs list',
      'Usage: runledger runs show',
      'Usage: runledger runs recover',
      'Usage: runledger runs cancel',
    ]);
    expect(result.stdout).not.toContain('Usage: runledger serve');
  });

  it('--version and version print the version of the package, from the real binary too', async () => {
    for (const args of [['--version'], ['version']]) {
      const result = await cli(args, dir);
      expect(result).toEqual({ code: 0, stdout: `runledger ${VERSION}\n`, stderr: '' });
    }
    expect(await runBin(['--version'], dir)).toEqual({ code: 0, stdout: `runledger ${VERSION}\n`, stderr: '' });
  });
});

describe('a usage error prints that command’s usage, not every command’s', () => {
  it('runs list with a bad value: the message, then the usage of runs list only', async () => {
    const result = await cli(['runs', 'list', '--status', 'done'], dir);
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe(
      'runledger runs list: --status must be one of running, completed, failed, cancelled, interrupted, got "done"',
    );
    expect(result.stderr.match(/^Usage: /gm)).toEqual(['Usage: ']);
    expect(result.stderr).toContain('Usage: runledger runs list [--db <file> | --pg <url>]');
    expect(result.stderr.split('\n').length).toBeLessThan(13);
  });

  it('from the real binary: serve --port x', async () => {
    const result = await runBin(['serve', '--port', 'x'], dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Usage: runledger serve [--db <file> | --pg <url>]');
    expect(result.stderr).not.toContain('runs list');
  });
});

describe('did you mean', () => {
  it.each([
    [['sever'], 'runledger: unknown command "sever"; did you mean "serve"?'],
    [['runs', 'lst'], 'runledger runs: unknown subcommand "lst" (list, show, recover or cancel); did you mean "list"?'],
    [['runs', 'list', '--limt', '5'], 'runledger runs list: unknown option "--limt"; did you mean "--limit"?'],
    [['servers', '--windwo', '7d'], 'runledger servers: unknown option "--windwo"; did you mean "--window"?'],
    [['help', 'prnue'], 'runledger help: there is no command "prnue"; did you mean "prune"?'],
  ])('%j', async (args, message) => {
    const result = await cli(args, dir);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.split('\n')[0]).toBe(message);
  });

  it('says nothing it cannot back: no suggestion for a name far from every known one', async () => {
    const result = await cli(['frobnicate'], dir);
    expect(result.stderr).toBe('runledger: unknown command "frobnicate"\n\nRun runledger --help for the list of commands.\n');
  });
});

describe('a negative number gets the range message', () => {
  it.each([
    [['runs', 'list', '--limit', '-5'], 'runledger runs list: --limit must be an integer from 1 to 1000, got "-5"'],
    [['serve', '--port', '-1'], 'runledger serve: --port must be an integer from 0 to 65535, got "-1"'],
    [
      ['export', 'otlp', '--endpoint', 'http://127.0.0.1:4318', '--timeout', '-10'],
      '--timeout must be an integer from 1 to 3600000, got "-10"',
    ],
  ])('%j', async (args, message) => {
    const result = await cli(args, dir);
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toContain(message);
    expect(result.stderr).not.toContain('\\x0a');
    expect(result.stderr).not.toContain('ambiguous');
  });

  it('a flag followed by another flag is missing its value, said in one line', async () => {
    const result = await cli(['runs', 'list', '--db', '--json'], dir);
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe(
      'runledger runs list: --db needs a value (<file>), got the option "--json"; for a value that starts with "-", write --db=--json',
    );
    expect(result.stderr).not.toContain('\\x0a');
  });
});

describe('a store named wrongly: one paragraph saying what to do, exit 2', () => {
  it('a folder as --db', async () => {
    const folder = join(dir, 'a-folder');
    mkdirSync(folder);
    for (const args of [['runs', 'list'], ['migrate'], ['demo', '--no-serve']]) {
      const result = await cli([...args, '--db', folder], dir);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toBe(
        `runledger ${args[0] === 'runs' ? 'runs list' : args[0]}: --db ${folder} is a folder, not a SQLite file; name a file (new or existing) instead, e.g. --db ${join(folder, 'runledger.db')}\n`,
      );
      oneParagraph(result.stderr);
    }
    expect(readdirSync(folder)).toEqual([]);
  });

  it('a PostgreSQL URL as --db: give it as --pg (password not echoed)', async () => {
    const result = await cli(['runs', 'list', '--db', 'postgres://me:s3cret@db.example:5432/runs'], dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--db takes the path of a SQLite file, not a URL');
    expect(result.stderr).toContain('give the URL as --pg postgres://me:***@db.example:5432/runs');
    expect(result.stderr).not.toContain('s3cret');
    oneParagraph(result.stderr);
  });

  it('a URL of another database as --pg or RUNLEDGER_PG_URL', async () => {
    const result = await cli(['runs', 'list', '--pg', 'mysql://me@db.example/runs'], dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'runledger runs list: --pg must be a PostgreSQL URL such as postgres://user@host:5432/db, got "mysql://me@db.example/runs"; runledger keeps runs in PostgreSQL or in a SQLite file (--db <file>), not in mysql\n',
    );
    oneParagraph(result.stderr);
  });

  it('a PostgreSQL host that does not resolve, from the real binary', async () => {
    const result = await runBin(['runs', 'list', '--pg', 'postgres://me@no-such-host.invalid:5432/runs'], dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'runledger runs list: cannot find the PostgreSQL host "no-such-host.invalid": the name does not resolve (ENOTFOUND); check the host in the URL (--pg or RUNLEDGER_PG_URL), or use a SQLite file with --db <file>\n',
    );
    oneParagraph(result.stderr);
  });
});
