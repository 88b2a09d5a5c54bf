/**
 * pnpm release:version | release:publish | release — the release pipeline (docs/releasing.md).
 *
 *   version  1. the API gate on the commit as it stands (`pnpm api:gate`): a report change whose
 *               changeset bumps too little is refused here, before any version moves; each
 *               package is judged since its last release (its tag, or the registry's version,
 *               passed to the gate as API_GATE_RELEASED);
 *            2. `changeset version`: raises the versions, writes each CHANGELOG.md from the
 *               changesets and consumes them;
 *            3. `pnpm install --lockfile-only`, so the lockfile agrees with the new versions.
 *   publish  1. `turbo run build typecheck lint api:check` (build, then every per-package gate);
 *            2. `pnpm api:gate` again: after `changeset version` the changesets are gone, and the
 *               gate counts the version raised in package.json instead (a patch raise does not
 *               cover a breaking change);
 *            3. `pnpm api:pack` (the tarballs install and import with types);
 *            4. `changeset publish` to the registry of the normal npm config.
 *   all      version, then a "Version Packages" commit (what the changesets action's version PR
 *            holds), then publish. Needs a clean working tree. turbo's cached results of the
 *            publish step's tasks that the version step did not change (only their own package's
 *            "version" moved: lib/turboReuse.ts) are carried to their new hashes, so turbo replays
 *            them instead of building and checking every package again.
 *
 * The changesets GitHub action calls `pnpm release:version` (for its version PR) and
 * `pnpm release:publish` (once that PR is merged). Any step that fails stops the pipeline:
 * nothing is published unless every gate passed.
 */
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { git } from './lib/git.ts';
import { publishRegistry, registryVersions } from './lib/registry.ts';
import type { PublishRegistry } from './lib/registry.ts';
import { RELEASED_ENV } from './lib/releases.ts';
import { copyCacheEntry, sameAcrossVersions, turboCacheDir, turboSnapshot } from './lib/turboReuse.ts';
import type { TurboSnapshot } from './lib/turboReuse.ts';
import { publishedPackages, WORKSPACE_ROOT } from './lib/workspace.ts';

/** The commit message of the version step, as the changesets action titles its PR. */
export const VERSION_COMMIT_MESSAGE = 'Version Packages';

/** A release step that failed; the message names the step and says that nothing was published. */
export class ReleaseError extends Error {}

export interface ReleaseOptions {
  /** the workspace root (default: this repository) */
  root?: string;
  /** environment of every step (default: process.env) */
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
}

/**
 * Runs one command of the pipeline with inherited output.
 * @param step what the step is, for the messages
 */
function run(step: string, command: string, args: string[], opts: Required<ReleaseOptions>, extraEnv: NodeJS.ProcessEnv = {}) {
  opts.log(`release: ${step}: ${command} ${args.join(' ')}`);
  const started = Date.now();
  const r = spawnSync(command, args, { cwd: opts.root, stdio: 'inherit', env: { ...opts.env, ...extraEnv } });
  if (r.error) throw new ReleaseError(`release: ${step} could not start "${command}": ${r.error.message}`);
  if (r.status !== 0)
    throw new ReleaseError(`release: ${step} failed (${command} ${args.join(' ')} exited ${r.status ?? r.signal}); nothing was published`);
  opts.log(`release: ${step} done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

function withDefaults(opts: ReleaseOptions): Required<ReleaseOptions> {
  return { root: opts.root ?? WORKSPACE_ROOT, env: opts.env ?? process.env, log: opts.log ?? ((s) => console.log(s)) };
}

/** The registry the published packages go to (they must share one scope). */
function registryOf(opts: Required<ReleaseOptions>): { scope: string; registry: PublishRegistry } {
  const scopes = [...new Set(publishedPackages(opts.root).map((p) => (p.name.startsWith('@') ? p.name.split('/')[0] : undefined)))];
  if (scopes.length !== 1 || scopes[0] === undefined) {
    throw new ReleaseError(`release: the published packages must share one npm scope, found ${scopes.map(String).join(', ') || 'none'}`);
  }
  return { scope: scopes[0], registry: publishRegistry({ scope: scopes[0], root: opts.root, env: opts.env }) };
}

/**
 * Runs `pnpm api:gate` with what the registry holds of each package (API_GATE_RELEASED): the gate
 * judges a package since that release, also where its tag is missing (docs/releasing.md).
 */
function gate(step: string, registry: PublishRegistry, opts: Required<ReleaseOptions>) {
  let versions: Map<string, string>;
  try {
    versions = registryVersions({ names: publishedPackages(opts.root).map((p) => p.name), registry, root: opts.root, env: opts.env });
  } catch (e) {
    throw new ReleaseError(`release: ${step} could not ask the registry what it holds: ${(e as Error).message}; nothing was published`);
  }
  const released = [...versions].map(([name, version]) => `${name}@${version}`).join(' ');
  opts.log(`release: the registry holds ${released || 'none of the packages yet'}`);
  run(step, 'pnpm', ['api:gate'], opts, { [RELEASED_ENV]: released });
}

/**
 * The version step: gate, `changeset version`, lockfile.
 */
export function releaseVersion(options: ReleaseOptions = {}) {
  const opts = withDefaults(options);
  gate('API gate before versioning', registryOf(opts).registry, opts);
  run('version', 'pnpm', ['exec', 'changeset', 'version'], opts);
  run('lockfile', 'pnpm', ['install', '--lockfile-only', '--ignore-scripts'], opts);
}

/** The turbo tasks of the publish step: build, then every per-package gate. */
export const PUBLISH_TASKS = ['build', 'typecheck', 'lint', 'api:check'];

/**
 * Carries turbo's cached results of the publish tasks that the version step left the same to their
 * new hashes (lib/turboReuse.ts). A failure here costs only time: it is logged, and turbo runs them.
 */
function reuseAcrossVersions(before: TurboSnapshot | undefined, opts: Required<ReleaseOptions>) {
  if (before === undefined) return;
  try {
    const same = sameAcrossVersions(before, turboSnapshot(opts.root, PUBLISH_TASKS, opts.env));
    const cache = turboCacheDir(opts.root, opts.env);
    const copied = same.filter((s) => copyCacheEntry(cache, s.from, cache, s.to));
    opts.log(
      `release: ${same.length} of the publish step's tasks are the same as before the version step (only their package's version moved); ${copied.length} cached results carried to their new hashes`,
    );
  } catch (e) {
    opts.log(`release: turbo's results not carried across the version step (${(e as Error).message}); turbo runs every task`);
  }
}

/**
 * The publish step: build and every gate, then `changeset publish` to the configured registry.
 */
export function releasePublish(options: ReleaseOptions = {}) {
  const opts = withDefaults(options);
  const { scope, registry } = registryOf(opts);
  opts.log(`release: ${scope} packages go to ${registry.url} (from ${registry.from})`);
  run('build and package gates', 'pnpm', ['exec', 'turbo', 'run', ...PUBLISH_TASKS], opts);
  gate('API gate', registry, opts);
  run('pack smoke test', 'pnpm', ['api:pack'], opts);
  // changesets reads the registry from npm_config_* only (not from .npmrc): pass the one found.
  run('publish', 'pnpm', ['exec', 'changeset', 'publish'], opts, { [registry.envName]: registry.url });
}

/**
 * Version, commit, publish: a whole release from a clean working tree.
 */
export function releaseAll(options: ReleaseOptions = {}) {
  const opts = withDefaults(options);
  const dirty = git(['status', '--porcelain', '--untracked-files=no'], opts.root);
  if (dirty === undefined) throw new ReleaseError(`release: ${opts.root} is not a git working tree; the API gate needs the history`);
  if (dirty.trim() !== '') {
    throw new ReleaseError(`release: the working tree has uncommitted changes; commit or stash them first:\n${dirty.trimEnd()}`);
  }
  let before: TurboSnapshot | undefined;
  try {
    before = turboSnapshot(opts.root, PUBLISH_TASKS, opts.env);
  } catch (e) {
    opts.log(`release: no turbo snapshot before the version step (${(e as Error).message}); turbo runs every task`);
  }
  releaseVersion(opts);
  run('version commit (staging)', 'git', ['add', '--update', '--', '.'], opts);
  const changelogs = (git(['ls-files', '--others', '--exclude-standard'], opts.root) ?? '')
    .split('\n')
    .filter((f) => /(^|\/)CHANGELOG\.md$/.test(f));
  if (changelogs.length > 0) run('version commit (new changelogs)', 'git', ['add', '--', ...changelogs], opts);
  const staged = git(['diff', '--cached', '--name-only'], opts.root) ?? '';
  if (staged.trim() === '') opts.log('release: changeset version changed nothing; nothing to commit');
  else run('version commit', 'git', ['commit', '--quiet', '--no-verify', '-m', VERSION_COMMIT_MESSAGE], opts);
  reuseAcrossVersions(before, opts);
  releasePublish(opts);
}

const COMMANDS: Record<string, (options?: ReleaseOptions) => void> = { version: releaseVersion, publish: releasePublish, all: releaseAll };

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const command = process.argv[2] ?? '';
  const action = COMMANDS[command];
  if (!action) {
    console.error(`usage: node tools/src/release.ts ${Object.keys(COMMANDS).join('|')} (got "${command}")`);
    process.exit(2);
  }
  try {
    action();
    console.log(`✔ release ${command} done`);
  } catch (e) {
    if (!(e instanceof ReleaseError)) throw e;
    console.error(`✖ ${e.message}`);
    process.exit(1);
  }
}
