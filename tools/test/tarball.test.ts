import { afterAll, describe, expect, it } from 'vitest';
import { lintPackage } from '../src/lint-package.ts';
import { changelogProblems, forbiddenTarballFiles, tarballFiles, tarballProblems } from '../src/lib/tarball.ts';
import { publishedPackages } from '../src/lib/workspace.ts';
import { makePackage, ROOT } from './helpers.js';

const made: Array<{ cleanup: () => void }> = [];
afterAll(() => made.forEach((p) => p.cleanup()));

/** A published fixture package: dist with a declaration map into src, `files` as given. */
function fixture(files: string[], extra: Record<string, string> = {}) {
  const p = makePackage({
    'package.json': JSON.stringify({
      name: '@fx/tarball',
      version: '1.0.0',
      type: 'module',
      types: './dist/index.d.ts',
      exports: { '.': { types: './dist/index.d.ts', import: './dist/index.js', default: './dist/index.js' } },
      files,
    }),
    'src/index.ts': 'export const answer = 42;\n',
    'src/index.test.ts': "import { answer } from './index.js';\nvoid answer;\n",
    'src/testing/x.ts': 'export const helper = 1;\n',
    'dist/index.js': 'export const answer = 42;\n',
    'dist/index.d.ts': 'export declare const answer = 42;\n//# sourceMappingURL=index.d.ts.map\n',
    'dist/index.d.ts.map': JSON.stringify({
      version: 3,
      file: 'index.d.ts',
      sourceRoot: '',
      sources: ['../src/index.ts'],
      names: [],
      mappings: 'AAAA',
    }),
    ...extra,
  });
  made.push(p);
  return { name: '@fx/tarball', dir: p.dir };
}

describe('tarball contents: no test helpers, fixtures or benchmarks', () => {
  it('a package whose tarball ships src/testing/x.ts fails, naming the package and the file', () => {
    const pkg = fixture(['dist', 'src', '!src/**/*.test.ts', 'CHANGELOG.md']);
    expect(tarballFiles(pkg.dir)).toContain('src/testing/x.ts');
    const problems = tarballProblems(pkg);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^@fx\/tarball: the tarball ships src\/testing\/x\.ts, a test helper \(under testing\/\)/);
  });

  it('the package lint refuses it too, after publint and attw', () => {
    const pkg = fixture(['dist', 'src', '!src/**/*.test.ts']);
    const r = lintPackage(pkg.dir);
    expect(r.ok).toBe(false);
    expect(r.failures).toContainEqual(expect.stringMatching(/^@fx\/tarball: the tarball ships src\/testing\/x\.ts, a test helper/));
  });

  it('a clean package passes: src ships for the declaration map, the test helpers do not', () => {
    const pkg = fixture(['dist', 'src', '!src/**/*.test.ts', '!src/testing/**', 'CHANGELOG.md']);
    const files = tarballFiles(pkg.dir);
    expect(files).toContain('src/index.ts');
    expect(files).not.toContain('src/testing/x.ts');
    expect(tarballProblems(pkg)).toEqual([]);
  });

  it('dropping a source a declaration map points to fails, naming the map and the source', () => {
    const pkg = fixture(['dist', 'CHANGELOG.md']);
    expect(tarballProblems(pkg)).toEqual([
      '@fx/tarball: the tarball ships dist/index.d.ts.map, which points to src/index.ts, but not src/index.ts — keep it in package.json "files"',
    ]);
  });

  it('names tests, type tests, benchmarks and fixtures wherever they sit, and nothing else', () => {
    const found = forbiddenTarballFiles([
      'dist/index.js',
      'src/index.ts',
      'src/attesting.ts',
      'src/latest.ts',
      'src/ToolResult.test.ts',
      'src/ToolResult.test-d.ts',
      'dist/testing/random.d.ts',
      'fixtures/v1.db',
      'src/__fixtures__/a.json',
      'bench/ingest.bench.mjs',
      'src/encode.bench.ts',
    ]).map((f) => f.file);
    expect(found).toEqual([
      'src/ToolResult.test.ts',
      'src/ToolResult.test-d.ts',
      'dist/testing/random.d.ts',
      'fixtures/v1.db',
      'src/__fixtures__/a.json',
      'bench/ingest.bench.mjs',
      'src/encode.bench.ts',
    ]);
  });
});

describe('tarball contents: CHANGELOG.md ships', () => {
  const CLEAN = ['dist', 'src', '!src/**/*.test.ts', '!src/testing/**'];

  it('a CHANGELOG.md that "files" leaves out fails, naming the package and the fix', () => {
    const pkg = fixture(CLEAN, { 'CHANGELOG.md': '# @fx/tarball\n\n## 1.0.0\n' });
    expect(tarballFiles(pkg.dir)).not.toContain('CHANGELOG.md');
    expect(tarballProblems(pkg)).toEqual([
      '@fx/tarball: the tarball leaves out CHANGELOG.md — list "CHANGELOG.md" in package.json "files" (consumers read the release notes in node_modules; npm and pnpm pack it only when "files" admits it)',
    ]);
  });

  it('before the first release (no CHANGELOG.md yet) "files" must already list it', () => {
    const pkg = fixture(CLEAN);
    expect(tarballProblems(pkg)).toEqual([
      '@fx/tarball: package.json "files" does not list CHANGELOG.md, so the CHANGELOG.md that `changeset version` writes will not ship — add "CHANGELOG.md" to "files"',
    ]);
  });

  it('listed in "files", it ships', () => {
    const pkg = fixture([...CLEAN, 'CHANGELOG.md'], { 'CHANGELOG.md': '# @fx/tarball\n\n## 1.0.0\n' });
    expect(tarballFiles(pkg.dir)).toContain('CHANGELOG.md');
    expect(tarballProblems(pkg)).toEqual([]);
  });

  it('every published package of this repository lists it in "files"', () => {
    const packages = publishedPackages(ROOT);
    expect(packages.length).toBeGreaterThan(0);
    for (const pkg of packages) expect(changelogProblems(pkg, []), pkg.name).toEqual([]);
  });
});
