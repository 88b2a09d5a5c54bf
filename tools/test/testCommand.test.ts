// `pnpm test` is one turbo run: every package's build, typecheck, lint, tests and report check,
// and the root's code lint and API gate as turbo tasks that start once every package's tests are
// done (beside the tools' release test, the longest task, instead of after it), and the packages'
// suites again on Node 24 (the root task `node24`), beside them. The pack smoke test runs inside
// the release test (its releases run `pnpm api:pack` on the same tree, versioned as published).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { workspacePackages } from '../src/lib/workspace.ts';
import { ROOT } from './helpers.js';

const scripts: Record<string, string> = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts;
const turbo = JSON.parse(readFileSync(path.join(ROOT, 'turbo.json'), 'utf8')) as {
  tasks: Record<string, { dependsOn?: string[]; cache?: boolean }>;
};
/** The root's checks that `pnpm test` runs as turbo tasks (each also a root script of its own). */
const ROOT_CHECKS = ['lint:code', 'api:gate'];

describe('.ci/run runs the README test command', () => {
  it("runs the README's test command line as it stands, which holds the Node 24 pass", () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const command = /^(npm install -g pnpm@10 && pnpm install --frozen-lockfile && pnpm test)$/m.exec(readme)?.[1];
    expect(command, 'README.md has no test command line').toBeDefined();
    const lines = readFileSync(path.join(ROOT, '.ci', 'run'), 'utf8').split('\n');
    expect(lines).toContain(command);
    // not a second time after it: the test command's turbo run has the Node 24 pass as a task
    expect(lines.filter((line) => /^\s*pnpm (run )?(test:)?node24\b/.test(line))).toEqual([]);
  });

  it('the turbo run has a concurrency fit for the 2-core machine (at most 5 tasks at once)', () => {
    // 4 suites and the release test: at 4, the release test (ready once the gates are done) queued
    // behind the suites that were ready before it and started 160 s late; at turbo's default of 10
    // the load reached 15 and timing-bound tests missed.
    const concurrency = Number(/--concurrency=(\d+)/.exec(scripts.test ?? '')?.[1]);
    expect(concurrency).toBeGreaterThanOrEqual(2);
    expect(concurrency).toBeLessThanOrEqual(5);
  });
});

describe('pnpm test runs every check in one turbo run', () => {
  const turboRun =
    /\bturbo run ([\w: -]+?)(?:$|&&| --)/
      .exec(scripts.test ?? '')?.[1]
      ?.trim()
      .split(/\s+/) ?? [];

  it('the package tasks, the root checks and the Node 24 pass are all in it', () => {
    expect(turboRun).toEqual(
      expect.arrayContaining(['build', 'typecheck', 'lint', 'test', 'api:check', ...ROOT_CHECKS, 'node24:prepare', 'node24']),
    );
  });

  it('the Node 24 pass is a root task after every package test, never cached, on the build the run made', () => {
    const task = turbo.tasks['//#node24'];
    expect(task, 'turbo.json has no task "//#node24"').toBeDefined();
    expect(task?.cache).toBe(false);
    // --built: no second turbo run of the builds inside this one (it would rewrite dist under the
    // tasks that read it); the dependencies below guarantee them
    expect(scripts.node24).toMatch(/tools\/src\/node24\.ts --built$/);
    expect(scripts['test:node24']).toMatch(/tools\/src\/node24\.ts$/);
    const tested = [...workspacePackages(ROOT).values()]
      .filter((p) => typeof p.json.scripts?.test === 'string')
      .map((p) => `${p.name}#test`);
    expect([...(task?.dependsOn ?? [])].sort()).toEqual([...tested, '//#node24:prepare'].sort());
  });

  it("the Node 24 pass's copy is installed beside the Node 20 suites, once the builds are done: the install is not on the run's longest path", () => {
    // The install in the copy (better-sqlite3 compiled for Node 24: 108 s on a loaded machine)
    // ran after the last Node 20 suite, on the run's longest path; `--prepare` makes the copy as
    // soon as the builds it copies exist, and the pass takes it (tools/test/node24.test.ts).
    const task = turbo.tasks['//#node24:prepare'];
    expect(task, 'turbo.json has no task "//#node24:prepare"').toBeDefined();
    expect(task?.cache).toBe(false);
    expect(scripts['node24:prepare']).toMatch(/tools\/src\/node24\.ts --prepare$/);
    const builds = [...workspacePackages(ROOT).values()]
      .filter((p) => typeof p.json.scripts?.build === 'string')
      .map((p) => `${p.name}#build`);
    expect([...(task?.dependsOn ?? [])].sort()).toEqual(builds.sort());
  });

  it('the pack smoke test runs once, in the release test: release 1 packs, installs and imports the same tree as published', () => {
    expect(turboRun).not.toContain('api:pack');
    expect(turbo.tasks['//#api:pack'], 'a second pack smoke beside the release test').toBeUndefined();
    expect(scripts['api:pack']).toMatch(/tools\/src\/pack-smoke\.ts$/);
    // the publish step of `pnpm release` runs it, and the release test (a tools test, in this run) runs `pnpm release`
    expect(readFileSync(path.join(ROOT, 'tools', 'src', 'release.ts'), 'utf8')).toMatch(/run\('pack smoke test', 'pnpm', \['api:pack'\]/);
    const releaseTest = readFileSync(path.join(ROOT, 'tools', 'test', 'release.test.ts'), 'utf8');
    expect(releaseTest).toMatch(/runCommand\('pnpm', \['release'\]/);
    expect(turboRun).toContain('test');
  });

  it("every package's tests wait for every package's build: the long suites do not hold the run's slots while the build chain waits", () => {
    // With --concurrency=4, suites started as soon as their own package was built held the slots
    // for minutes while the packages built after it (the CLI last) waited for one: a fresh-clone
    // run under load started the CLI's build 883 s in. Builds first, then the suites and gates.
    const builds = [...workspacePackages(ROOT).values()]
      .filter((p) => typeof p.json.scripts?.build === 'string')
      .map((p) => `${p.name}#build`);
    expect(builds.length).toBeGreaterThan(0);
    expect(turbo.tasks.test?.dependsOn).toEqual(expect.arrayContaining(builds));
  });

  it.each(ROOT_CHECKS)('%s is a root task, never cached, after every package test (tools excepted)', (check) => {
    const task = turbo.tasks[`//#${check}`];
    expect(task, `turbo.json has no task "//#${check}": turbo would not run the root script`).toBeDefined();
    expect(task?.cache).toBe(false);
    expect(scripts[check], `root package.json has no script "${check}"`).toBeDefined();
    // After the packages' tests: beside the release test and the Node 24 pass, not taking the
    // cores from the builds and package gates that the release test waits on.
    const tested = [...workspacePackages(ROOT).values()]
      .filter((p) => typeof p.json.scripts?.test === 'string')
      .map((p) => `${p.name}#test`);
    expect([...(task?.dependsOn ?? [])].sort()).toEqual(tested.sort());
  });
});
