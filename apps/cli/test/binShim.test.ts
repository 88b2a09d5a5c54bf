// Issue 40 item 7: `pnpm exec runledger` works in a clone after `pnpm install`. The root's
// postinstall (tools/link-cli-bin.mjs) links the CLI's bin (bin/runledger.js, in git) into
// node_modules/.bin: it runs the built binary, and before a build says what to run instead of
// Node's "Cannot find module". Not a root dependency on @runledger/cli: turbo folds the root's
// workspace dependencies into its global hash, so every CLI edit would invalidate every task's cache.
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN_ENV, type CliResult } from './cliHelpers.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const SHIM = fileURLToPath(new URL('../bin/runledger.js', import.meta.url));
const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'runledger-bin-shim-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(file: string, args: readonly string[], cwd: string): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(file, [...args], { cwd, env: BIN_ENV }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
    });
  });
}

describe('pnpm exec runledger in the repository', () => {
  it('runs the built binary from the workspace root', { timeout: 60_000 }, async () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
      dependencies?: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    expect(manifest.scripts.postinstall).toBe('node tools/link-cli-bin.mjs');
    // no workspace package among the root's dependencies: it would enter turbo's global hash
    const workspaceDeps = Object.entries({ ...manifest.dependencies, ...manifest.devDependencies }).filter(([, spec]) =>
      spec.startsWith('workspace:'),
    );
    expect(workspaceDeps).toEqual([]);
    expect(await run('pnpm', ['exec', 'runledger', '--version'], ROOT)).toEqual({ code: 0, stdout: `runledger ${VERSION}\n`, stderr: '' });
    const missing = await run('pnpm', ['exec', 'runledger', 'runs', 'list', '--db', join(dir, 'none.db')], ROOT);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`there is no SQLite store at ${join(dir, 'none.db')}`);
  });

  it('before a build, says to run pnpm build (exit 2), not a stack trace', async () => {
    const unbuilt = join(dir, 'cli');
    mkdirSync(join(unbuilt, 'bin'), { recursive: true });
    copyFileSync(SHIM, join(unbuilt, 'bin', 'runledger.js'));
    writeFileSync(join(unbuilt, 'package.json'), JSON.stringify({ name: '@runledger/cli', type: 'module' }));
    const result = await run(process.execPath, [join(unbuilt, 'bin', 'runledger.js'), '--help'], dir);
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'runledger: the command is not built in this clone of the repository: run `pnpm build` (or `pnpm turbo run build --filter @runledger/cli...`) once, then run it again.\n',
    });
  });
});
