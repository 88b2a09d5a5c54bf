// turbo's cached results carried across a version commit (lib/turboReuse.ts), on a real turbo in
// a two-package repository: a task whose own package.json changed only its "version" is replayed,
// one that reads another package's version (declared as an input) runs again, and so does
// everything after a source change.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { copyCacheEntry, onlyVersionDiffers, parseDryRun, sameAcrossVersions, turboCacheDir } from '../src/lib/turboReuse.ts';
import { ROOT } from './helpers.js';

const TURBO = path.join(ROOT, 'node_modules', '.bin', 'turbo');
const env = { ...process.env, TURBO_TELEMETRY_DISABLED: '1', DO_NOT_TRACK: '1' };
const temps: string[] = [];
afterAll(() => temps.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** a ← b ← c; c's build reads a's version (it names a's package.json among its inputs). */
function makeRepo(): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'rl-turbo-reuse-'));
  temps.push(root);
  const write = (file: string, text: string) => {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  };
  write('package.json', JSON.stringify({ name: 'root', private: true, packageManager: 'pnpm@10.34.9' }));
  write('pnpm-workspace.yaml', 'packages:\n  - packages/*\n');
  write('.gitignore', 'node_modules\ndist\n.turbo\n');
  const build = { dependsOn: ['^build'], inputs: ['src/**'], outputs: ['dist/**'] };
  write(
    'turbo.json',
    JSON.stringify({ tasks: { build, 'c#build': { ...build, inputs: ['src/**', '$TURBO_ROOT$/packages/a/package.json'] } } }),
  );
  const copy = "node -e \"fs.mkdirSync('dist',{recursive:true});fs.copyFileSync('src/in.txt','dist/out.txt')\"";
  for (const [name, deps] of [
    ['a', {}],
    ['b', { a: 'workspace:*' }],
    ['c', { b: 'workspace:*' }],
  ] as const) {
    write(`packages/${name}/src/in.txt`, `${name}\n`);
    write(
      `packages/${name}/package.json`,
      JSON.stringify({ name, version: '0.1.0', dependencies: deps, scripts: { build: copy } }, null, 2),
    );
  }
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, stdio: 'ignore' });
  git('init', '--quiet');
  git('add', '--all');
  git('-c', 'user.name=t', '-c', 'user.email=t@t.invalid', 'commit', '--quiet', '-m', 'init');
  return root;
}

const dryRun = (root: string) =>
  parseDryRun(execFileSync(TURBO, ['run', 'build', '--dry=json'], { cwd: root, env, encoding: 'utf8' }), root);
const setVersion = (root: string, name: string, version: string) => {
  const file = path.join(root, 'packages', name, 'package.json');
  writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), version }, null, 2));
};
/** The tasks a real `turbo run build` replayed from its cache. */
const replayed = (root: string) =>
  [
    ...execFileSync(TURBO, ['run', 'build', '--output-logs=hash-only'], { cwd: root, env, encoding: 'utf8' }).matchAll(
      /^(\w+):build: cache hit/gm,
    ),
  ]
    .map((m) => m[1])
    .sort();

describe('onlyVersionDiffers', () => {
  it('is true for a version change alone, false for any other field or a missing text', () => {
    const pkg = { name: 'a', version: '0.1.0', dependencies: { x: '1' } };
    expect(onlyVersionDiffers(JSON.stringify(pkg), JSON.stringify({ ...pkg, version: '0.2.0' }, null, 2))).toBe(true);
    expect(onlyVersionDiffers(JSON.stringify(pkg), JSON.stringify({ ...pkg, dependencies: { x: '2' } }))).toBe(false);
    expect(onlyVersionDiffers(JSON.stringify(pkg), undefined)).toBe(false);
  });
});

describe('sameAcrossVersions on a real turbo', { timeout: 120_000 }, () => {
  it('replays the tasks whose package changed only its version; the one reading a version runs again', () => {
    const root = makeRepo();
    execFileSync(TURBO, ['run', 'build'], { cwd: root, env, stdio: 'ignore' });
    const before = dryRun(root);
    for (const name of ['a', 'b', 'c']) setVersion(root, name, '0.2.0');
    const after = dryRun(root);

    const same = sameAcrossVersions(before, after);
    expect(same.map((s) => s.taskId).sort()).toEqual(['a#build', 'b#build']);
    const cache = turboCacheDir(root, env);
    for (const s of same) expect(copyCacheEntry(cache, s.from, cache, s.to)).toBe(true);
    expect(replayed(root)).toEqual(['a', 'b']);
  });

  it('a source change makes its task and every dependent run again', () => {
    const root = makeRepo();
    execFileSync(TURBO, ['run', 'build'], { cwd: root, env, stdio: 'ignore' });
    const before = dryRun(root);
    setVersion(root, 'b', '0.2.0');
    setVersion(root, 'c', '0.2.0');
    writeFileSync(path.join(root, 'packages', 'b', 'src', 'in.txt'), 'b changed\n');
    // a kept its hash (nothing to carry); b changed its source; c depends on b
    expect(sameAcrossVersions(before, dryRun(root))).toEqual([]);
  });

  it('copies nothing when the old entry is missing or the new one exists', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'rl-turbo-cache-'));
    temps.push(dir);
    expect(copyCacheEntry(dir, 'aaaa', dir, 'bbbb')).toBe(false);
    writeFileSync(path.join(dir, 'aaaa.tar.zst'), 'x');
    writeFileSync(path.join(dir, 'aaaa-meta.json'), JSON.stringify({ hash: 'aaaa', duration: 5 }));
    expect(copyCacheEntry(dir, 'aaaa', dir, 'bbbb')).toBe(true);
    expect(JSON.parse(readFileSync(path.join(dir, 'bbbb-meta.json'), 'utf8'))).toEqual({ hash: 'bbbb', duration: 5 });
    expect(copyCacheEntry(dir, 'aaaa', dir, 'bbbb')).toBe(false);
  });
});
