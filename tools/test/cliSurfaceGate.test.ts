// The CLI surface report counts like an API report: in api:check / api:update (runCliSurfaceGate),
// in api:gate's change since the base, and in its committed-history check — on temporary git
// repositories holding one package with a `bin`.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCliSurfaceGate } from '../src/api-gate.ts';
import { cliSurfaceText } from '../src/lib/cliSurface.ts';
import { gateRepo, ROOT } from './helpers.js';

const BASE = readFileSync(path.join(ROOT, 'api-reports', 'cli.cli.json'), 'utf8');
/** The base surface without `runs list --limit`: a removed flag, breaking. */
const WITHOUT_LIMIT = (() => {
  const s = JSON.parse(BASE);
  const runsList = s.commands.find((c: { name: string }) => c.name === 'runs list');
  runsList.flags = runsList.flags.filter((f: { name: string }) => f.name !== 'limit');
  return cliSurfaceText(s);
})();
/** The base surface with a new `runs list --json` property: additive. */
const WITH_LABELS = (() => {
  const s = JSON.parse(BASE);
  s.commands.find((c: { name: string }) => c.name === 'runs list').jsonOutput.properties.runs.items.properties.labels = {
    type: 'array',
    items: { type: 'string' },
  };
  return cliSurfaceText(s);
})();

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});
const temp = () => {
  const d = mkdtempSync(path.join(os.tmpdir(), 'cli-surface-gate-'));
  dirs.push(d);
  return d;
};

/** A repository with one published package with a bin (apps/tool, @fx/tool 0.3.0) whose CLI report is `cli`. */
function repo(cli: string) {
  const r = gateRepo({
    'apps/tool/package.json': JSON.stringify({ name: '@fx/tool', version: '0.3.0', bin: { tool: './dist/cli.js' } }),
    'apps/tool/api-extractor.json': '{}',
    'api-reports/tool.api.md': '## API Report File for "@fx/tool"\n\n```ts\n\n// @public\nexport function run(): void;\n\n```\n',
    'api-reports/tool.cli.json': cli,
  });
  dirs.push(r.root);
  return {
    ...r,
    cli: (text: string) => r.write('api-reports/tool.cli.json', text),
    changeset: (file: string, bump: string) => r.changeset(file, bump, '@fx/tool'),
  };
}
const problems = (g: { problems: string[] }) => g.problems.join('\n');

describe('api:gate on the CLI surface', () => {
  it('fails a removed flag without a changeset, naming the CLI report, the level and the flag', () => {
    const r = repo(BASE);
    r.cli(WITHOUT_LIMIT);
    const g = r.gate();
    expect(g.ok).toBe(false);
    expect(problems(g)).toMatch(
      /@fx\/tool \(CLI\): breaking change to api-reports\/tool\.cli\.json needs a changeset bumping it at least "minor" \(0\.x: breaking → minor\); found: no changeset for this package/,
    );
    expect(problems(g)).toContain('- runs list --limit (flag)');
  });

  it('a patch changeset covers a new JSON field (additive), not a removed flag (breaking)', () => {
    const additive = repo(BASE);
    additive.cli(WITH_LABELS);
    additive.changeset('labels.md', 'patch');
    const ok = additive.gate();
    expect(ok.problems).toEqual([]);
    expect(ok.lines.join('\n')).toMatch(/@fx\/tool \(CLI\): additive — needs patch, covered by \.changeset\/labels\.md → patch/);

    const breaking = repo(BASE);
    breaking.cli(WITHOUT_LIMIT);
    breaking.changeset('limit.md', 'patch');
    expect(problems(breaking.gate())).toMatch(/found: \.changeset\/limit\.md → patch/);
  });

  it('the history check fails a CLI change committed without its changeset, even under a later commit', () => {
    const r = repo(BASE);
    r.cli(WITHOUT_LIMIT);
    r.commit('drop runs list --limit');
    writeFileSync(path.join(r.root, 'apps', 'tool', 'notes.txt'), 'later');
    r.commit('an unrelated commit on top');
    expect(problems(r.gate({}))).toMatch(
      /commit [0-9a-f]{12} \("drop runs list --limit"\): breaking change to api-reports\/tool\.cli\.json of @fx\/tool \(CLI\) needs a changeset bumping it at least "minor" added in the same commit/,
    );
  });

  it('the history check passes a CLI change that brought its changeset', () => {
    const r = repo(BASE);
    r.cli(WITH_LABELS);
    r.changeset('labels.md', 'patch');
    r.commit('runs list --json: labels, with its changeset');
    writeFileSync(path.join(r.root, 'apps', 'tool', 'notes.txt'), 'later');
    r.commit('an unrelated commit on top');
    const g = r.gate({});
    expect(g.problems).toEqual([]);
    expect(g.lines.join('\n')).toMatch(
      /\("runs list --json: labels, with its changeset"\): @fx\/tool \(CLI\) additive, covered by \.changeset\/labels\.md → patch/,
    );
  });
});

describe('api:check / api:update on the CLI surface (runCliSurfaceGate)', () => {
  /** A built package whose dist/cli-surface.js returns `doc`, and an empty report folder. */
  function builtPackage(doc: unknown) {
    const root = temp();
    const dir = path.join(root, 'apps', 'tool');
    mkdirSync(path.join(dir, 'dist'), { recursive: true });
    writeFileSync(
      path.join(dir, 'package.json'),
      JSON.stringify({ name: '@fx/tool', version: '0.3.0', type: 'module', bin: { tool: './dist/cli.js' } }),
    );
    writeFileSync(path.join(dir, 'dist', 'cli-surface.js'), `export function cliSurfaceDocument() { return ${JSON.stringify(doc)}; }\n`);
    return { root, dir, reportDir: path.join(root, 'api-reports') };
  }

  it('update writes the stable report; check passes on it and fails on drift with a diff and the classification', () => {
    const p = builtPackage(JSON.parse(BASE));
    expect(
      runCliSurfaceGate({ mode: 'check', packageDir: p.dir, reportDir: p.reportDir, workspaceRoot: p.root }).problems.join('\n'),
    ).toMatch(/@fx\/tool \(CLI\): api-reports\/tool\.cli\.json does not exist; run "pnpm api:update"/);
    const updated = runCliSurfaceGate({ mode: 'update', packageDir: p.dir, reportDir: p.reportDir, workspaceRoot: p.root });
    expect(updated).toMatchObject({ ok: true, written: true });
    expect(readFileSync(path.join(p.reportDir, 'tool.cli.json'), 'utf8')).toBe(BASE);
    expect(runCliSurfaceGate({ mode: 'check', packageDir: p.dir, reportDir: p.reportDir, workspaceRoot: p.root })).toMatchObject({
      ok: true,
      problems: [],
    });

    writeFileSync(
      path.join(p.dir, 'dist', 'cli-surface.js'),
      `export function cliSurfaceDocument() { return ${JSON.stringify(JSON.parse(WITHOUT_LIMIT))}; }\n`,
    );
    const drift = runCliSurfaceGate({ mode: 'check', packageDir: p.dir, reportDir: p.reportDir, workspaceRoot: p.root });
    expect(drift.ok).toBe(false);
    expect(drift.problems.join('\n')).toMatch(/the CLI surface report api-reports\/tool\.cli\.json is out of date \(change: breaking\)/);
    expect(drift.diff).toMatch(/^-\s+"name": "limit",$/m);
  });

  it('a package with a bin but no dist/cli-surface.js fails, naming the file', () => {
    const p = builtPackage({});
    rmSync(path.join(p.dir, 'dist', 'cli-surface.js'));
    expect(
      runCliSurfaceGate({ mode: 'check', packageDir: p.dir, reportDir: p.reportDir, workspaceRoot: p.root }).problems.join('\n'),
    ).toMatch(/dist\/cli-surface\.js is missing: a package with a "bin" must build one exporting cliSurfaceDocument\(\)/);
  });
});
