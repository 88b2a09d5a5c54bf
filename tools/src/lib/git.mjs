// @ts-check
/** The few git questions the gate asks. */
import { execFileSync } from 'node:child_process';

/**
 * @param {string[]} args @param {string} cwd
 * @returns {string | undefined} stdout, or undefined when git fails
 */
export function git(args, cwd) {
  try {
    return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 64 * 1024 * 1024 });
  } catch {
    return undefined;
  }
}

/** @param {string} ref @param {string} cwd */
export const revParse = (ref, cwd) => git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], cwd)?.trim() || undefined;

/**
 * The commit to compare against:
 * 1. `API_GATE_BASE` (any ref) when set;
 * 2. the merge base with `origin/main` when that exists and differs from HEAD (a branch);
 * 3. `HEAD~1` (on main itself: the previous commit);
 * 4. none (the first commit): every report is the initial surface.
 * @param {string} cwd @param {NodeJS.ProcessEnv} [env]
 * @returns {{ sha: string | undefined, how: string }}
 */
export function resolveBase(cwd, env = process.env) {
  if (env.API_GATE_BASE) {
    const sha = revParse(env.API_GATE_BASE, cwd);
    if (!sha) throw new Error(`API_GATE_BASE=${env.API_GATE_BASE} is not a commit in this repository`);
    return { sha, how: `API_GATE_BASE=${env.API_GATE_BASE}` };
  }
  const head = revParse('HEAD', cwd);
  if (!head) return { sha: undefined, how: 'no commits yet' };
  const upstream = revParse('origin/main', cwd);
  if (upstream) {
    const mb = git(['merge-base', 'HEAD', upstream], cwd)?.trim();
    if (mb && mb !== head) return { sha: mb, how: 'merge base with origin/main' };
  }
  const parent = revParse('HEAD~1', cwd);
  if (parent) return { sha: parent, how: 'HEAD~1 (previous commit)' };
  return { sha: undefined, how: 'first commit (no base)' };
}

/**
 * A file's text at a commit, or undefined when it did not exist there.
 * @param {string} sha @param {string} relPath @param {string} cwd
 */
export function showFile(sha, relPath, cwd) {
  return git(['show', `${sha}:${relPath}`], cwd);
}

/**
 * Paths under a folder at a commit.
 * @param {string} sha @param {string} relDir @param {string} cwd
 */
export function listFiles(sha, relDir, cwd) {
  const out = git(['ls-tree', '-r', '--name-only', sha, '--', relDir], cwd);
  return out ? out.split('\n').filter(Boolean) : [];
}
