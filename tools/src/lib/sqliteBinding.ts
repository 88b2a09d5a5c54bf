/**
 * better-sqlite3's native module for a scratch consumer project (api:pack's pnpm project, its
 * plain npm consumer): its install script compiles it from source here (its prebuilt download is
 * unreachable; ~80 s on 2 cores, four times a CI run before this). The workspace holds a build for
 * this very Node, so the consumer gets a copy of it when both are the same better-sqlite3 release;
 * otherwise its own install script runs (`npm rebuild` in that folder). The checks that follow load it.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** The native module of better-sqlite3, relative to its package folder. */
export const SQLITE_BINDING = path.join('build', 'Release', 'better_sqlite3.node');

const versionOf = (dir: string): string =>
  (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string }).version;

/** The better-sqlite3 folder that `from` (a package.json) resolves, or undefined. */
function resolveSqlite(from: string): string | undefined {
  try {
    return realpathSync(path.dirname(createRequire(realpathSync(from)).resolve('better-sqlite3/package.json')));
  } catch {
    return undefined;
  }
}

/**
 * Gives the better-sqlite3 that `consumerPackage` resolves the workspace's native module, or builds it.
 * @param root the workspace
 * @param consumerPackage a package.json inside the consumer that depends on better-sqlite3
 *   (the consumer's installed `@runledger/store-sqlite`, or the project's own package.json)
 * @returns how it was provided ('copied', 'built', 'absent'), or a failure
 */
export function provideSqliteBinding(
  root: string,
  consumerPackage: string,
): { how: 'copied' | 'built' | 'absent'; failure?: undefined } | { how?: undefined; failure: string } {
  const installed = resolveSqlite(consumerPackage);
  if (installed === undefined) return { how: 'absent' }; // not a dependency: nothing to build
  if (existsSync(path.join(installed, SQLITE_BINDING))) return { how: 'built' }; // its own script ran
  const built = resolveSqlite(path.join(root, 'packages', 'store-sqlite', 'package.json'));
  if (built !== undefined && existsSync(path.join(built, SQLITE_BINDING)) && versionOf(built) === versionOf(installed)) {
    mkdirSync(path.dirname(path.join(installed, SQLITE_BINDING)), { recursive: true });
    copyFileSync(path.join(built, SQLITE_BINDING), path.join(installed, SQLITE_BINDING));
    return { how: 'copied' };
  }
  const r = spawnSync('npm', ['run', 'install'], { cwd: installed, encoding: 'utf8' });
  return r.status === 0
    ? { how: 'built' }
    : { failure: `building better-sqlite3 ${versionOf(installed)} in ${installed} failed:\n${r.stdout}${r.stderr}` };
}

/**
 * A local prebuild of better-sqlite3 for a consumer that installs it with its own install script
 * (`prebuild-install || node-gyp rebuild`): the tarball prebuild-install would download from the
 * project's releases (unreachable here), made from the workspace's build for this very Node, in
 * `dir`, and the environment that points prebuild-install at it
 * (`npm_config_better_sqlite3_local_prebuilds`). The consumer's install still runs its script and
 * unpacks a prebuilt module, as it does on a machine with internet, instead of compiling for minutes.
 * A consumer that resolves another release of better-sqlite3 finds no tarball of its name and compiles.
 * @returns the environment to add, and the tarball's name; empty when the workspace has no build
 */
export function sqliteLocalPrebuild(root: string, dir: string): { env: NodeJS.ProcessEnv; tarball?: string } {
  const built = resolveSqlite(path.join(root, 'packages', 'store-sqlite', 'package.json'));
  if (built === undefined || !existsSync(path.join(built, SQLITE_BINDING))) return { env: {} };
  // prebuild-install's name: {name}-v{version}-{runtime}-v{abi}-{platform}{libc}-{arch}.tar.gz (glibc: no libc part)
  const tarball = `better-sqlite3-v${versionOf(built)}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  mkdirSync(dir, { recursive: true });
  const r = spawnSync('tar', ['-czf', path.join(dir, tarball), '-C', built, SQLITE_BINDING], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`tar of ${path.join(built, SQLITE_BINDING)} failed: ${r.error?.message ?? r.stderr}`);
  return { env: { npm_config_better_sqlite3_local_prebuilds: dir }, tarball };
}
