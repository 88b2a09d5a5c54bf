// What each section of docs/benchmarks.md measured: the commit, the load average and the source
// paths of the code it times. run.mjs stamps every section it writes with one line; `--stale`
// lists the sections whose measured paths changed since their commit (or that name no commit).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const STAMP = '- Measured at commit ';
const git = (root, args) => execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();

/**
 * The paths (relative to the repository) whose code a benchmark measures: its package's `src` and
 * `bench` folders and bench/lib.mjs, plus what its header declares on a `// measures:` line
 * (space-separated paths, e.g. `// measures: packages/core/src packages/trace/src`).
 */
export function measuredPaths(root, script) {
  const pkg = path.relative(root, script.dir);
  const declared = readFileSync(script.file, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('// measures:'))
    .flatMap((line) => line.slice('// measures:'.length).trim().split(/\s+/))
    .filter((p) => p !== '');
  return [...new Set([`${pkg}/src`, `${pkg}/bench`, 'bench/lib.mjs', ...declared])];
}

/**
 * Tests beside the measured code are not measured code: a change to a test file alone (a `*.test.ts`,
 * a type test, anything under `__tests__`) leaves a section's figures as they are.
 */
const NOT_MEASURED = [':(exclude,glob)**/*.test.ts', ':(exclude,glob)**/*.test-d.ts', ':(exclude,glob)**/__tests__/**'];

/**
 * The source a benchmark is about to measure: HEAD and whether the worktree has uncommitted changes
 * in its paths. Taken before the benchmark starts (when its process loads the code), so an edit
 * made while it runs is not put on figures that never ran it.
 */
export function sourceState(root, paths) {
  return {
    head: git(root, ['rev-parse', '--short=10', 'HEAD']),
    dirty: git(root, ['status', '--porcelain', '--', ...paths, ...NOT_MEASURED]) !== '',
  };
}

/** The stamp line: the source state (by default, now), the load average now, the paths. */
export function stampLine(root, paths, state = sourceState(root, paths)) {
  const { head, dirty } = state;
  const load = os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ');
  return `${STAMP}${head}${dirty ? ' plus uncommitted changes' : ''}, load average ${load}; measures: ${paths.map((p) => `\`${p}\``).join(' ')}`;
}

/** Puts the stamp under the heading of every `## ` section of a benchmark's output. */
export function stampSections(output, line) {
  return output
    .split(/\n(?=## )/)
    .map((section) => {
      const [heading, ...rest] = section.trim().split('\n');
      return [heading, '', line, ...rest.filter((l) => !l.startsWith(STAMP))].join('\n').replace(/\n\n\n+/g, '\n\n');
    })
    .join('\n\n');
}

/**
 * The sections of a benchmarks file that may show stale figures: each heading with why — it names
 * no commit, its commit is unknown here, it was measured with uncommitted changes, or its measured
 * paths changed between its commit and HEAD (`git diff --quiet <commit> HEAD -- paths`), test files left out.
 */
export function staleSections(root, text) {
  const stale = [];
  for (const section of text.split(/\n(?=## )/).filter((s) => s.startsWith('## '))) {
    const heading = section.split('\n')[0].slice(3);
    const stamp = section.split('\n').find((l) => l.startsWith(STAMP));
    if (stamp === undefined) {
      stale.push({ heading, why: 'names no commit it measured' });
      continue;
    }
    const commit = stamp.slice(STAMP.length).split(/[ ,]/)[0];
    const paths = [...stamp.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
    if (stamp.includes('plus uncommitted changes')) stale.push({ heading, why: `measured ${commit} plus uncommitted changes` });
    else {
      let changed;
      try {
        execFileSync('git', ['diff', '--quiet', commit, 'HEAD', '--', ...paths, ...NOT_MEASURED], { cwd: root, stdio: 'ignore' });
        changed = false;
      } catch (error) {
        changed = error.status === 1 ? true : 'unknown';
      }
      if (changed === true) stale.push({ heading, why: `its measured code changed since ${commit}` });
      else if (changed === 'unknown') stale.push({ heading, why: `commit ${commit} is not in this repository` });
    }
  }
  return stale;
}
