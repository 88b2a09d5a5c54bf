/**
 * The last published release of a package: what its consumers have, and so what the next release
 * is judged against.
 *
 * `changeset publish` tags every package it publishes (`@runledger/core@0.3.0`) on the commit it
 * published from. The newest such tag that HEAD contains is the package's last release. Where tags
 * are missing (a clone that did not fetch them), the registry's version, which `release.ts` asks
 * for and passes as `API_GATE_RELEASED`, names it instead, and the release is the commit that set
 * that version in the package's package.json.
 */
import path from 'node:path';
import { git, revParse, showFile } from './git.ts';
import type { PackageInfo } from './workspace.ts';

/** The environment variable that carries the registry's versions to the gate. */
export const RELEASED_ENV = 'API_GATE_RELEASED';

export interface PackageRelease {
  version: string;
  /** the commit the release was made from */
  sha: string;
  /** how it was found, for the gate's log */
  how: string;
}

/**
 * Reads `API_GATE_RELEASED`: `<package>@<version>` items separated by spaces or commas.
 * @throws when an item is not of that form, naming the variable and the item
 */
export function parseReleased(value: string | undefined): Map<string, string> {
  const released: Map<string, string> = new Map();
  for (const item of (value ?? '').split(/[\s,]+/).filter(Boolean)) {
    const m = /^(@?[^@\s]+)@(\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]*)?)$/.exec(item);
    if (!m) throw new Error(`${RELEASED_ENV} must be a list of "<package>@<version>" separated by spaces or commas; got "${item}"`);
    released.set(m[1] as string, m[2] as string);
  }
  return released;
}

/** Compares two versions by major, minor, patch; a pre-release sorts before its release. */
function compareVersions(a: string, b: string): number {
  const parts = (v: string) => {
    const [core = '', pre] = v.split(/-(.*)/s);
    return { nums: core.split('.').map(Number), pre };
  };
  const x = parts(a);
  const y = parts(b);
  for (let i = 0; i < 3; i++) {
    const d = (x.nums[i] ?? 0) - (y.nums[i] ?? 0);
    if (d !== 0) return d;
  }
  if (x.pre === y.pre) return 0;
  if (x.pre === undefined) return 1;
  if (y.pre === undefined) return -1;
  return x.pre < y.pre ? -1 : 1;
}

/**
 * The newest commit on HEAD's first-parent line whose package.json has `version`, following it
 * back to where that version was set (the release's version commit).
 */
function versionCommit(pkg: PackageInfo, version: string, root: string): string | undefined {
  const packageJson = `${path.relative(root, pkg.dir).split(path.sep).join('/')}/package.json`;
  const out = git(['log', '--first-parent', '--format=%H', 'HEAD', '--', packageJson], root);
  let found: string | undefined;
  for (const sha of (out ?? '').split('\n').filter(Boolean)) {
    const text = showFile(sha, packageJson, root);
    let v: string | undefined;
    try {
      v = text ? (JSON.parse(text).version as string | undefined) : undefined;
    } catch {
      v = undefined;
    }
    if (v === version) found = sha;
    else if (found) break;
  }
  return found;
}

/**
 * The package's last published release that HEAD contains, or undefined when none is known.
 *   `registryVersion`: the registry's version of the package (from `API_GATE_RELEASED`), if given
 */
export function lastRelease(pkg: PackageInfo, root: string, registryVersion?: string): PackageRelease | undefined {
  const tagOf = (version: string) => {
    const tag = `${pkg.name}@${version}`;
    const sha = revParse(`refs/tags/${tag}`, root);
    return sha && git(['merge-base', '--is-ancestor', sha, 'HEAD'], root) !== undefined ? { tag, sha } : undefined;
  };
  if (registryVersion !== undefined) {
    const tagged = tagOf(registryVersion);
    if (tagged) return { version: registryVersion, sha: tagged.sha, how: `tag ${tagged.tag}, ${tagged.sha.slice(0, 12)}` };
    const sha = versionCommit(pkg, registryVersion, root);
    return sha ? { version: registryVersion, sha, how: `the registry's version, set by commit ${sha.slice(0, 12)}` } : undefined;
  }
  const tags = (git(['tag', '--merged', 'HEAD', '--list', `${pkg.name}@*`], root) ?? '')
    .split('\n')
    .map((t) => t.trim())
    .filter((t) => /^\d+\.\d+\.\d+/.test(t.slice(pkg.name.length + 1)));
  const newest = tags
    .map((t) => t.slice(pkg.name.length + 1))
    .sort(compareVersions)
    .at(-1);
  if (newest === undefined) return undefined;
  const tagged = tagOf(newest);
  return tagged ? { version: newest, sha: tagged.sha, how: `tag ${tagged.tag}, ${tagged.sha.slice(0, 12)}` } : undefined;
}

/**
 * The commit a package's report change is judged against: its last release when that release is
 * newer than the gate's base (the base already contains it), else the base. A release the base
 * already contains changes nothing: everything after the base is judged anyway.
 */
export function packageBase(
  base: string | undefined,
  release: PackageRelease | undefined,
  root: string,
): { sha: string | undefined; release: PackageRelease | undefined } {
  if (!release) return { sha: base, release: undefined };
  if (base === undefined || (release.sha !== base && git(['merge-base', '--is-ancestor', base, release.sha], root) !== undefined)) {
    return { sha: release.sha, release };
  }
  return { sha: base, release: undefined };
}
