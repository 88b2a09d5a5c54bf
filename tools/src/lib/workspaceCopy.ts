/**
 * A copy of the workspace's source files (what git tracks, plus new files git does not ignore,
 * as they are in the working tree) in another folder: a place to install and test on another
 * Node without touching this workspace's node_modules or dist.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, lstatSync, mkdirSync, readlinkSync, symlinkSync } from 'node:fs';
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
