import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { longestFirst, SUITE_SECONDS, sweepStaleCopies, takePreparedCopy } from '../src/node24.ts';
import { envForNode, registryNode } from '../src/lib/registryNode.ts';
import { formatSuiteCounts, readSuiteCounts } from '../src/lib/vitestResults.ts';
import { copyBuildOutputs, copyWorkingTree, workingTreeFiles, workingTreeStamp } from '../src/lib/workspaceCopy.ts';
import { workspacePackages } from '../src/lib/workspace.ts';

const temps: string[] = [];
afterAll(() => temps.forEach((d) => rmSync(d, { recursive: true, force: true })));
const tempDir = (prefix: string) => {
  const d = mkdtempSync(path.join(os.tmpdir(), prefix));
  temps.push(d);
  return d;
};

/** A cached "release" whose bin/node is a real executable script printing `printed`. */
function fakeRelease(cacheDir: string, version: string, printed: string) {
  const dir = path.join(cacheDir, `node-${version}`);
  mkdirSync(path.join(dir, 'bin'), { recursive: true });
  mkdirSync(path.join(dir, 'include', 'node'), { recursive: true });
  writeFileSync(path.join(dir, 'include', 'node', 'node_api.h'), '/* headers */\n');
  writeFileSync(path.join(dir, 'bin', 'node'), `#!/bin/sh\necho ${printed}\n`);
  chmodSync(path.join(dir, 'bin', 'node'), 0o755);
  return dir;
}

describe('registryNode: a Node release in the cache folder, never on the system PATH', () => {
  it('reuses the cached release when its bin/node --version answers, without fetching', () => {
    const cache = tempDir('rl-node-cache-');
    const dir = fakeRelease(cache, '24.0.1', 'v24.0.1');
    const node = registryNode('24.0.1', { cacheDir: cache, log: () => expect.unreachable('it fetched') });
    expect(node).toEqual({ dir, binDir: path.join(dir, 'bin'), node: path.join(dir, 'bin', 'node'), version: 'v24.0.1', fetched: false });
  });

  it('refuses a version that is not exact (the cache folder is named after it)', () => {
    expect(() => registryNode('24')).toThrow('registryNode: version must be exact (major.minor.patch), got "24"');
  });

  it('envForNode puts its bin first in PATH and nodedir at it, for a child only', () => {
    const cache = tempDir('rl-node-cache-');
    fakeRelease(cache, '24.0.2', 'v24.0.2');
    const node = registryNode('24.0.2', { cacheDir: cache });
    const env = envForNode(node, { PATH: '/usr/bin:/bin' });
    expect(env.PATH).toBe(`${node.binDir}:/usr/bin:/bin`);
    expect(env.npm_config_nodedir).toBe(node.dir);
    expect(execFileSync('node', ['--version'], { env, encoding: 'utf8' }).trim()).toBe('v24.0.2');
    expect(process.env.PATH?.split(':')).not.toContain(node.binDir);
  });
});

describe('workspaceCopy: the working tree as git sees it', () => {
  it('copies tracked and new unignored files, keeps modes, leaves ignored and deleted files out', () => {
    const root = tempDir('rl-wt-');
    const git = (...args: string[]) => execFileSync('git', args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    git('init', '-q');
    writeFileSync(path.join(root, '.gitignore'), 'node_modules/\n');
    mkdirSync(path.join(root, 'a', 'node_modules'), { recursive: true });
    writeFileSync(path.join(root, 'a', 'node_modules', 'x.js'), 'ignored');
    writeFileSync(path.join(root, 'a', 'run.sh'), '#!/bin/sh\n');
    chmodSync(path.join(root, 'a', 'run.sh'), 0o755);
    writeFileSync(path.join(root, 'gone.txt'), 'tracked, then deleted');
    git('add', '-A');
    unlinkSync(path.join(root, 'gone.txt'));
    writeFileSync(path.join(root, 'new.txt'), 'not yet added');
    expect(workingTreeFiles(root).sort()).toEqual(['.gitignore', 'a/run.sh', 'new.txt']);
    const dest = path.join(tempDir('rl-copy-'), 'copy');
    expect(copyWorkingTree(root, dest)).toBe(3);
    expect(readFileSync(path.join(dest, 'new.txt'), 'utf8')).toBe('not yet added');
    expect(statSync(path.join(dest, 'a', 'run.sh')).mode & 0o111).not.toBe(0);
    expect(existsSync(path.join(dest, 'a', 'node_modules'))).toBe(false);
  });
});

describe("copyBuildOutputs: the workspace's build into the copy, so the copy does not build again", () => {
  const pkg = (root: string, rel: string, scripts: Record<string, string>) => {
    mkdirSync(path.join(root, rel), { recursive: true });
    writeFileSync(path.join(root, rel, 'package.json'), JSON.stringify({ name: rel, scripts }));
  };

  it("copies each built package's dist (nested files too) and skips a package without a build script", () => {
    const root = tempDir('rl-built-');
    pkg(root, 'packages/a', { build: 'tsup', test: 'vitest run' });
    pkg(root, 'packages/b', { test: 'vitest run' });
    mkdirSync(path.join(root, 'packages', 'a', 'dist', 'store'), { recursive: true });
    writeFileSync(path.join(root, 'packages', 'a', 'dist', 'index.js'), 'export {};\n');
    writeFileSync(path.join(root, 'packages', 'a', 'dist', 'store', 'index.d.ts'), 'export {};\n');
    const dest = tempDir('rl-built-copy-');
    expect(copyBuildOutputs(root, dest, [path.join(root, 'packages', 'a'), 'packages/b'])).toEqual(['packages/a']);
    expect(readFileSync(path.join(dest, 'packages', 'a', 'dist', 'store', 'index.d.ts'), 'utf8')).toBe('export {};\n');
    expect(existsSync(path.join(dest, 'packages', 'b', 'dist'))).toBe(false);
  });

  it('refuses a package that has a build script but no dist, naming it', () => {
    const root = tempDir('rl-built-');
    pkg(root, 'apps/cli', { build: 'tsup' });
    expect(() => copyBuildOutputs(root, tempDir('rl-built-copy-'), ['apps/cli'])).toThrow(
      `copyBuildOutputs: apps/cli has a build script but no dist at ${path.join(root, 'apps', 'cli', 'dist')}; build the workspace first`,
    );
  });
});

describe('vitestResults: the counts of a JSON report, and when they count as a failure', () => {
  const report = (json: object) => {
    const file = path.join(tempDir('rl-vitest-'), 'r.json');
    writeFileSync(file, JSON.stringify(json));
    return file;
  };

  it('a passing report gives its counts and no problem', () => {
    const file = report({
      success: true,
      numPassedTests: 12,
      numFailedTests: 0,
      numPendingTests: 2,
      numTodoTests: 1,
      testResults: [{ name: 'a.test.ts', status: 'passed' }],
    });
    expect(readSuiteCounts('@x/a', file)).toEqual({ name: '@x/a', passed: 12, failed: 0, skipped: 3, problem: undefined });
  });

  it('failed tests, a file that failed to run, no test at all, or no report are problems', () => {
    expect(readSuiteCounts('@x/a', report({ success: false, numPassedTests: 3, numFailedTests: 2 })).problem).toBe(
      '@x/a: 2 test(s) failed',
    );
    expect(
      readSuiteCounts(
        '@x/a',
        report({ success: false, numPassedTests: 3, numFailedTests: 0, testResults: [{ name: '/p/b.test.ts', status: 'failed' }] }),
      ).problem,
    ).toBe('@x/a: test file(s) failed to run: /p/b.test.ts');
    // a hook's failure says why, its first lines on one line
    expect(
      readSuiteCounts(
        '@x/a',
        report({
          success: false,
          numPassedTests: 3,
          numFailedTests: 0,
          testResults: [{ name: '/p/b.test.ts', status: 'failed', message: 'Error: the hook broke\n  at x\n  at y\n  at z' }],
        }),
      ).problem,
    ).toBe('@x/a: test file(s) failed to run: /p/b.test.ts (Error: the hook broke ⏎   at x ⏎   at y)');
    expect(readSuiteCounts('@x/a', report({ success: true, numPassedTests: 0, numFailedTests: 0 })).problem).toBe(
      '@x/a: the suite ran no test (0 passed)',
    );
    expect(readSuiteCounts('@x/a', '/nonexistent/r.json').problem).toMatch(/^@x\/a: vitest wrote no JSON report at \/nonexistent\/r\.json/);
  });

  it('the summary ends with one "N passed, N failed, N skipped" line over all packages', () => {
    const text = formatSuiteCounts([
      { name: '@x/a', passed: 10, failed: 0, skipped: 1, problem: undefined },
      { name: '@x/b', passed: 5, failed: 2, skipped: 0, problem: 'x' },
    ]);
    expect(text.split('\n').at(-1)).toBe('node24: 15 passed, 2 failed, 1 skipped');
    expect(text).toMatch(/@x\/b\s+5 passed\s+2 failed/);
  });
});

describe('sweepStaleCopies: what a killed run left behind', () => {
  it('removes copies older than 6 h and keeps recent ones and everything else', () => {
    const tmp = tempDir('node24-sweep-');
    for (const name of ['runledger-node24-old', 'runledger-node24-new', 'other-old'])
      mkdirSync(path.join(tmp, name, 'node_modules'), { recursive: true });
    const sevenHoursAgo = (Date.now() - 7 * 3600_000) / 1000;
    for (const name of ['runledger-node24-old', 'other-old']) utimesSync(path.join(tmp, name), sevenHoursAgo, sevenHoursAgo);
    expect(sweepStaleCopies(tmp)).toBe(1);
    expect(readdirSync(tmp).sort()).toEqual(['other-old', 'runledger-node24-new']);
  });
});

describe('the suites on Node 24 start longest first', () => {
  it('orders by the measured seconds, a package without a figure first, ties by name', () => {
    expect(longestFirst(['@x/short', '@x/long', '@x/new', '@x/mid'], { '@x/short': 5, '@x/long': 200, '@x/mid': 50 })).toEqual([
      '@x/new',
      '@x/long',
      '@x/mid',
      '@x/short',
    ]);
    expect(longestFirst(['@x/b', '@x/a'], { '@x/a': 1, '@x/b': 1 })).toEqual(['@x/a', '@x/b']);
  });

  it('has a figure for every package with tests, and none for a package that is gone', () => {
    const tested = [...workspacePackages(path.resolve(import.meta.dirname, '../..')).values()]
      .filter((p) => typeof p.json.scripts?.test === 'string' && p.name !== '@runledger/tools')
      .map((p) => p.name)
      .sort();
    expect(Object.keys(SUITE_SECONDS).sort()).toEqual(tested);
  });
});

describe('node24:prepare hands its copy to the pass only while it still holds the working tree', () => {
  const setup = () => {
    const root = tempDir('rl-prepared-');
    execFileSync('git', ['init', '-q'], { cwd: root });
    writeFileSync(path.join(root, 'a.ts'), 'one');
    const copy = tempDir('rl-prepared-copy-');
    mkdirSync(path.join(copy, 'node_modules'));
    const file = path.join(tempDir('rl-prepared-state-'), 'prepared.json');
    const stamp = workingTreeStamp(root);
    writeFileSync(file, JSON.stringify({ copy, version: 'v24.0.0', stamp }));
    return { root, copy, file, stamp };
  };

  it('takes the copy made from the same files on the same Node', () => {
    const { root, copy, file } = setup();
    expect(takePreparedCopy(file, { version: 'v24.0.0', stamp: workingTreeStamp(root) })).toEqual({
      copy,
      version: 'v24.0.0',
      stamp: workingTreeStamp(root),
    });
  });

  it('refuses it when a file changed since, another Node, a copy without its install, no file or a torn one', () => {
    const { root, copy, file, stamp } = setup();
    writeFileSync(path.join(root, 'a.ts'), 'two');
    expect(workingTreeStamp(root)).not.toBe(stamp);
    expect(takePreparedCopy(file, { version: 'v24.0.0', stamp: workingTreeStamp(root) })).toBeUndefined();
    writeFileSync(path.join(root, 'a.ts'), 'one');
    expect(workingTreeStamp(root)).toBe(stamp);
    writeFileSync(path.join(root, 'b.ts'), 'new, untracked');
    expect(workingTreeStamp(root)).not.toBe(stamp);
    expect(takePreparedCopy(file, { version: 'v24.0.1', stamp })).toBeUndefined();
    rmSync(path.join(copy, 'node_modules'), { recursive: true });
    expect(takePreparedCopy(file, { version: 'v24.0.0', stamp })).toBeUndefined();
    expect(takePreparedCopy(path.join(root, 'none.json'), { version: 'v24.0.0', stamp })).toBeUndefined();
    writeFileSync(file, '{"copy": "/x", "vers');
    expect(takePreparedCopy(file, { version: 'v24.0.0', stamp })).toBeUndefined();
  });
});

describe('the type-level tests', () => {
  it("are no test task's: vitest runs no tsc on either Node line (the typecheck task checks them, lint:code keeps every *.test-d.ts in it)", () => {
    const root = path.resolve(import.meta.dirname, '../..');
    const script = `import('./vitest.base.mjs').then((m) => console.log(JSON.stringify(m.default.test.typecheck ?? null)))`;
    expect(JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: root, encoding: 'utf8' }))).toBeNull();
    for (const p of workspacePackages(root).values()) expect(p.json.scripts?.test ?? '', p.name).not.toMatch(/--typecheck/);
    expect(readFileSync(path.resolve(import.meta.dirname, '../src/node24.ts'), 'utf8')).not.toMatch(/RUNLEDGER_TYPE_TESTS/);
  });
});

describe('the Chromium tests in the Node 24 pass', () => {
  /** What apps/cli's vitest config leaves out, with RUNLEDGER_BROWSER_TESTS as given. */
  function cliExcludes(browserTests: string | undefined): string[] {
    const env = { ...process.env };
    delete env.RUNLEDGER_BROWSER_TESTS;
    if (browserTests !== undefined) env.RUNLEDGER_BROWSER_TESTS = browserTests;
    const script = `import('./vitest.config.ts').then((m) => console.log(JSON.stringify(m.default.test.exclude)))`;
    return JSON.parse(
      execFileSync(process.execPath, ['--import', 'tsx', '-e', script], {
        cwd: path.resolve(import.meta.dirname, '../../apps/cli'),
        env,
        encoding: 'utf8',
      }),
    );
  }

  it('are left out only where RUNLEDGER_BROWSER_TESTS=off, which turbo passes through and the Node 24 pass sets', () => {
    const all = cliExcludes(undefined);
    expect(all.some((glob) => glob.includes('browser'))).toBe(false);
    expect(cliExcludes('off')).toEqual([...all, 'test/browser*.test.ts']);
    // the glob names every Chromium test file of the app, and only those
    const tests = path.resolve(import.meta.dirname, '../../apps/cli/test');
    const chromium = readdirSync(tests).filter(
      (f) => f.endsWith('.test.ts') && /playwright|chromium|browserHarness/i.test(readFileSync(path.join(tests, f), 'utf8')),
    );
    expect(chromium.length).toBeGreaterThan(0);
    for (const file of chromium) expect(file, `${file} drives Chromium`).toMatch(/^browser.*\.test\.ts$/);
    const turbo = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../turbo.json'), 'utf8')) as {
      globalPassThroughEnv: string[];
    };
    expect(turbo.globalPassThroughEnv).toContain('RUNLEDGER_BROWSER_TESTS');
    expect(readFileSync(path.resolve(import.meta.dirname, '../src/node24.ts'), 'utf8')).toMatch(/RUNLEDGER_BROWSER_TESTS: 'off'/);
  });
});
