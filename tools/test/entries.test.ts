import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runGate } from '../src/api-gate.ts';
import { apiEntries, entryReportFile, formerEntryReports } from '../src/lib/entries.ts';
import { readPackage } from '../src/lib/workspace.ts';
import type { PackageInfo } from '../src/lib/workspace.ts';
import { gateRepo, makeWorkspace, TOOLS } from './helpers.js';

const ws = makeWorkspace(['entries']);
afterAll(() => ws.cleanup());
const reports = path.join(ws.root, 'api-reports');
const gate = (mode: 'check' | 'update') =>
  runGate({
    mode,
    packageDir: ws.dir('entries'),
    reportDir: reports,
    deprecationsDoc: path.join(ws.root, 'deprecations.md'),
    allowList: [],
    workspaceRoot: ws.root,
  });
const info = (name: string, json: Record<string, unknown> = {}): PackageInfo => ({
  name: `@fx/${name}`,
  unscoped: name,
  dir: `/nowhere/${name}`,
  version: '1.0.0',
  json: { name: `@fx/${name}`, ...json },
});

describe('API entry points', () => {
  it('are the main entry and every exports subpath with declarations ("./package.json" is none)', () => {
    const entries = apiEntries(readPackage(ws.dir('entries')));
    expect(entries.map((e) => [e.subpath, e.specifier, e.types, e.reportPath])).toEqual([
      ['.', '@fx/entries', undefined, 'api-reports/entries.api.md'],
      ['./extra', '@fx/entries/extra', 'dist/extra/index.d.ts', 'api-reports/entries-extra.api.md'],
    ]);
    expect(entryReportFile('trace', './store')).toBe('trace-store.api.md');
    expect(entryReportFile('trace', './a/b')).toBe('trace-a-b.api.md');
    expect(apiEntries(info('plain')).map((e) => e.reportPath)).toEqual(['api-reports/plain.api.md']);
  });

  it("a report of an entry point no longer exported is a former entry report; another package's report is not", () => {
    const store = info('store', { exports: { '.': { types: './dist/index.d.ts' }, './kept': { types: './dist/kept/index.d.ts' } } });
    const sqlite = info('store-sqlite');
    const files = [
      'api-reports/store.api.md',
      'api-reports/store-kept.api.md',
      'api-reports/store-old.api.md',
      'api-reports/store-sqlite.api.md',
      'api-reports/store.cli.json',
    ];
    expect(formerEntryReports(store, files, [store, sqlite])).toEqual(['api-reports/store-old.api.md']);
  });

  it('update writes one report per entry point, each with its own surface; check then passes', () => {
    const u = gate('update');
    expect(u.map((r) => [path.basename(r.reportPath ?? ''), r.ok, r.written])).toEqual([
      ['entries.api.md', true, true],
      ['entries-extra.api.md', true, true],
    ]);
    const extra = readFileSync(path.join(reports, 'entries-extra.api.md'), 'utf8');
    expect(extra).toContain('export function makeExtra(id: string): Extra;');
    expect(extra).not.toContain('main()');
    expect(readFileSync(path.join(reports, 'entries.api.md'), 'utf8')).not.toContain('makeExtra');
    const c = gate('check');
    expect(c.map((r) => r.problems)).toEqual([[], []]);
    expect(c.every((r) => r.ok)).toBe(true);
  });

  it('a drifted subpath report fails check, naming the entry, with the classification and the diff', () => {
    const file = path.join(reports, 'entries-extra.api.md');
    const good = readFileSync(file, 'utf8');
    // the committed report has one more function than the fresh surface: it was removed (breaking)
    writeFileSync(
      file,
      good.replace(
        'export function makeExtra(id: string): Extra;',
        'export function makeExtra(id: string): Extra;\n\n// @public\nexport function dropExtra(extra: Extra): void;',
      ),
    );
    try {
      const [main, extra] = gate('check');
      expect(main?.ok).toBe(true);
      expect(extra?.ok).toBe(false);
      expect(extra?.problems.join('\n')).toMatch(
        /^@fx\/entries\/extra: the API report api-reports\/entries-extra\.api\.md is out of date \(change: breaking\)/,
      );
      expect(extra?.diff).toContain('-export function dropExtra(extra: Extra): void;');
    } finally {
      writeFileSync(file, good);
    }
  });

  it('a report left by a removed entry point fails check; update deletes it', () => {
    const leftover = path.join(reports, 'entries-gone.api.md');
    writeFileSync(leftover, '## API Report File for "@fx/entries/gone"\n\n```ts\n\n```\n');
    const [main] = gate('check');
    expect(main?.ok).toBe(false);
    expect(main?.problems).toEqual([
      expect.stringMatching(
        /^@fx\/entries: api-reports\/entries-gone\.api\.md exists but package\.json "exports" has no such entry point: removing an entry point is breaking/,
      ),
    ]);
    expect(gate('update').every((r) => r.ok)).toBe(true);
    expect(existsSync(leftover)).toBe(false);
  });
});

describe('API entry points in the changeset gate', () => {
  const fixture = (name: string, f: 'before' | 'after') =>
    readFileSync(path.join(TOOLS, 'test', 'fixtures', 'reports', name, `${f}.api.md`), 'utf8');
  const exportsWith = (subpaths: string[]) =>
    JSON.stringify({
      name: '@fx/pkg',
      version: '1.0.0',
      exports: Object.fromEntries(
        ['.', ...subpaths].map((s) => [s, { types: `./dist/${s === '.' ? '' : `${s.slice(2)}/`}index.d.ts`, default: './dist/index.js' }]),
      ),
    });
  let cleanup: (() => void)[] = [];
  afterEach(() => {
    for (const c of cleanup) c();
    cleanup = [];
  });
  const repo = () => {
    const r = gateRepo({
      'packages/pkg/package.json': exportsWith(['./extra']),
      'packages/pkg/api-extractor.json': '{}',
      'api-reports/pkg.api.md': fixture('removed-method', 'before'),
      'api-reports/pkg-extra.api.md': fixture('removed-method', 'before'),
    });
    cleanup.push(r.cleanup);
    return r;
  };

  it('classifies a subpath report change and asks for its changeset, naming the entry', () => {
    const r = repo();
    r.write('api-reports/pkg-extra.api.md', fixture('removed-method', 'after'));
    const g = r.gate();
    expect(g.ok).toBe(false);
    expect(g.problems.join('\n')).toMatch(
      /^@fx\/pkg\/extra: breaking change to api-reports\/pkg-extra\.api\.md needs a changeset bumping it at least "major"/,
    );
    expect(g.lines).toContain('@fx/pkg: report unchanged');
    r.changeset('extra-gone.md', 'major', '@fx/pkg');
    expect(r.gate().ok).toBe(true);
  });

  it('an entry point removed from exports (its report deleted) is a breaking change', () => {
    const r = repo();
    r.write('packages/pkg/package.json', exportsWith([]));
    rmSync(path.join(r.root, 'api-reports', 'pkg-extra.api.md'));
    const g = r.gate();
    expect(g.problems.join('\n')).toMatch(
      /@fx\/pkg \(pkg-extra\.api\.md, entry point removed\): breaking change to api-reports\/pkg-extra\.api\.md/,
    );
    expect(g.problems.join('\n')).toContain('- RunTrace (class)');
  });

  it('the history check judges a commit that changed a subpath report without its changeset', () => {
    const r = repo();
    r.write('api-reports/pkg-extra.api.md', fixture('removed-method', 'after'));
    r.commit('extra: a method removed, no changeset');
    r.write('README.md', 'later\n');
    r.commit('a later commit');
    const g = r.gate({});
    expect(g.problems.join('\n')).toMatch(
      /\("extra: a method removed, no changeset"\): breaking change to api-reports\/pkg-extra\.api\.md of @fx\/pkg\/extra needs a changeset/,
    );
  });
});
