/**
 * turbo's cached results carried across a version commit. `changeset version` changes each
 * package's package.json "version" (and its CHANGELOG.md, which no task reads); turbo hashes the
 * whole package.json, so after a release's version step every task misses the cache although most
 * give the same result as before it.
 *
 * A task is the same after the version step when its hash inputs are equal but for its own
 * package.json, in which nothing but "version" changed (command, task definition, environment,
 * external dependencies and the global inputs equal too), and every task it depends on is the same
 * (or kept its hash). Its cache entry is copied under its new hash, so turbo replays it. A task that
 * reads another package's version names that package.json among its inputs (turbo.json: the CLI's
 * build embeds @runledger/store-postgres's version), so it differs and runs again, and so do the
 * tasks that depend on it.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { git } from './git.ts';

/** What one task's hash is made of, as `turbo run --dry=json` reports it. */
export interface TurboTaskFacts {
  taskId: string;
  hash: string;
  /** the package folder, relative to the root */
  directory: string;
  /** input file → git object hash, relative to the package folder */
  inputs: Record<string, string>;
  /** the other hash inputs (command, definition, environment, external dependencies), as one string */
  rest: string;
  dependencies: string[];
}

/** The tasks of one `turbo run --dry=json` and the package.json texts their packages had then. */
export interface TurboSnapshot {
  global: string;
  tasks: Map<string, TurboTaskFacts>;
  /** package folder (relative to the root) → its package.json text */
  manifests: Map<string, string>;
}

interface DryRunTask {
  taskId: string;
  hash: string;
  directory: string;
  inputs: Record<string, string>;
  dependencies?: string[];
  command: string;
  hashOfExternalDependencies: string;
  resolvedTaskDefinition: unknown;
  environmentVariables: unknown;
  cliArguments?: unknown;
}

/** Reads a `turbo run --dry=json` answer (anything printed before the JSON is skipped). */
export function parseDryRun(text: string, root: string): TurboSnapshot {
  const start = text.indexOf('{');
  if (start < 0) throw new Error(`turbo --dry=json printed no JSON: ${text.slice(0, 300)}`);
  const json = JSON.parse(text.slice(start)) as { globalCacheInputs: unknown; tasks: DryRunTask[] };
  const tasks = new Map<string, TurboTaskFacts>();
  const manifests = new Map<string, string>();
  for (const t of json.tasks) {
    const { command, hashOfExternalDependencies, resolvedTaskDefinition, environmentVariables, cliArguments } = t;
    tasks.set(t.taskId, {
      taskId: t.taskId,
      hash: t.hash,
      directory: t.directory,
      inputs: t.inputs,
      rest: JSON.stringify({ command, hashOfExternalDependencies, resolvedTaskDefinition, environmentVariables, cliArguments }),
      dependencies: t.dependencies ?? [],
    });
    const manifest = path.join(root, t.directory, 'package.json');
    if (!manifests.has(t.directory) && existsSync(manifest)) manifests.set(t.directory, readFileSync(manifest, 'utf8'));
  }
  return { global: JSON.stringify(json.globalCacheInputs), tasks, manifests };
}

/** `turbo run <tasks> --dry=json` in `root`: what each task's hash is made of, nothing run. */
export function turboSnapshot(root: string, tasks: string[], env: NodeJS.ProcessEnv): TurboSnapshot {
  const r = spawnSync('pnpm', ['exec', 'turbo', 'run', ...tasks, '--dry=json'], {
    cwd: root,
    env,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (r.status !== 0) throw new Error(`turbo run ${tasks.join(' ')} --dry=json exited ${r.status ?? r.signal} in ${root}: ${r.stderr}`);
  return parseDryRun(r.stdout, root);
}

/** Two package.json texts that differ in nothing but "version". */
export function onlyVersionDiffers(before: string | undefined, after: string | undefined): boolean {
  if (before === undefined || after === undefined) return false;
  const strip = (text: string) => {
    const { version: _version, ...rest } = JSON.parse(text) as Record<string, unknown>;
    return JSON.stringify(rest);
  };
  return strip(before) === strip(after);
}

/**
 * The tasks of `after` that give what they gave in `before` (the rule in this module's comment),
 * each with its hash before and after; a task whose hash did not move is left out.
 */
export function sameAcrossVersions(before: TurboSnapshot, after: TurboSnapshot): Array<{ taskId: string; from: string; to: string }> {
  if (before.global !== after.global) return [];
  const same = new Map<string, boolean>();
  const isSame = (taskId: string): boolean => {
    const known = same.get(taskId);
    if (known !== undefined) return known;
    same.set(taskId, false); // a cycle never counts as the same
    const b = before.tasks.get(taskId);
    const a = after.tasks.get(taskId);
    let result = b !== undefined && a !== undefined && b.hash === a.hash;
    if (!result && b !== undefined && a !== undefined && b.rest === a.rest && b.directory === a.directory) {
      const keys = new Set([...Object.keys(b.inputs), ...Object.keys(a.inputs)]);
      result =
        [...keys].every(
          (k) =>
            b.inputs[k] === a.inputs[k] ||
            (k === 'package.json' && onlyVersionDiffers(before.manifests.get(b.directory), after.manifests.get(a.directory))),
        ) &&
        a.dependencies.length === b.dependencies.length &&
        a.dependencies.every((d) => b.dependencies.includes(d) && isSame(d));
    }
    same.set(taskId, result);
    return result;
  };
  return [...after.tasks.values()]
    .filter((a) => isSame(a.taskId) && before.tasks.get(a.taskId)!.hash !== a.hash)
    .map((a) => ({ taskId: a.taskId, from: before.tasks.get(a.taskId)!.hash, to: a.hash }));
}

/**
 * turbo's local cache folder of `root`: TURBO_CACHE_DIR when set, else `.turbo/cache` in the main
 * working tree (git worktrees share it).
 */
export function turboCacheDir(root: string, env: NodeJS.ProcessEnv): string {
  if (env.TURBO_CACHE_DIR) return path.resolve(root, env.TURBO_CACHE_DIR);
  const common = git(['rev-parse', '--path-format=absolute', '--git-common-dir'], root)?.trim();
  return path.join(common ? path.dirname(common) : root, '.turbo', 'cache');
}

/** The files of one cache entry (turbo 2: `<hash>.tar.zst`, `<hash>-meta.json`, `<hash>-manifest.json`). */
const entryFiles = (dir: string, hash: string) => ({
  archive: path.join(dir, `${hash}.tar.zst`),
  meta: path.join(dir, `${hash}-meta.json`),
  manifest: path.join(dir, `${hash}-manifest.json`),
});

/**
 * Copies the cache entry of `from` (in `fromDir`) as the entry of `to` (in `toDir`), its meta
 * naming the new hash. Nothing is copied when `from` has no entry or `to` has one already.
 * @returns whether an entry was copied
 */
export function copyCacheEntry(fromDir: string, from: string, toDir: string, to: string): boolean {
  const src = entryFiles(fromDir, from);
  const dest = entryFiles(toDir, to);
  if (!existsSync(src.archive) || !existsSync(src.meta) || existsSync(dest.archive)) return false;
  mkdirSync(toDir, { recursive: true });
  if (existsSync(src.manifest)) copyFileSync(src.manifest, dest.manifest);
  const meta = JSON.parse(readFileSync(src.meta, 'utf8')) as Record<string, unknown>;
  writeFileSync(dest.meta, JSON.stringify({ ...meta, hash: to }));
  // the archive last: turbo looks for it first
  copyFileSync(src.archive, dest.archive);
  return true;
}
