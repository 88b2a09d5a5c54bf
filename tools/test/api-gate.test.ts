import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runGate } from '../src/api-gate.ts';
import { classifyReports } from '../src/lib/classifier/classify.ts';
import { formatClassification } from '../src/lib/classifier/formatClassification.ts';
import { makeWorkspace } from './helpers.js';

const ws = makeWorkspace(['clean', 'forgotten', 'internal-ref', 'untagged', 'beta', 'lib', 'app', 'third-party', 'deprecated', 'tags']);
afterAll(() => ws.cleanup());

const docs = path.join(ws.root, 'deprecations.md');
/** The gate's results for a fixture package, one per entry point (these fixtures have one: the main entry). */
function gateEntries(name: string, mode: 'check' | 'update' = 'check', allowList: string[] = []) {
  return runGate({
    mode,
    packageDir: ws.dir(name),
    reportDir: path.join(ws.root, 'api-reports'),
    deprecationsDoc: docs,
    allowList,
    workspaceRoot: ws.root,
  });
}
function gate(name: string, mode: 'check' | 'update' = 'check', allowList: string[] = []) {
  const [main, ...more] = gateEntries(name, mode, allowList);
  expect(more).toEqual([]);
  return main!;
}
const text = (r: { problems: string[] }) => r.problems.join('\n');

describe('api-gate: the closure rule', () => {
  it('a clean package updates its report, then checks clean', () => {
    const u = gate('clean', 'update');
    expect(text(u)).toBe('');
    expect(u.written).toBe(true);
    const report = readFileSync(path.join(ws.root, 'api-reports', 'clean.api.md'), 'utf8');
    expect(report).toContain('export function lookup(key: string): Answer;');
    expect(report).toContain('// @internal');
    expect(report).not.toContain('\r\n');
    const c = gate('clean');
    expect(c.ok).toBe(true);
    expect(c.problems).toEqual([]);
  });

  it('a public signature that mentions an unexported type fails, naming it', () => {
    const r = gate('forgotten');
    expect(r.ok).toBe(false);
    expect(text(r)).toMatch(/\(ae-forgotten-export\) The symbol "Hidden" needs to be exported/);
  });

  it('a public signature that mentions an @internal type fails, naming both', () => {
    const r = gate('internal-ref');
    expect(r.ok).toBe(false);
    expect(text(r)).toMatch(
      /\(ae-incompatible-release-tags\) The symbol "parse" is marked as @public, but its signature references "InternalShape" which is marked as @internal/,
    );
  });

  it('an untagged export fails, naming it', () => {
    const r = gate('untagged');
    expect(r.ok).toBe(false);
    expect(text(r)).toMatch(/\(ae-missing-release-tag\) "untaggedThing" is part of the package's API, but it is missing a release tag/);
    expect(text(r)).not.toMatch(/"tagged"/);
  });

  it('an export tagged @beta fails, naming it', () => {
    const r = gate('beta', 'update');
    expect(r.ok).toBe(false);
    expect(r.problems).toEqual([
      expect.stringMatching(/@fx\/beta: "experimentalThing" is tagged @beta; only @public and @internal are allowed/),
    ]);
  });

  it('update refuses to write a report while closure errors remain', () => {
    const r = gate('forgotten', 'update');
    expect(r.ok).toBe(false);
    expect(r.written).toBe(false);
  });

  it('a drifted report fails with a unified diff of committed vs fresh', () => {
    const file = path.join(ws.root, 'api-reports', 'clean.api.md');
    const good = readFileSync(file, 'utf8');
    writeFileSync(
      file,
      good.replace('export function lookup(key: string): Answer;', 'export function lookup(key: string, strict: boolean): Answer;'),
    );
    try {
      const r = gate('clean');
      expect(r.ok).toBe(false);
      expect(text(r)).toMatch(/clean\.api\.md is out of date \(change: additive\)/);
      expect(r.diff).toContain('--- a/api-reports/clean.api.md (committed)');
      expect(r.diff).toContain('+++ b/api-reports/clean.api.md (fresh)');
      expect(r.diff).toContain('-export function lookup(key: string, strict: boolean): Answer;');
      expect(r.diff).toContain('+export function lookup(key: string): Answer;');
    } finally {
      writeFileSync(file, good);
    }
  });

  it('a missing report fails check and names the command', () => {
    const r = gate('lib');
    expect(r.ok).toBe(false);
    expect(text(r)).toMatch(/lib\.api\.md does not exist; run "pnpm api:update"/);
  });
});

describe('api-gate: across packages', () => {
  it("a public signature mentioning a sibling package's @internal type fails (bundled second pass)", () => {
    expect(gate('lib', 'update').ok).toBe(true);
    const r = gate('app', 'update');
    expect(r.ok).toBe(false);
    expect(text(r)).toMatch(
      /across packages\) The symbol "openHandle" is marked as @public, but its signature references "LibInternal" which is marked as @internal/,
    );
    expect(text(r)).not.toMatch(/makeThing/);
  });

  it('types from a devDependency on the surface fail; the allow-list or a dependency admits them', () => {
    const r = gate('third-party', 'update');
    expect(r.ok).toBe(false);
    expect(r.problems).toEqual([
      expect.stringMatching(/@fx\/third-party: the surface exposes types from "typescript" \(it is only a devDependency\)/),
    ]);
    expect(gate('third-party', 'update', ['typescript']).ok).toBe(true);
  });
});

describe('api-gate: deprecations', () => {
  it('a @deprecated tag must name its replacement, and each deprecated item needs a row', () => {
    writeFileSync(
      docs,
      '| Package | Item | Since | Use instead |\n| --- | --- | --- | --- |\n| @fx/deprecated | `getRun` | 1.2.0 | `fetchRun` |\n',
    );
    const r = gate('deprecated', 'update');
    expect(r.ok).toBe(false);
    expect(r.problems).toEqual([
      expect.stringMatching(/"loadRun" is @deprecated without naming its replacement/),
      expect.stringMatching(/"loadRun" is @deprecated but has no row in docs\/deprecations\.md/),
    ]);
  });

  it('an empty "since" / "use instead" cell and a stale row fail', () => {
    writeFileSync(
      docs,
      [
        '| Package | Item | Since | Use instead |',
        '| --- | --- | --- | --- |',
        '| @fx/deprecated | `getRun` |  | — |',
        '| @fx/deprecated | `loadRun` | 1.0.0 | `fetchRun` |',
        '| @fx/deprecated | `oldThing` | 0.9.0 | `fetchRun` |',
      ].join('\n'),
    );
    const r = gate('deprecated', 'update');
    expect(text(r)).toMatch(/line 3: "getRun" needs a "since" version/);
    expect(text(r)).toMatch(/line 3: "getRun" needs a "use instead" entry/);
    expect(text(r)).toMatch(/line 5: stale row "oldThing"/);
  });
});

describe('third-party types: untyped dependencies', () => {
  it('a dependency without its own declarations needs its @types package as a dependency', async () => {
    const { thirdPartyProblems } = await import('../src/lib/checks.ts');
    const { mkdirSync, writeFileSync: write } = await import('node:fs');
    const d = path.join(ws.root, 'untyped');
    mkdirSync(path.join(d, 'node_modules', 'pg'), { recursive: true });
    write(path.join(d, 'node_modules', 'pg', 'package.json'), JSON.stringify({ name: 'pg', main: 'index.js' }));
    const report = "```ts\nimport { Pool } from 'pg';\n```";
    const dev = thirdPartyProblems('@fx/store', report, { dependencies: { pg: '^8' }, devDependencies: { '@types/pg': '^8' } }, [], d);
    expect(dev).toEqual([expect.stringMatching(/"pg", which ships no declarations; "@types\/pg" must be a dependency/)]);
    expect(thirdPartyProblems('@fx/store', report, { dependencies: { pg: '^8', '@types/pg': '^8' } }, [], d)).toEqual([]);
  });
});

describe('api-gate: release tags are surface', () => {
  it('flipping @public → @internal on a member and an export is a breaking drift; flipping back is additive', () => {
    const dts = path.join(ws.dir('tags'), 'dist', 'index.d.ts');
    const reportFile = path.join(ws.root, 'api-reports', 'tags.api.md');
    const original = readFileSync(dts, 'utf8');
    try {
      expect(text(gate('tags', 'update'))).toBe('');
      const publicReport = readFileSync(reportFile, 'utf8');
      // How API Extractor encodes the tags: a "// @public" / "// @internal" line above each export,
      // and above a member only when its tag differs from its container's.
      expect(publicReport).toMatch(/\/\/ @public\nexport function seam\(x: number\): void;/);
      expect(publicReport).not.toMatch(/\/\/ @internal/);

      writeFileSync(
        dts,
        original
          .replace('Writes what was recorded.\n', 'Writes what was recorded.\n     * @internal\n')
          .replace('A seam for sibling packages.\n * @public', 'A seam for sibling packages.\n * @internal'),
      );
      const down = gate('tags');
      expect(down.ok).toBe(false);
      expect(text(down)).toMatch(/@fx\/tags: the API report .*tags\.api\.md is out of date \(change: breaking\)/);
      expect(text(gate('tags', 'update'))).toBe('');
      const internalReport = readFileSync(reportFile, 'utf8');
      expect(internalReport).toMatch(/\/\/ @internal\n {4}flush\(\): Promise<void>;/);
      expect(internalReport).toMatch(/\/\/ @internal\nexport function seam\(x: number\): void;/);

      const c = classifyReports(publicReport, internalReport);
      expect(c.level).toBe('breaking');
      expect(c.changed.map((i) => [i.display, i.level, i.internal])).toEqual([
        ['Recorder.flush (method)', 'breaking', false],
        ['seam (function)', 'breaking', false],
      ]);
      expect(formatClassification('@fx/tags', c)).toContain(
        '~ Recorder.flush (method) — breaking: release tag changed @public → @internal',
      );

      writeFileSync(dts, original);
      const up = gate('tags');
      expect(up.ok).toBe(false);
      expect(text(up)).toMatch(/out of date \(change: additive\)/);
      const back = classifyReports(internalReport, publicReport);
      expect(back.level).toBe('additive');
      expect(back.changed.map((i) => [i.display, i.level])).toEqual([
        ['Recorder.flush (method)', 'additive'],
        ['seam (function)', 'additive'],
      ]);
      expect(back.changed[1]?.reason).toMatch(/release tag changed @internal → @public/);
    } finally {
      writeFileSync(dts, original);
    }
  });
});
