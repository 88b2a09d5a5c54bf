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

/** A full object id: what a commit's tree is cached by (a ref such as `HEAD` can move; an id cannot). */
const OBJECT_ID = /^[0-9a-f]{40}$/;

/** Each commit's files (path → blob id) and each blob's text, by repository: one `git ls-tree` per commit, one `git cat-file` per distinct file version. */
const trees = new Map<string, Map<string, string> | null>();
const blobs = new Map<string, string>();

/**
 * Every file of a commit (path → blob id), read once per commit and repository; undefined when
 * git cannot read the commit. The gate walks dozens of commits whose reports mostly did not
 * change: it asks git for each distinct version of a file once, instead of once per commit and file.
 */
function treeOf(ref: string, cwd: string): Map<string, string> | undefined {
  const sha = OBJECT_ID.test(ref) ? ref : revParse(ref, cwd);
  if (sha === undefined) return undefined;
  const key = `${cwd}\0${sha}`;
  let tree = trees.get(key);
  if (tree === undefined) {
    const out = git(['ls-tree', '-r', '-z', '--full-tree', sha], cwd);
    tree = out === undefined ? null : new Map();
    // "<mode> <type> <id>\t<path>\0" per file
    for (const entry of out?.split('\0') ?? []) {
      const tab = entry.indexOf('\t');
      const [, type, id] = entry.slice(0, tab).split(' ');
      if (tab > 0 && type === 'blob' && id !== undefined) tree?.set(entry.slice(tab + 1), id);
    }
    trees.set(key, tree);
  }
  return tree ?? undefined;
}

/**
 * A file's text at a commit, or undefined when it did not exist there.
 */
export function showFile(sha: string, relPath: string, cwd: string) {
  const id = treeOf(sha, cwd)?.get(relPath);
  if (id === undefined) return undefined;
  const key = `${cwd}\0${id}`;
  let text = blobs.get(key);
  if (text === undefined) {
    text = git(['cat-file', 'blob', id], cwd);
    if (text !== undefined) blobs.set(key, text);
  }
  return text;
}

/**
 * Paths under a folder at a commit.
 */
export function listFiles(sha: string, relDir: string, cwd: string) {
  const prefix = `${relDir.replace(/\/+$/, '')}/`;
  return [...(treeOf(sha, cwd)?.keys() ?? [])].filter((file) => file.startsWith(prefix)).sort();
}
