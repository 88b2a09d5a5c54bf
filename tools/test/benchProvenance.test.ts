import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- bench/provenance.mjs is plain ESM beside bench/run.mjs, without declarations
import { measuredPaths, sourceState, staleSections, stampLine, stampSections } from '../../bench/provenance.mjs';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' }).trim();

/** A repository with one package whose bench declares packages/core/src too. */
function repo(): { root: string; script: { dir: string; file: string } } {
  const root = mkdtempSync(path.join(tmpdir(), 'bench-provenance-'));
  for (const dir of ['packages/mcp/src', 'packages/mcp/bench', 'packages/core/src', 'packages/trace/src', 'bench'])
    mkdirSync(path.join(root, dir), { recursive: true });
  writeFileSync(path.join(root, 'packages/mcp/src/a.ts'), 'a\n');
  writeFileSync(path.join(root, 'packages/core/src/c.ts'), 'c\n');
  writeFileSync(path.join(root, 'packages/trace/src/t.ts'), 't\n');
  writeFileSync(path.join(root, 'bench/lib.mjs'), '\n');
  const file = path.join(root, 'packages/mcp/bench/x.bench.mjs');
  writeFileSync(file, '// measures: packages/core/src\n// what it times\n');
  git(root, 'init', '-q');
  git(root, 'add', '.');
  git(root, 'commit', '-qm', 'one');
  return { root, script: { dir: path.join(root, 'packages/mcp'), file } };
}

describe('bench provenance (pnpm bench --stale)', () => {
  it('a section names its commit, load and paths, and is stale only once its measured code changed', () => {
    const { root, script } = repo();
    const paths = measuredPaths(root, script);
    expect(paths).toEqual(['packages/mcp/src', 'packages/mcp/bench', 'bench/lib.mjs', 'packages/core/src']);
    const text = stampSections('## mcp: one\n\ntext\n\n## mcp: two\n\nmore', stampLine(root, paths));
    expect(text).toMatch(
      /^## mcp: one\n\n- Measured at commit [0-9a-f]{10}, load average [\d.]+ \/ [\d.]+ \/ [\d.]+; measures: `packages\/mcp\/src`/,
    );
    expect(text.match(/- Measured at commit/g)).toHaveLength(2);
    const file = `# Benchmarks\n\n${text}\n\n## old: unstamped\n\nfigures\n`;
    expect(staleSections(root, file)).toEqual([{ heading: 'old: unstamped', why: 'names no commit it measured' }]);

    writeFileSync(path.join(root, 'packages/trace/src/t.ts'), 't2\n');
    git(root, 'commit', '-qam', 'elsewhere');
    expect(staleSections(root, file)).toHaveLength(1);

    // a test beside the measured code is not measured code: a test-only change leaves the figures as they are
    writeFileSync(path.join(root, 'packages/core/src/c.test.ts'), 'test\n');
    writeFileSync(path.join(root, 'packages/mcp/src/a.test-d.ts'), 'type test\n');
    mkdirSync(path.join(root, 'packages/mcp/src/__tests__'));
    writeFileSync(path.join(root, 'packages/mcp/src/__tests__/x.ts'), 'test\n');
    git(root, 'add', '.');
    git(root, 'commit', '-qm', 'tests only');
    expect(staleSections(root, file)).toHaveLength(1);

    writeFileSync(path.join(root, 'packages/core/src/c.ts'), 'c2\n');
    git(root, 'commit', '-qam', 'measured code');
    expect(staleSections(root, file).map((s: { heading: string }) => s.heading)).toEqual(['mcp: one', 'mcp: two', 'old: unstamped']);
  });

  it('a section measured with uncommitted changes in its paths says so and counts as stale', () => {
    const { root, script } = repo();
    writeFileSync(path.join(root, 'packages/mcp/src/a.ts'), 'edited\n');
    const paths = measuredPaths(root, script);
    const text = stampSections('## mcp: one\n\ntext', stampLine(root, paths));
    expect(text).toContain('plus uncommitted changes');
    expect(staleSections(root, text)).toEqual([{ heading: 'mcp: one', why: expect.stringContaining('uncommitted') }]);
  });

  it('the source state is the one the benchmark started on: an edit made while it ran is not on its figures, one made before is', () => {
    const { root, script } = repo();
    const paths = measuredPaths(root, script);
    const atStart = sourceState(root, paths);
    writeFileSync(path.join(root, 'packages/mcp/src/a.ts'), 'edited while the benchmark ran\n');
    expect(stampLine(root, paths, atStart)).not.toContain('plus uncommitted changes');
    expect(stampLine(root, paths, sourceState(root, paths))).toContain('plus uncommitted changes');
    expect(staleSections(root, stampSections('## mcp: one\n\ntext', stampLine(root, paths, atStart)))).toEqual([]);
  });

  it('an uncommitted change to a test only is no uncommitted change to the measured code', () => {
    const { root, script } = repo();
    writeFileSync(path.join(root, 'packages/mcp/src/a.test.ts'), 'new test\n');
    expect(stampLine(root, measuredPaths(root, script))).not.toContain('plus uncommitted changes');
  });
});
