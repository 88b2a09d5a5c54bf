/** The few git questions the gate asks. */
import { execFileSync } from 'node:child_process';

/**
 * @returns stdout, or undefined when git fails
 */
export function git(args: string[], cwd: string): string | undefined {
  try {
    return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 64 * 1024 * 1024 });
  } catch {
    return undefined;
  }
}

export const revParse = (ref: string, cwd: string) =>
  git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], cwd)?.trim() || undefined;

/**
 * The commit to compare against:
 * 1. `API_GATE_BASE` (any ref) when set;
 * 2. the merge base with `origin/main` when that exists and differs from HEAD (a branch);
 * 3. `HEAD~1` (on main itself: the previous commit);
 * 4. none (the first commit): every report is the initial surface.
 */
export function resolveBase(cwd: string, env: NodeJS.ProcessEnv = process.env): { sha: string | undefined; how: string } {
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
 */
export function showFile(sha: string, relPath: string, cwd: string) {
  return git(['show', `${sha}:${relPath}`], cwd);
}

/**
 * Paths under a folder at a commit.
 */
export function listFiles(sha: string, relDir: string, cwd: string) {
  const out = git(['ls-tree', '-r', '--name-only', sha, '--', relDir], cwd);
  return out ? out.split('\n').filter(Boolean) : [];
}
