// @runledger/store-postgres is an optional peer dependency of @runledger/cli: a SQLite user never
// installs it. The built CLI is laid out here as a consumer would have it installed without that
// package (its dist and package.json, node_modules holding only its dependencies) and run as a
// real process: SQLite commands work, and a PostgreSQL one exits 2 naming the package to install.
// With a stand-in store-postgres of another release line than the CLI was built against, a
// PostgreSQL command exits 2 naming both versions; a patch of the same line is loaded.
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN_ENV, type CliResult } from './cliHelpers.js';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
/** The version of @runledger/store-postgres the CLI is built against (the workspace's). */
const BUILT_WITH = (
  JSON.parse(readFileSync(join(PACKAGE, '..', '..', 'packages', 'store-postgres', 'package.json'), 'utf8')) as { version: string }
).version;
const dirs: string[] = [];

/**
 * The built CLI installed as a consumer has it in a temporary folder (its dist and package.json,
 * node_modules holding only its dependencies), with a stand-in @runledger/store-postgres of the
 * given version when one is given; returns the path of its bin.
 */
function install(storePostgresVersion?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'runledger-no-pg-'));
  dirs.push(dir);
  const installed = join(dir, 'node_modules', '@runledger', 'cli');
  mkdirSync(installed, { recursive: true });
  cpSync(join(PACKAGE, 'dist'), join(installed, 'dist'), { recursive: true });
  cpSync(join(PACKAGE, 'package.json'), join(installed, 'package.json'));
  const manifest = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
    peerDependencies: Record<string, string>;
  };
  expect(Object.keys(manifest.peerDependencies)).toContain('@runledger/store-postgres');
  for (const dep of Object.keys(manifest.dependencies)) {
    const link = join(dir, 'node_modules', dep);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(realpathSync(join(PACKAGE, 'node_modules', dep)), link, 'dir');
  }
  if (storePostgresVersion !== undefined) {
    // a stand-in whose store says it was loaded: the real one would need a PostgreSQL server
    const fake = join(dir, 'node_modules', '@runledger', 'store-postgres');
    mkdirSync(fake, { recursive: true });
    const exports = { '.': './index.js', './package.json': './package.json' };
    writeFileSync(
      join(fake, 'package.json'),
      JSON.stringify({ name: '@runledger/store-postgres', version: storePostgresVersion, type: 'module', exports }),
    );
    const loaded = `async () => { throw new Error('stand-in store-postgres ${storePostgresVersion} loaded'); }`;
    writeFileSync(join(fake, 'index.js'), `export const PostgresRunStore = new Proxy({}, { get: () => ${loaded} });\n`);
  }
  return join(installed, 'dist', 'cli.js');
}

let bin: string;
beforeAll(() => {
  bin = install();
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function run(args: readonly string[], cli = bin): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [cli, ...args], { cwd: dirname(cli), env: BIN_ENV }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
    });
  });
}

describe('without the optional @runledger/store-postgres', () => {
  it('SQLite commands work', async () => {
    expect((await run(['migrate', '--db', 'runs.db'])).code).toBe(0);
    const list = await run(['runs', 'list', '--db', 'runs.db', '--json']);
    expect(list).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(list.stdout)).toEqual({ runs: [], nextCursor: null, totals: { runs: 0, tokens: 0 } });
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

describe('with @runledger/store-postgres of another release line than the CLI was built against', () => {
  /** The next release line of a version: 0.x → the next minor, from 1.0 → the next major. */
  const nextLine = (version: string): string => {
    const [major, minor] = version.split('.').map(Number) as [number, number];
    return major === 0 ? `0.${minor + 1}.0` : `${major + 1}.0.0`;
  };

  it('a PostgreSQL store exits 2 naming both versions and the npm command of the matching line', async () => {
    const installed = nextLine(BUILT_WITH);
    const result = await run(['runs', 'list', '--pg', 'postgres://127.0.0.1:1/none'], install(installed));
    expect(result.code).toBe(2);
    const line = BUILT_WITH.startsWith('0.') ? BUILT_WITH.split('.').slice(0, 2).join('.') : BUILT_WITH.split('.')[0];
    expect(result.stderr).toContain(
      `runledger runs list: @runledger/cli was built against @runledger/store-postgres ${BUILT_WITH} (release line ${line}), but ${installed}`,
    );
    expect(result.stderr).toContain(`(npm i -D @runledger/store-postgres@${line})`);
    expect(result.stderr).not.toContain('stand-in store-postgres');
  });

  it('a patch of the same line is loaded', async () => {
    const [major, minor, patch] = BUILT_WITH.split('.').map(Number) as [number, number, number];
    const samePatch = `${major}.${minor}.${patch + 7}`;
    const result = await run(['runs', 'list', '--pg', 'postgres://127.0.0.1:1/none'], install(samePatch));
    expect(result).toMatchObject({ code: 1, stderr: expect.stringContaining(`stand-in store-postgres ${samePatch} loaded`) });
  });
});
