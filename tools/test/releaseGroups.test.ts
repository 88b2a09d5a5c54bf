// What a consumer's `npm update` gets after a release, computed from changesets' own `changeset
// version` on a copy of this workspace's package.json files and .changeset/config.json, and from
// how pnpm publishes `workspace:` dependencies. The promise (docs/consuming.md): after any release,
// `npm update` in a project that installed the packages with npm's default caret ranges leaves one
// copy of each package — never a dependent whose new version pins a release of a sibling that the
// project's own range refuses (that nests a second copy of core, and its types stop matching).
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { publishedPackages, workspacePackages } from '../src/lib/workspace.ts';
import { ROOT } from './helpers.js';

const CHANGESET_BIN = path.join(ROOT, 'node_modules', '@changesets', 'cli', 'bin.js');

/** `x.y.z` only (what this workspace's versions are). */
const parse = (v: string) => v.split('-')[0]!.split('.').map(Number) as [number, number, number];

/** npm's caret: `^0.3.1` is >=0.3.1 <0.4.0, `^1.2.3` is >=1.2.3 <2.0.0. */
function inCaret(version: string, of: string): boolean {
  const [a, b, c] = parse(version);
  const [x, y, z] = parse(of);
  if (x === 0) return a === 0 && b === y && c >= z;
  return a === x && (b > y || (b === y && c >= z));
}

/** What a published dependency on a sibling admits, as pnpm rewrites `workspace:` when it packs. */
function admits(spec: string, siblingVersion: string, candidate: string): boolean {
  const range = spec.replace(/^workspace:/, '');
  if (range === '*' || range === '') return candidate === siblingVersion; // pnpm publishes the exact version
  if (range === '^') return inCaret(candidate, siblingVersion);
  if (range === '~') return parse(candidate)[0] === parse(siblingVersion)[0] && parse(candidate)[1] === parse(siblingVersion)[1];
  const m = /^>=(\d+\.\d+\.\d+) <(\d+\.\d+\.\d+)$/.exec(range);
  if (m) {
    const n = (v: string) => parse(v).reduce((acc, p) => acc * 10_000 + p, 0);
    return n(candidate) >= n(m[1]!) && n(candidate) < n(m[2]!);
  }
  throw new Error(`releaseGroups.test: a dependency spec "${spec}" this test cannot read; teach admits() about it`);
}

/** A copy of the workspace's manifests and changesets config in a scratch git repository. */
function scratchWorkspace(): { dir: string; folders: Map<string, string> } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'runledger-release-groups-'));
  const folders: Map<string, string> = new Map();
  const copy = (rel: string) => {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    copyFileSync(path.join(ROOT, rel), path.join(dir, rel));
  };
  for (const rel of ['package.json', 'pnpm-workspace.yaml', '.changeset/config.json', 'tools/package.json']) copy(rel);
  for (const pkg of workspacePackages(ROOT).values()) {
    const rel = path.relative(ROOT, pkg.dir);
    copy(path.join(rel, 'package.json'));
    folders.set(pkg.name, rel);
  }
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: dir });
  return { dir, folders };
}

type Bump = 'patch' | 'minor';

/**
 * Runs `changeset version` with one changeset of these bumps and returns every published
 * package's version and workspace dependencies before and after.
 */
function versionWith(bumps: Map<string, Bump>) {
  const { dir, folders } = scratchWorkspace();
  try {
    const front = [...bumps].map(([name, bump]) => `"${name}": ${bump}`).join('\n');
    writeFileSync(path.join(dir, '.changeset', 'a-release.md'), `---\n${front}\n---\n\nA release.\n`);
    const read = () =>
      new Map(
        publishedPackages(ROOT).map((p) => {
          const json = JSON.parse(readFileSync(path.join(dir, folders.get(p.name)!, 'package.json'), 'utf8'));
          const deps = Object.entries<string>({ ...json.dependencies, ...json.peerDependencies }).filter(([, spec]) =>
            spec.startsWith('workspace:'),
          );
          return [p.name, { version: json.version as string, deps }] as const;
        }),
      );
    const before = read();
    execFileSync(process.execPath, [CHANGESET_BIN, 'version'], { cwd: dir, stdio: 'pipe', env: { ...process.env, CI: 'true' } });
    return { before, after: read() };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The problems a consumer's `npm update` meets: every package installed with `^<old>`, each
 * updated to its new version when the caret admits it; a dependent taken whose published
 * dependency does not admit the sibling's version at the top level nests another copy.
 */
function nestedCopies({ before, after }: ReturnType<typeof versionWith>): string[] {
  const top = new Map(
    [...before].map(([name, b]) => [name, inCaret(after.get(name)!.version, b.version) ? after.get(name)!.version : b.version]),
  );
  const problems: string[] = [];
  for (const [name, { version, deps }] of after) {
    if (top.get(name) !== version) continue; // npm update keeps the old version: its old pins hold
    for (const [dep, spec] of deps) {
      const got = top.get(dep);
      if (got === undefined) continue; // not a published sibling
      if (!admits(spec, after.get(dep)!.version, got)) {
        problems.push(
          `${name} ${before.get(name)!.version} → ${version} (taken by npm update) needs ${dep} ${spec.replace('workspace:', '')} = ${after.get(dep)!.version}, the project keeps ${dep} ${got}: a second copy`,
        );
      }
    }
  }
  return problems;
}

describe('release groups: npm update after a release leaves one copy of each package', () => {
  const names = publishedPackages(ROOT).map((p) => p.name);

  it('a new 0.x minor of core', () => {
    const plan = versionWith(new Map([['@runledger/core', 'minor']]));
    expect(nestedCopies(plan)).toEqual([]);
    // and a consumer who raises the range takes every package at the one new version
    const versions = new Set([...plan.after.values()].map((p) => p.version));
    expect(versions.size, [...plan.after].map(([n, p]) => `${n}@${p.version}`).join(' ')).toBe(1);
  });

  it('any release: generated sets of changesets', { timeout: 60_000 }, () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(fc.constantFrom(...names), fc.constantFrom<Bump>('patch', 'minor')), {
          minLength: 1,
          maxLength: 3,
          selector: ([name]) => name,
        }),
        (bumps) => {
          expect(nestedCopies(versionWith(new Map(bumps)))).toEqual([]);
        },
      ),
      { numRuns: 3 },
    );
  });
});
