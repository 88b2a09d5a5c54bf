/**
 * A copy of the workspace's source files (what git tracks, plus new files git does not ignore,
 * as they are in the working tree) in another folder: a place to install and test on another
 * Node without touching this workspace's node_modules or dist; the build output can follow
 * ({@link copyBuildOutputs}).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, cpSync, existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, symlinkSync } from 'node:fs';
import path from 'node:path';

/**
 * Files of the working tree that git tracks or would track (not ignored), relative to `root`.
 * A tracked file deleted in the working tree is left out.
 */
export function workingTreeFiles(root: string): string[] {
  const out = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return [...new Set(out.split('\0').filter((f) => f !== ''))].filter(
    (f) => existsSync(path.join(root, f)) || isSymlink(path.join(root, f)),
  );
}

function isSymlink(p: string) {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * Copies the working tree's files (see {@link workingTreeFiles}) from `root` into `dest`, which
 * must not exist yet or be empty. Modes are kept (scripts stay executable); symlinks stay links.
 * @returns how many files were copied
 */
export function copyWorkingTree(root: string, dest: string): number {
  const files = workingTreeFiles(root);
  for (const f of files) {
    const from = path.join(root, f);
    const to = path.join(dest, f);
    mkdirSync(path.dirname(to), { recursive: true });
    if (isSymlink(from)) symlinkSync(readlinkSync(from), to);
    else copyFileSync(from, to);
  }
  return files.length;
}

/**
 * Copies each package's build output (`<package>/dist`, what turbo's `build` task writes) from
 * `root` into the same folders under `dest`, so a copy can run the test suites against the
 * workspace's build instead of building again.
 * @param packageDirs the packages' folders under `root` (absolute or relative to it)
 * @returns the packages whose dist was copied, relative to `root`
 * @throws when a package has a `build` script but no dist (the workspace is not built)
 */
export function copyBuildOutputs(root: string, dest: string, packageDirs: string[]): string[] {
  const copied: string[] = [];
  for (const dir of packageDirs) {
    const rel = path.relative(root, path.resolve(root, dir));
    const json = JSON.parse(readFileSync(path.join(root, rel, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
    if (typeof json.scripts?.build !== 'string') continue;
    const dist = path.join(root, rel, 'dist');
    if (!existsSync(dist)) throw new Error(`copyBuildOutputs: ${rel} has a build script but no dist at ${dist}; build the workspace first`);
    cpSync(dist, path.join(dest, rel, 'dist'), { recursive: true, verbatimSymlinks: true });
    copied.push(rel);
  }
  return copied;
}

/**
 * A fingerprint of the working tree's files (see {@link workingTreeFiles}): their names and
 * contents. Two equal stamps mean a copy made at the first still holds the second's sources.
 */
export function workingTreeStamp(root: string): string {
  const hash = createHash('sha256');
  for (const f of workingTreeFiles(root).sort()) {
    const p = path.join(root, f);
    hash.update(`${f}\0`);
    hash.update(isSymlink(p) ? `link:${readlinkSync(p)}` : readFileSync(p));
    hash.update('\0');
  }
  return hash.digest('hex');
}
