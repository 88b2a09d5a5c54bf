import { afterEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, unlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runChangesetGate } from '../src/changeset-gate.ts';
import { parseChangeset, requiredBump, versionBump } from '../src/lib/changesets.ts';
import { gateRepo, TOOLS } from './helpers.js';

const reports = path.join(TOOLS, 'test', 'fixtures', 'reports');
const fixture = (name: string, f: 'before' | 'after') => readFileSync(path.join(reports, name, `${f}.api.md`), 'utf8');

let repos: string[] = [];
afterEach(() => {
  for (const r of repos) rmSync(r, { recursive: true, force: true });
  repos = [];
});

function git(cwd: string, ...args: string[]) {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** A one-package repository whose base commit has `before` as the report of @fx/pkg. */
function repo(opts: { before?: string; version?: string } = {}) {
  const r = gateRepo({
    'packages/pkg/package.json': JSON.stringify({ name: '@fx/pkg', version: opts.version ?? '1.0.0' }),
    'packages/pkg/api-extractor.json': '{}',
    ...(opts.before === undefined ? {} : { 'api-reports/pkg.api.md': opts.before }),
  });
  repos.push(r.root);
  return {
    ...r,
    report: (text: string) => r.write('api-reports/pkg.api.md', text),
    changeset: (file: string, bump: string, pkg = '@fx/pkg') => r.changeset(file, bump, pkg),
  };
}
const problems = (r: { problems: string[] }) => r.problems.join('\n');

describe('changeset gate', () => {
  it('fails a breaking change with no changeset, naming package, classification and what it found', () => {
    const r = repo({ before: fixture('removed-method', 'before') });
    r.report(fixture('removed-method', 'after'));
    const g = r.gate();
    expect(g.ok).toBe(false);
    expect(problems(g)).toMatch(
      /@fx\/pkg: breaking change to api-reports\/pkg\.api\.md needs a changeset bumping it at least "major"; found: no changeset for this package/,
    );
    expect(problems(g)).toContain('RunTrace.recordToolExecution (method)');
  });

  it('fails a patch changeset for a breaking change', () => {
    const r = repo({ before: fixture('removed-method', 'before') });
    r.report(fixture('removed-method', 'after'));
    r.changeset('tidy-owls-fly.md', 'patch');
    expect(problems(r.gate())).toMatch(/needs a changeset bumping it at least "major"; found: \.changeset\/tidy-owls-fly\.md → patch/);
  });

  it('passes a breaking change with a major changeset', () => {
    const r = repo({ before: fixture('removed-method', 'before') });
    r.report(fixture('removed-method', 'after'));
    r.changeset('big-bang.md', 'major');
    const g = r.gate();
    expect(g.problems).toEqual([]);
    expect(g.lines.join('\n')).toMatch(/@fx\/pkg: breaking — needs major, covered by \.changeset\/big-bang\.md → major/);
  });

  it('applies the 0.x rule: breaking needs minor, additive needs patch', () => {
    const b = repo({ before: fixture('removed-method', 'before'), version: '0.3.0' });
    b.report(fixture('removed-method', 'after'));
    b.changeset('a.md', 'patch');
    expect(problems(b.gate())).toMatch(/at least "minor" \(0\.x: breaking → minor\)/);
    b.changeset('a.md', 'minor');
    expect(b.gate().ok).toBe(true);

    const a = repo({ before: fixture('optional-param', 'before'), version: '0.3.0' });
    a.report(fixture('optional-param', 'after'));
    expect(problems(a.gate())).toMatch(/@fx\/pkg: additive change .* at least "patch" \(0\.x: additive → patch\)/);
    a.changeset('b.md', 'patch');
    expect(a.gate().ok).toBe(true);
  });

  it('an additive change from 1.0 needs minor', () => {
    const r = repo({ before: fixture('optional-param', 'before') });
    r.report(fixture('optional-param', 'after'));
    r.changeset('c.md', 'patch');
    expect(problems(r.gate())).toMatch(/additive change .* at least "minor"; found: \.changeset\/c\.md → patch/);
  });

  it('a reformatted report needs no changeset', () => {
    const r = repo({ before: fixture('reformatted', 'before') });
    r.report(fixture('reformatted', 'after'));
    const g = r.gate();
    expect(g.problems).toEqual([]);
    expect(g.lines.join('\n')).toMatch(/@fx\/pkg: identical — needs none/);
  });

  it('a report that did not exist at the base is the initial surface', () => {
    const r = repo();
    r.report(fixture('removed-method', 'after'));
    const g = r.gate();
    expect(g.ok).toBe(true);
    expect(g.lines.join('\n')).toMatch(/initial surface/);
  });

  it('does not count a changeset that was already pending at the base: a change brings its own', () => {
    const r = repo({ before: fixture('removed-method', 'before') });
    r.changeset('early.md', 'major');
    r.commit('an older change, still waiting for a release');
    r.report(fixture('removed-method', 'after'));
    r.commit('then the surface change, without a changeset');
    const g = r.gate({}); // no API_GATE_BASE, no origin/main: HEAD~1
    expect(g.lines[0]).toMatch(/HEAD~1/);
    expect(problems(g)).toMatch(/breaking change .* found: \.changeset\/early\.md → major \(already pending at the base: not counted\)/);
  });

  it('counts the changeset committed together with the surface change', () => {
    const r = repo({ before: fixture('removed-method', 'before') });
    r.report(fixture('removed-method', 'after'));
    r.changeset('mine.md', 'major');
    r.commit('the surface change and its changeset');
    const g = r.gate({});
    expect(g.problems).toEqual([]);
    expect(g.lines.join('\n')).toMatch(/mine\.md → major/);
  });

  it('a release commit (version raised, changesets consumed) covers the change', () => {
    const r = repo({ before: fixture('removed-method', 'before') });
    r.report(fixture('removed-method', 'after'));
    writeFileSync(path.join(r.root, 'packages', 'pkg', 'package.json'), JSON.stringify({ name: '@fx/pkg', version: '2.0.0' }));
    expect(r.gate().ok).toBe(true);
  });

  it('a changeset naming an unknown package fails', () => {
    const r = repo({ before: fixture('new-export', 'before') });
    r.changeset('typo.md', 'minor', '@fx/pgk');
    expect(problems(r.gate())).toMatch(/typo\.md names "@fx\/pgk", which is not a package of this workspace/);
  });

  it('a changeset naming a never-released package beside a released one fails, as changeset version would', () => {
    const r = repo({ before: fixture('new-export', 'before') });
    r.write('packages/contract/package.json', JSON.stringify({ name: '@fx/contract', version: '0.0.0', private: true }));
    r.write('.changeset/mixed.md', "---\n'@fx/pkg': patch\n'@fx/contract': minor\n---\n\nboth\n");
    expect(problems(r.gate())).toMatch(
      /mixed\.md names "@fx\/contract", which is never released .* "changeset version" refuses such a changeset/,
    );
    r.write('.changeset/mixed.md', "---\n'@fx/contract': minor\n---\n\nthe unreleased package alone\n");
    expect(problems(r.gate())).not.toMatch(/never released/);
  });

  it('the first commit has no base: everything is initial', () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'api-gate-repo-'));
    repos.push(root);
    git(root, 'init', '-q', '-b', 'main');
    const g = runChangesetGate({ root, env: {} });
    expect(g.ok).toBe(true);
    expect(g.lines[0]).toMatch(/no commits yet|first commit/);
  });
});

describe('changeset gate: the committed history', () => {
  const other = (r: { root: string }, text: string) => writeFileSync(path.join(r.root, 'packages', 'pkg', 'notes.txt'), text);

  it('fails a report change committed without its changeset, even when it is not the last commit', () => {
    const r = repo({ before: fixture('removed-method', 'before') });
    r.report(fixture('removed-method', 'after'));
    r.commit('drop recordToolExecution');
    other(r, 'later');
    r.commit('an unrelated commit on top');
    // a clean clone in CI: the base is HEAD~1, which the first commit is already part of
    const g = r.gate({});
    expect(g.ok).toBe(false);
    expect(problems(g)).toMatch(
      /commit [0-9a-f]{12} \("drop recordToolExecution"\): breaking change to api-reports\/pkg\.api\.md of @fx\/pkg needs a changeset bumping it at least "major" added in the same commit; found: no changeset for this package added in that commit/,
    );
    expect(problems(g)).toContain('RunTrace.recordToolExecution (method)');
  });

  it('a changeset added by a later commit does not cover an earlier report change', () => {
    const r = repo({ before: fixture('removed-method', 'before') });
    r.report(fixture('removed-method', 'after'));
    r.commit('drop recordToolExecution');
    r.changeset('late.md', 'major');
    r.commit('the changeset, one commit too late');
    other(r, 'later');
    r.commit('an unrelated commit on top');
    expect(problems(r.gate({}))).toMatch(/\("drop recordToolExecution"\).*no changeset for this package added in that commit/);
  });

  it('passes a history where each report change brought its changeset, and says so', () => {
    const r = repo({ before: fixture('removed-method', 'before') });
    r.report(fixture('removed-method', 'after'));
    r.changeset('big-bang.md', 'major');
    r.commit('drop recordToolExecution, with its changeset');
    other(r, 'later');
    r.commit('an unrelated commit on top');
    const g = r.gate({});
    expect(g.problems).toEqual([]);
    expect(g.lines.join('\n')).toMatch(/history up to the base: 2 commits changed a report; each brought its own changeset/);
    expect(g.lines.join('\n')).toMatch(
      /\("drop recordToolExecution, with its changeset"\): @fx\/pkg breaking, covered by \.changeset\/big-bang\.md → major/,
    );
  });

  it('excuses a commit listed in api-reports/history-waivers.txt, and names the reason', () => {
    const r = repo({ before: fixture('removed-method', 'before') });
    r.report(fixture('removed-method', 'after'));
    r.commit('drop recordToolExecution');
    const sha = git(r.root, 'rev-parse', 'HEAD');
    writeFileSync(path.join(r.root, 'api-reports', 'history-waivers.txt'), `# reviewed\n${sha.slice(0, 10)} released in 3.0.0 by hand\n`);
    r.commit('waive it');
    const g = r.gate({});
    expect(g.problems).toEqual([]);
    expect(g.lines.join('\n')).toContain(
      `commit ${sha.slice(0, 12)} ("drop recordToolExecution"): waived in api-reports/history-waivers.txt: released in 3.0.0 by hand`,
    );
    writeFileSync(path.join(r.root, 'api-reports', 'history-waivers.txt'), 'not-a-sha because\n');
    expect(problems(r.gate({}))).toMatch(/history-waivers\.txt line 1: expected "<commit sha, 7 to 40 hex digits> <why it is waived>"/);
  });

  it('says so, and judges nothing of the history, in a shallow clone', () => {
    const r = repo({ before: fixture('removed-method', 'before') });
    r.report(fixture('removed-method', 'after'));
    r.commit('drop recordToolExecution');
    other(r, 'later');
    r.commit('an unrelated commit on top');
    const shallow = mkdtempSync(path.join(os.tmpdir(), 'api-gate-shallow-'));
    repos.push(shallow);
    execFileSync('git', ['clone', '-q', '--depth', '2', `file://${r.root}`, shallow]);
    const g = runChangesetGate({ root: shallow, env: {} });
    expect(g.lines.join('\n')).toMatch(/history: not judged, this clone is shallow/);
    expect(g.ok).toBe(true);
  });

  it('counts a release commit that raised the version as covering its own report change', () => {
    const r = repo({ before: fixture('removed-method', 'before') });
    r.report(fixture('removed-method', 'after'));
    writeFileSync(path.join(r.root, 'packages', 'pkg', 'package.json'), JSON.stringify({ name: '@fx/pkg', version: '2.0.0' }));
    r.commit('release 2.0.0');
    other(r, 'later');
    r.commit('an unrelated commit on top');
    expect(r.gate({}).problems).toEqual([]);
  });
});

describe("changeset gate: judged since each package's last published release", () => {
  const other = (r: { root: string }, text: string) => writeFileSync(path.join(r.root, 'packages', 'pkg', 'notes.txt'), text);
  const setVersion = (r: { root: string }, version: string) =>
    writeFileSync(path.join(r.root, 'packages', 'pkg', 'package.json'), JSON.stringify({ name: '@fx/pkg', version }));

  /**
   * A clone made as docs/releasing.md says (origin/main where it started, never moved), then two
   * releases as `pnpm release` makes them: a change with its changeset, a "Version Packages"
   * commit that consumes it and raises the version, and the tag `changeset publish` adds.
   */
  function afterTwoReleases() {
    const r = repo({ before: fixture('removed-method', 'before'), version: '0.1.0' });
    git(r.root, 'update-ref', 'refs/remotes/origin/main', 'HEAD');
    for (const [n, bump, version] of [
      [1, 'minor', '0.2.0'],
      [2, 'patch', '0.2.1'],
    ] as const) {
      other(r, `change ${n}`);
      r.changeset(`change-${n}.md`, bump);
      r.commit(`change ${n}, with its changeset`);
      unlinkSync(path.join(r.root, '.changeset', `change-${n}.md`));
      setVersion(r, version);
      r.commit('Version Packages');
      git(r.root, 'tag', `@fx/pkg@${version}`);
    }
    return r;
  }

  it('a breaking change with a patch changeset after two releases is refused before and after versioning, origin/main not moved', () => {
    const r = afterTwoReleases();
    r.report(fixture('removed-method', 'after'));
    r.changeset('drop-probe.md', 'patch');
    r.commit('drop recordToolExecution (breaking) with a patch changeset');
    const before = r.gate({}); // base: the merge base with origin/main, where the clone started
    expect(before.lines[0]).toMatch(/merge base with origin\/main/);
    expect(before.ok).toBe(false);
    expect(problems(before)).toMatch(
      /@fx\/pkg: breaking change to api-reports\/pkg\.api\.md needs a changeset bumping it at least "minor" \(0\.x: breaking → minor\); found: \.changeset\/drop-probe\.md → patch/,
    );
    expect(before.lines.join('\n')).toMatch(/@fx\/pkg: judged since its release 0\.2\.1 \(tag @fx\/pkg@0\.2\.1, [0-9a-f]{12}\)/);

    // what `changeset version` leaves: the changeset consumed, the version raised by a patch
    unlinkSync(path.join(r.root, '.changeset', 'drop-probe.md'));
    setVersion(r, '0.2.2');
    r.commit('Version Packages');
    const after = r.gate({});
    expect(after.ok).toBe(false);
    expect(problems(after)).toMatch(
      /breaking change .* at least "minor" .*found: package\.json version raised since its release 0\.2\.1 → patch/,
    );
  });

  it('a minor changeset covers it; the next release is judged from the new tag', () => {
    const r = afterTwoReleases();
    r.report(fixture('removed-method', 'after'));
    r.changeset('drop-probe.md', 'minor');
    r.commit('drop recordToolExecution (breaking) with a minor changeset');
    expect(r.gate({}).problems).toEqual([]);
    unlinkSync(path.join(r.root, '.changeset', 'drop-probe.md'));
    setVersion(r, '0.3.0');
    r.commit('Version Packages');
    expect(r.gate({}).problems).toEqual([]);
    git(r.root, 'tag', '@fx/pkg@0.3.0');
    other(r, 'after release 3');
    r.commit('an unrelated commit');
    const g = r.gate({});
    expect(g.problems).toEqual([]);
    expect(g.lines.join('\n')).toMatch(/@fx\/pkg: judged since its release 0\.3\.0 \(tag @fx\/pkg@0\.3\.0/);
    expect(g.lines.join('\n')).toMatch(/@fx\/pkg: report unchanged/);
  });

  it("without tags, the registry's version (API_GATE_RELEASED, as release.ts passes it) finds the release by the commit that set it", () => {
    const r = afterTwoReleases();
    for (const tag of git(r.root, 'tag', '--list').split('\n').filter(Boolean)) git(r.root, 'tag', '-d', tag);
    r.report(fixture('removed-method', 'after'));
    r.changeset('drop-probe.md', 'patch');
    r.commit('drop recordToolExecution (breaking) with a patch changeset');
    const g = r.gate({ API_GATE_RELEASED: '@fx/pkg@0.2.1' });
    expect(problems(g)).toMatch(/@fx\/pkg: breaking change .* at least "minor"/);
    expect(g.lines.join('\n')).toMatch(/@fx\/pkg: judged since its release 0\.2\.1 \(the registry's version, set by commit [0-9a-f]{12}\)/);
    expect(problems(r.gate({ API_GATE_RELEASED: 'not a list' }))).toMatch(
      /API_GATE_RELEASED must be a list of "<package>@<version>" separated by spaces or commas; got "not"/,
    );
  });

  it('a release older than the base changes nothing: a branch is judged from its merge base', () => {
    const r = afterTwoReleases();
    git(r.root, 'update-ref', 'refs/remotes/origin/main', 'HEAD');
    git(r.root, 'checkout', '-q', '-b', 'feature');
    r.report(fixture('removed-method', 'after'));
    r.changeset('drop-probe.md', 'minor');
    r.commit('drop recordToolExecution (breaking) with a minor changeset');
    const g = r.gate({});
    expect(g.problems).toEqual([]);
    expect(g.lines.join('\n')).not.toMatch(/judged since its release/);
  });
});

describe('changeset gate: release tags are surface (0.x)', () => {
  const other = (r: { root: string }, text: string) => writeFileSync(path.join(r.root, 'packages', 'pkg', 'notes.txt'), text);

  it('@public → @internal in the working tree is breaking: needs minor while 0.x, naming the member and the tag change', () => {
    const r = repo({ before: fixture('tag-public-to-internal', 'before'), version: '0.3.0' });
    r.report(fixture('tag-public-to-internal', 'after'));
    const g = r.gate();
    expect(g.ok).toBe(false);
    expect(problems(g)).toMatch(
      /@fx\/pkg: breaking change to api-reports\/pkg\.api\.md needs a changeset bumping it at least "minor" \(0\.x: breaking → minor\); found: no changeset for this package/,
    );
    expect(problems(g)).toContain('~ Recorder.flush (method) — breaking: release tag changed @public → @internal');
    expect(problems(g)).toContain('~ seam (function) — breaking: release tag changed @public → @internal');
    r.changeset('hide.md', 'patch');
    expect(problems(r.gate())).toMatch(/at least "minor" \(0\.x: breaking → minor\); found: \.changeset\/hide\.md → patch/);
    r.changeset('hide.md', 'minor');
    const ok = r.gate();
    expect(ok.problems).toEqual([]);
    expect(ok.lines.join('\n')).toMatch(/@fx\/pkg: breaking — needs minor, covered by \.changeset\/hide\.md → minor/);
  });

  it('@internal → @public in the working tree is additive: needs patch while 0.x', () => {
    const r = repo({ before: fixture('tag-internal-to-public', 'before'), version: '0.3.0' });
    r.report(fixture('tag-internal-to-public', 'after'));
    const g = r.gate();
    expect(g.ok).toBe(false);
    expect(problems(g)).toMatch(/@fx\/pkg: additive change .* at least "patch" \(0\.x: additive → patch\)/);
    expect(problems(g)).toContain('~ seam (function) — additive: release tag changed @internal → @public');
    r.changeset('expose.md', 'patch');
    expect(r.gate().ok).toBe(true);
  });

  it('the committed history: a tag flip landed without its changeset fails, each way, naming the commit, member and tag change', () => {
    const r = repo({ before: fixture('tag-public-to-internal', 'before'), version: '0.3.0' });
    r.report(fixture('tag-public-to-internal', 'after'));
    r.commit('hide flush and seam');
    r.report(fixture('tag-internal-to-public', 'after'));
    r.commit('expose them again');
    other(r, 'later');
    r.commit('an unrelated commit on top');
    const g = r.gate({}); // a clean clone in CI: HEAD~1
    expect(g.ok).toBe(false);
    const text = problems(g);
    expect(text).toMatch(
      /commit [0-9a-f]{12} \("hide flush and seam"\): breaking change to api-reports\/pkg\.api\.md of @fx\/pkg needs a changeset bumping it at least "minor" added in the same commit; found: no changeset for this package added in that commit/,
    );
    expect(text).toMatch(
      /commit [0-9a-f]{12} \("expose them again"\): additive change to api-reports\/pkg\.api\.md of @fx\/pkg needs a changeset bumping it at least "patch" added in the same commit/,
    );
    expect(text).toContain('~ Recorder.flush (method) — breaking: release tag changed @public → @internal');
    expect(text).toContain('~ seam (function) — additive: release tag changed @internal → @public');
  });

  it('the committed history: tag flips that brought changesets of the right bump pass', () => {
    const r = repo({ before: fixture('tag-public-to-internal', 'before'), version: '0.3.0' });
    r.report(fixture('tag-public-to-internal', 'after'));
    r.changeset('hide.md', 'minor');
    r.commit('hide flush and seam, with a minor changeset');
    r.report(fixture('tag-internal-to-public', 'after'));
    r.changeset('expose.md', 'patch');
    r.commit('expose them again, with a patch changeset');
    other(r, 'later');
    r.commit('an unrelated commit on top');
    const g = r.gate({});
    expect(g.problems).toEqual([]);
    const lines = g.lines.join('\n');
    expect(lines).toMatch(/\("hide flush and seam, with a minor changeset"\): @fx\/pkg breaking, covered by \.changeset\/hide\.md → minor/);
    expect(lines).toMatch(/\("expose them again, with a patch changeset"\): @fx\/pkg additive, covered by \.changeset\/expose\.md → patch/);
  });
});

describe('changesets', () => {
  it('parses front matter with quoted or bare names', () => {
    const cs = parseChangeset('---\n"@a/b": minor\n\'@a/c\': patch\nd: major\n---\n\nSummary.\n', 'x.md');
    expect([...cs.releases]).toEqual([
      ['@a/b', 'minor'],
      ['@a/c', 'patch'],
      ['d', 'major'],
    ]);
    expect(cs.summary).toBe('Summary.');
    expect(() => parseChangeset('no front matter', 'y.md')).toThrow(/y\.md: not a changeset/);
  });
  it('maps a classification to the smallest bump, with the 0.x rule', () => {
    expect([requiredBump('breaking', '1.2.3'), requiredBump('additive', '1.2.3'), requiredBump('identical', '1.2.3')]).toEqual([
      'major',
      'minor',
      'none',
    ]);
    expect([requiredBump('breaking', '0.1.0'), requiredBump('additive', '0.1.0')]).toEqual(['minor', 'patch']);
    expect([versionBump('0.1.0', '0.2.0'), versionBump('1.0.0', '1.0.1'), versionBump('1.0.0', '1.0.0')]).toEqual([
      'minor',
      'patch',
      'none',
    ]);
  });
});
