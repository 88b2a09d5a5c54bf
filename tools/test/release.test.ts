// The release pipeline against a real registry: Verdaccio in its own process, a copy of this
// repository released with `pnpm release` three times (the third refused) (as a clone made as docs/releasing.md says:
// origin/main stays where the copy started), and a consumer project made with plain npm that
// installs, upgrades and uses what was published. Slow (minutes): builds, installs from a
// registry, better-sqlite3 in the consumer from a local prebuild of the workspace's build.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readChangesets } from '../src/lib/changesets.ts';
import { PUBLISH_TASKS } from '../src/release.ts';
import { copyCacheEntry, turboCacheDir, turboSnapshot } from '../src/lib/turboReuse.ts';
import { SQLITE_BINDING, sqliteLocalPrebuild } from '../src/lib/sqliteBinding.ts';
import { publishedPackages } from '../src/lib/workspace.ts';
import { cleanEnv, mustRun, runCommand } from './commands.js';
import { ROOT } from './helpers.js';
import { CONSUMER_CLI, CONSUMER_LIBRARIES, makeConsumer, type Consumer } from './releaseConsumer.js';
import { commitAll, copyRepository } from './repoCopy.js';
import { startVerdaccio, type Verdaccio } from './verdaccio.js';

const SCOPE = '@runledger';
const MINUTES = 60_000;
const PROBE = 'releasePipelineProbe';
// The package releases 2 and 3 change: one the consumer uses. Every published package is in one
// fixed group (.changeset/config.json), so each release moves all of them to one version.
// The probed package is the one no other package depends on (the CLI): its change rebuilds and
// checks it alone in the releases after it, not every dependent of a library as well.
const PROBED = { name: '@runledger/cli', folder: path.join('apps', 'cli'), report: 'cli' };

let work: string;
let repo: string;
let registry: Verdaccio;
let consumer: Consumer;
/** The better-sqlite3 prebuild the consumer's install script finds (lib/sqliteBinding.ts), if the workspace has one. */
let prebuild: string | undefined;
// JOBS=max: where node-gyp compiles better-sqlite3 (a consumer that resolves another release), on every core.
const env = cleanEnv({ JOBS: 'max' });
const started = Date.now();
const timings: string[] = [];

function timed<T>(what: string, step: () => T): T {
  const t0 = Date.now();
  try {
    return step();
  } finally {
    timings.push(`${what}: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
}

/** The package versions in the repository copy, by name. */
function repoVersions(): Map<string, string> {
  return new Map(publishedPackages(repo).map((p) => [p.name, p.version]));
}

/**
 * What the registry holds of one package: its `latest` and every version, from its packument (the
 * document `npm view` reads), read over HTTP on a connection of its own (verdaccio.ts, getOnce):
 * one npm process less per package and release.
 */
async function published(name: string): Promise<{ latest: string | undefined; versions: string[] }> {
  const { status, body } = await registry.packument(name);
  expect(status, `GET ${name} from ${registry.url}`).toBe(200);
  const doc = body as { 'dist-tags'?: Record<string, string>; versions?: Record<string, unknown> };
  return { latest: doc['dist-tags']?.latest, versions: Object.keys(doc.versions ?? {}) };
}

function release(): ReturnType<typeof runCommand> {
  const r = timed('pnpm release', () => runCommand('pnpm', ['release'], repo, env));
  timings.push(...[...r.stdout.matchAll(/^release: (.+ done in [0-9.]+ s)$/gm)].map((m) => `  ${m[1]}`));
  return r;
}

/** Writes the probe function into the probed package's entry point, or takes it out again. */
function setProbe(present: boolean): void {
  const index = path.join(repo, PROBED.folder, 'src', 'index.ts');
  const file = path.join(repo, PROBED.folder, 'src', `${PROBE}.ts`);
  const line = `export { ${PROBE} } from './${PROBE}.js';\n`;
  const text = readFileSync(index, 'utf8');
  if (present) {
    writeFileSync(
      file,
      `/**\n * Names the release of the pipeline test that shipped this function.\n * @public\n */\nexport function ${PROBE}(): string {\n  return 'release 2';\n}\n`,
    );
    writeFileSync(index, text + line);
  } else {
    rmSync(file);
    writeFileSync(index, text.replace(line, ''));
  }
  // Only this package changed and its workspace dependencies are built: build it alone, then its report.
  timed(`build ${PROBED.report} + api:update`, () => {
    mustRun('pnpm', ['--filter', PROBED.name, 'build'], repo, env);
    mustRun('pnpm', ['--filter', PROBED.name, 'api:update'], repo, env);
  });
}

function changeset(name: string, bump: string, summary: string, also: Record<string, string> = {}): void {
  const lines = Object.entries({ [PROBED.name]: bump, ...also }).map(([pkg, b]) => `"${pkg}": ${b}`);
  writeFileSync(path.join(repo, '.changeset', `${name}.md`), `---\n${lines.join('\n')}\n---\n\n${summary}\n`);
}

/** The consumer has one copy of core, at this version (`npm ls`: nothing nested). */
function expectOneCore(version: string): void {
  expect(consumer.copies('@runledger/core')).toEqual(['node_modules/@runledger/core']);
  expect(consumer.installedVersion('@runledger/core')).toBe(version);
}

beforeAll(async () => {
  work = mkdtempSync(path.join(os.tmpdir(), 'runledger-release-'));
  repo = path.join(work, 'repo');
  registry = await startVerdaccio(SCOPE);
  timed('copy + pnpm install', () => copyRepository(ROOT, repo, registry.npmrc(SCOPE), env));
  // The workspace's cached results of the publish tasks, where the copy's hashes are the same (it
  // is the same tree): `pnpm test` runs this test after them (turbo.json), so release 1 replays
  // what its version step did not change instead of building and checking every package again.
  const carried = timed('turbo cache from the workspace', () => {
    const [from, to] = [turboCacheDir(ROOT, process.env), turboCacheDir(repo, env)];
    return [...turboSnapshot(repo, PUBLISH_TASKS, env).tasks.values()].filter((t) => copyCacheEntry(from, t.hash, to, t.hash)).length;
  });
  timings.push(`  ${carried} cached results of the workspace`);
  // as `git clone` leaves it: origin/main where the copy started, never moved by the releases
  mustRun('git', ['update-ref', 'refs/remotes/origin/main', 'HEAD'], repo, env);
  // better-sqlite3's install script in the consumer unpacks the workspace's build as its prebuilt
  // download instead of compiling it (minutes on 2 cores): the install path stays the real one.
  const local = sqliteLocalPrebuild(ROOT, path.join(work, 'prebuilds'));
  prebuild = local.tarball;
  consumer = makeConsumer(path.join(work, 'consumer'), registry.npmrc(SCOPE), { ...env, ...local.env });
}, 10 * MINUTES);

afterAll(async () => {
  await registry?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
  console.log(`release test: ${((Date.now() - started) / 1000).toFixed(0)} s in all\n  ${timings.join('\n  ')}`);
});

describe('the release pipeline against Verdaccio', { timeout: 20 * MINUTES }, () => {
  let afterRelease2: Map<string, string>;
  let publishedAfterRelease2: Map<string, Awaited<ReturnType<typeof published>>>;

  it('release 1: versions from the pending changesets, a CHANGELOG.md per package, published', async () => {
    const before = repoVersions();
    const pending = readChangesets(path.join(repo, '.changeset'));
    expect(pending.length).toBeGreaterThan(0);

    const r = release();
    expect(r.status, r.output.slice(-20_000)).toBe(0);

    const after = repoVersions();
    expect(readChangesets(path.join(repo, '.changeset'))).toEqual([]);
    expect(mustRun('git', ['log', '-1', '--format=%s'], repo, env).stdout.trim()).toBe('Version Packages');
    for (const [name, version] of after) {
      const mine = pending.filter((cs) => cs.releases.has(name));
      if (mine.length > 0) {
        expect(version, name).not.toBe(before.get(name));
        const changelog = readFileSync(path.join(publishedPackages(repo).find((p) => p.name === name)!.dir, 'CHANGELOG.md'), 'utf8');
        expect(changelog, name).toContain(`## ${version}`);
        for (const cs of mine) expect(changelog, `${name} ← ${cs.file}`).toContain(cs.summary.split('\n')[0]);
      }
      expect(await published(name), name).toEqual({ latest: version, versions: [version] });
    }
    expect(mustRun('npm', ['view', '@runledger/core', 'version', `--registry=${registry.url}`], work, env).stdout.trim()).toBe(
      after.get('@runledger/core'),
    );
  });

  it('a plain npm project installs the packages and the CLI, records a run against a real MCP server and lists it', () => {
    timed('consumer npm install', () => consumer.installLibraries());
    // its install script ran and took the local prebuild where it names the installed release (a newer
    // 12.x on the registry than the workspace's: compiled, as on a machine whose download failed)
    const sqlite = path.join(consumer.dir, 'node_modules', 'better-sqlite3');
    expect(existsSync(path.join(sqlite, SQLITE_BINDING)), 'better-sqlite3 has its native module').toBe(true);
    const compiled = existsSync(path.join(sqlite, 'build', 'Release', 'obj.target'));
    timings.push(`  better-sqlite3 ${compiled ? 'compiled' : `from the local prebuild ${prebuild}`}`);
    if (prebuild?.includes(`-v${consumer.installedVersion('better-sqlite3')}-`))
      expect(compiled, 'the local prebuild was used').toBe(false);
    const versions = repoVersions();
    for (const name of CONSUMER_LIBRARIES) {
      expect(consumer.installedVersion(name), name).toBe(versions.get(name));
      // the release notes ship in the tarball (package.json "files")
      const changelog = readFileSync(path.join(consumer.dir, 'node_modules', ...name.split('/'), 'CHANGELOG.md'), 'utf8');
      expect(changelog, `${name}/CHANGELOG.md`).toContain(`## ${versions.get(name)}`);
    }
    timed('consumer tsc', () => consumer.typecheck());
    const run = timed('consumer run', () => consumer.record());
    expect(run).toMatchObject({ status: 'completed', outcome: 'ok' });

    expect(versions.has(CONSUMER_CLI), `${CONSUMER_CLI} is not a published package of this repository`).toBe(true);
    timed('consumer npm i -D the CLI', () => consumer.installCli());
    expect(consumer.installedVersion(CONSUMER_CLI)).toBe(versions.get(CONSUMER_CLI));
    const row = consumer
      .runsList()
      .split('\n')
      .find((line) => line.includes(run.runId));
    expect(row, 'runledger runs list shows the run').toBeDefined();
    expect(row).toMatch(/\bcompleted\b/);
    expect(row).toMatch(/consumer-release-test/);
  });

  it('release 2: an additive change with a minor changeset (and a minor of core) is released, every package with it; npm update keeps one core, raising the ranges takes all', async () => {
    const before = repoVersions();
    const [major, minor] = before.get('@runledger/core')!.split('.').map(Number);
    const next = `${major}.${minor! + 1}.0`;
    setProbe(true);
    changeset('release-probe', 'minor', `New: \`${PROBE}()\` names the release that shipped it.`, { '@runledger/core': 'minor' });
    commitAll(repo, `${PROBED.report}: ${PROBE} (additive), with a minor changeset and a minor of core`, env);

    const r = release();
    expect(r.status, r.output.slice(-20_000)).toBe(0);

    afterRelease2 = repoVersions();
    publishedAfterRelease2 = new Map(
      await Promise.all([...afterRelease2.keys()].map(async (name) => [name, await published(name)] as const)),
    );
    // one fixed group: every published package moves to the same version
    for (const [name, version] of afterRelease2) {
      expect(version, name).toBe(next);
      expect(publishedAfterRelease2.get(name)?.latest, name).toBe(next);
    }
    const changelog = readFileSync(path.join(repo, PROBED.folder, 'CHANGELOG.md'), 'utf8');
    expect(changelog.indexOf(`## ${next}`)).toBeLessThan(changelog.indexOf(`## ${before.get(PROBED.name)}`));
    expect(changelog).toContain(`${PROBE}()\` names the release`);

    // a 0.x minor is breaking: the consumer's caret ranges refuse it, so npm update moves nothing
    // and never takes a dependent that would nest a second copy of core
    timed('consumer npm update after a minor', () => consumer.update());
    for (const name of [...CONSUMER_LIBRARIES, CONSUMER_CLI]) expect(consumer.installedVersion(name), name).toBe(before.get(name));
    expectOneCore(before.get('@runledger/core')!);
    timed('consumer tsc', () => consumer.typecheck());

    // taking it: raise every @runledger range together (docs/consuming.md), migrate, type-check
    timed('consumer raises to the minor', () => {
      consumer.install(CONSUMER_LIBRARIES.map((name) => `${name}@^${next}`));
      consumer.install([`${CONSUMER_CLI}@^${next}`], { dev: true });
    });
    expectOneCore(next);
    for (const name of [...CONSUMER_LIBRARIES, CONSUMER_CLI]) expect(consumer.installedVersion(name), name).toBe(next);
    writeFileSync(
      path.join(consumer.dir, 'src', 'probe.ts'),
      `import { ${PROBE} } from '${PROBED.name}';\nconst which: string = ${PROBE}();\nconsole.log(which);\n`,
    );
    consumer.typecheck();
    expect(mustRun(process.execPath, ['dist/probe.js'], consumer.dir, env).stdout.trim()).toBe('release 2');
    const run = consumer.record();
    expect(run).toMatchObject({ status: 'completed', outcome: 'ok' });
    expect(consumer.runsList()).toContain(run.runId);
  });

  it('release 3: a breaking change with a patch changeset is refused before anything is published (two releases after the clone, the last a minor, origin/main not moved)', async () => {
    setProbe(false);
    changeset('drop-release-probe', 'patch', `Removes \`${PROBE}()\`.`);
    commitAll(repo, `${PROBED.report}: drop ${PROBE} (breaking, only a patch changeset)`, env);

    const r = release();
    expect(r.status).not.toBe(0);
    expect(r.output).toContain(
      `${PROBED.name}: breaking change to api-reports/${PROBED.report}.api.md needs a changeset bumping it at least "minor"`,
    );
    expect(r.output).toContain('release: API gate before versioning failed');
    expect(repoVersions()).toEqual(afterRelease2);
    for (const [name, version] of afterRelease2) {
      const now = await published(name);
      expect(now, name).toEqual(publishedAfterRelease2.get(name));
      expect(now.latest, name).toBe(version);
    }
  });
});
