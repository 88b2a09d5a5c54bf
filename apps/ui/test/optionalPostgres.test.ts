// @runledger/store-postgres is an optional peer dependency of @runledger/cli: a SQLite user never
// installs it. The built CLI is laid out here as a consumer would have it installed without that
// package (its dist and package.json, node_modules holding only its dependencies) and run as a
// real process: SQLite commands work, and a PostgreSQL one exits 2 naming the package to install.
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN_ENV, type CliResult } from './cliHelpers.js';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
let dir: string;
let bin: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'runledger-no-pg-'));
  const installed = join(dir, 'node_modules', '@runledger', 'cli');
  mkdirSync(installed, { recursive: true });
  cpSync(join(PACKAGE, 'dist'), join(installed, 'dist'), { recursive: true });
  cpSync(join(PACKAGE, 'package.json'), join(installed, 'package.json'));
  const manifest = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; peerDependencies: Record<string, string> };
  expect(Object.keys(manifest.peerDependencies)).toContain('@runledger/store-postgres');
  for (const dep of Object.keys(manifest.dependencies)) {
    const link = join(dir, 'node_modules', dep);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(realpathSync(join(PACKAGE, 'node_modules', dep)), link, 'dir');
  }
  bin = join(installed, 'dist', 'cli.js');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(args: readonly string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { cwd: dir, env: BIN_ENV }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
    });
  });
}

describe('without the optional @runledger/store-postgres', () => {
  it('SQLite commands work', async () => {
    expect((await run(['migrate', '--db', 'runs.db'])).code).toBe(0);
    const list = await run(['runs', 'list', '--db', 'runs.db', '--json']);
    expect(list).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(list.stdout)).toEqual({ runs: [], nextCursor: null });
  });

  it('a PostgreSQL store exits 2 (setup error) naming the package to install', async () => {
    for (const args of [
      ['runs', 'list', '--pg', 'postgres://127.0.0.1:1/none'],
      ['migrate', '--pg', 'postgres://127.0.0.1:1/none'],
    ]) {
      const result = await run(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(
        /^runledger (runs list|migrate): a PostgreSQL store needs the optional package @runledger\/store-postgres, which is not installed; install it next to @runledger\/cli \(npm i -D @runledger\/store-postgres\)/,
      );
    }
  });
});
