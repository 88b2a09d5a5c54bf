// Removing a command line is a breaking change like removing one of its commands: a package that
// drops its `bin`, or a commit that deletes its CLI report, is judged against the empty CLI surface
// — in api:gate's change since the base, in the committed history and in api:check.
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { leftoverCliReport } from '../src/api-gate.ts';
import { readPackage } from '../src/lib/workspace.ts';
import { gateRepo, ROOT } from './helpers.js';

const BASE = readFileSync(path.join(ROOT, 'api-reports', 'cli.cli.json'), 'utf8');
const WITH_BIN = JSON.stringify({ name: '@fx/tool', version: '0.3.0', bin: { tool: './dist/cli.js' } });
const WITHOUT_BIN = JSON.stringify({ name: '@fx/tool', version: '0.3.0' });

let repos: { cleanup: () => void }[] = [];
afterEach(() => {
  for (const r of repos) r.cleanup();
  repos = [];
});

/** A repository with one published package with a bin and its CLI report. */
function repo() {
  const r = gateRepo({
    'apps/tool/package.json': WITH_BIN,
    'apps/tool/api-extractor.json': '{}',
    'api-reports/tool.api.md': '## API Report File for "@fx/tool"\n\n```ts\n\n// @public\nexport function run(): void;\n\n```\n',
    'api-reports/tool.cli.json': BASE,
  });
  repos.push(r);
  return r;
}
const problems = (g: { problems: string[] }) => g.problems.join('\n');

describe('a command line that goes away', () => {
  it('dropping the bin and the report needs a breaking changeset (working tree)', () => {
    const r = repo();
    r.write('apps/tool/package.json', WITHOUT_BIN);
    rmSync(path.join(r.root, 'api-reports', 'tool.cli.json'));
    const g = r.gate();
    expect(g.ok).toBe(false);
    expect(problems(g)).toMatch(
      /@fx\/tool \(CLI\): breaking change to api-reports\/tool\.cli\.json needs a changeset bumping it at least "minor"/,
    );
    expect(problems(g)).toContain('- copy (command)');

    r.changeset('drop-cli.md', 'minor', '@fx/tool');
    expect(r.gate().problems).toEqual([]);
  });

  it('dropping only the bin (a stale report left behind) is judged the same way', () => {
    const r = repo();
    r.write('apps/tool/package.json', WITHOUT_BIN);
    expect(problems(r.gate())).toMatch(/@fx\/tool \(CLI\): breaking change/);
  });

  it('the history check fails a commit that deleted the CLI report, even when a later commit brings it back', () => {
    const r = repo();
    rmSync(path.join(r.root, 'api-reports', 'tool.cli.json'));
    r.commit('delete the CLI report');
    r.write('api-reports/tool.cli.json', BASE);
    r.commit('bring it back');
    expect(problems(r.gate({}))).toMatch(
      /commit [0-9a-f]{12} \("delete the CLI report"\): breaking change to api-reports\/tool\.cli\.json of @fx\/tool \(CLI\) needs a changeset bumping it at least "minor" added in the same commit/,
    );
  });

  it('the history check fails a commit that removed the bin with its report and no changeset', () => {
    const r = repo();
    r.write('apps/tool/package.json', WITHOUT_BIN);
    rmSync(path.join(r.root, 'api-reports', 'tool.cli.json'));
    r.commit('no more command line');
    r.write('apps/tool/notes.txt', 'later');
    r.commit('an unrelated commit on top');
    expect(problems(r.gate({}))).toMatch(
      /\("no more command line"\): breaking change to api-reports\/tool\.cli\.json of @fx\/tool \(CLI\)/,
    );
  });

  it('api:check fails on a CLI report of a package without a bin; api:update deletes it', () => {
    const r = repo();
    r.write('apps/tool/package.json', WITHOUT_BIN);
    const pkg = readPackage(path.join(r.root, 'apps', 'tool'));
    const [check] = leftoverCliReport({ mode: 'check', pkg, workspaceRoot: r.root });
    expect(check?.ok).toBe(false);
    expect(check?.problems.join('\n')).toMatch(/@fx\/tool \(CLI\): api-reports\/tool\.cli\.json exists but the package declares no "bin"/);
    expect(leftoverCliReport({ mode: 'update', pkg, workspaceRoot: r.root })[0]).toMatchObject({ ok: true, written: true });
    expect(existsSync(path.join(r.root, 'api-reports', 'tool.cli.json'))).toBe(false);
    expect(leftoverCliReport({ mode: 'check', pkg, workspaceRoot: r.root })).toEqual([]);
  });
});
