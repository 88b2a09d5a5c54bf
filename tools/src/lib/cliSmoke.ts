/**
 * The installed `runledger` command, proven from a consumer project (used by `pnpm api:pack`):
 * `runledger --help`, `migrate` and `runs list --json` on a fresh SQLite file, run through the
 * project's own `npx`. In a project installed with plain npm and without the optional peer
 * `@runledger/store-postgres`, a `--pg` command must exit 2 naming that package.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** The native module of better-sqlite3, relative to its package folder. */
const SQLITE_BINDING = path.join('build', 'Release', 'better_sqlite3.node');

/**
 * Runs `npx --no -- runledger <args>` in the project (`--` so that npx leaves `--help` to runledger).
 */
function runledger(project: string, args: string[]) {
  const r = spawnSync('npx', ['--no', '--', 'runledger', ...args], {
    cwd: project,
    encoding: 'utf8',
    env: { ...process.env, RUNLEDGER_PG_URL: '', RUNLEDGER_TOKEN: '', INIT_CWD: '' },
  });
  return { code: r.status, out: `${r.stdout ?? ''}`, err: `${r.stderr ?? ''}`, line: `npx runledger ${args.join(' ')}` };
}

/**
 * Checks the CLI installed in a consumer project.
 * @returns failures, each naming the command line and what it printed
 */
export function checkInstalledCli({
  project,
  label,
  withoutPostgres = false,
  log,
}: {
  project: string;
  label: string;
  withoutPostgres?: boolean;
  log: (s: string) => void;
}): string[] {
  const failures: string[] = [];
  const fail = (r: ReturnType<typeof runledger>, what: string) =>
    failures.push(`${label}: ${r.line} ${what} (exit ${r.code})\nstdout: ${r.out}\nstderr: ${r.err}`);

  const help = runledger(project, ['--help']);
  if (help.code !== 0 || !help.out.startsWith('Usage: runledger <command>')) fail(help, 'should print the usage and exit 0');
  const db = path.join(project, 'runs.db');
  const migrate = runledger(project, ['migrate', '--db', db]);
  if (migrate.code !== 0 || !/created at schema version \d+/.test(migrate.out)) fail(migrate, 'should create the store and say so');
  const list = runledger(project, ['runs', 'list', '--db', db, '--json']);
  let listed;
  try {
    listed = JSON.parse(list.out);
  } catch {
    listed = undefined;
  }
  if (list.code !== 0 || JSON.stringify(listed) !== JSON.stringify({ runs: [], nextCursor: null }))
    fail(list, 'should print {"runs":[],"nextCursor":null}');
  if (withoutPostgres) {
    const pg = runledger(project, ['runs', 'list', '--pg', 'postgres://127.0.0.1:1/none']);
    if (pg.code !== 2 || !pg.err.includes('npm i -D @runledger/store-postgres'))
      fail(pg, 'should exit 2 naming the optional package @runledger/store-postgres');
  }
  if (failures.length === 0)
    log(
      `${label}: runledger --help, migrate, runs list --json${withoutPostgres ? ', --pg without store-postgres (exit 2)' : ''} work from the installed tarball`,
    );
  return failures;
}

/**
 * better-sqlite3's native module for the consumer: its install script compiles it from source here
 * (its prebuilt download is unreachable; ~80 s on 2 cores). The workspace holds a build for this
 * very Node, so the consumer gets a copy of it when both are the same better-sqlite3 release;
 * otherwise its own install script runs (`npm rebuild`). The CLI checks that follow load it.
 * @param root the workspace @param project the consumer
 * @returns a failure
 */
function provideSqliteBinding(root: string, project: string): string | undefined {
  const installed = path.join(project, 'node_modules', 'better-sqlite3');
  if (!existsSync(installed)) return undefined; // not a dependency: nothing to build
  const version = (dir: string) => JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')).version;
  let built;
  try {
    built = path.dirname(createRequire(path.join(root, 'packages', 'store-sqlite', 'package.json')).resolve('better-sqlite3/package.json'));
  } catch {
    built = undefined;
  }
  if (built !== undefined && existsSync(path.join(built, SQLITE_BINDING)) && version(built) === version(installed)) {
    mkdirSync(path.dirname(path.join(installed, SQLITE_BINDING)), { recursive: true });
    copyFileSync(path.join(built, SQLITE_BINDING), path.join(installed, SQLITE_BINDING));
    return undefined;
  }
  const r = spawnSync('npm', ['rebuild', 'better-sqlite3'], { cwd: project, encoding: 'utf8' });
  return r.status === 0 ? undefined : `npm rebuild better-sqlite3 in the npm consumer failed:\n${r.stdout}${r.stderr}`;
}

/**
 * A consumer project installed with plain npm from the tarballs: `@runledger/cli` and its
 * dependencies, but not the optional peer `@runledger/store-postgres`. Install scripts are skipped
 * and better-sqlite3's native module provided by {@link provideSqliteBinding}.
 *   root: the workspace; specs: package name → `file:<tarball>`; cli: the CLI package's name
 */
export function npmConsumer({ root, dir, specs, cli }: { root: string; dir: string; specs: Record<string, string>; cli: string }): {
  project: string;
  failure?: string;
} {
  const project = path.join(dir, 'npm-consumer');
  spawnSync('mkdir', ['-p', project]);
  const dependencies = Object.fromEntries(Object.entries(specs).filter(([name]) => name !== '@runledger/store-postgres'));
  writeFileSync(
    path.join(project, 'package.json'),
    JSON.stringify(
      {
        name: 'runledger-npm-consumer',
        private: true,
        type: 'module',
        devDependencies: { [cli]: dependencies[cli] },
        dependencies: Object.fromEntries(Object.entries(dependencies).filter(([n]) => n !== cli)),
      },
      null,
      2,
    ),
  );
  const r = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts'], {
    cwd: project,
    encoding: 'utf8',
  });
  if (r.status !== 0)
    return { project, failure: `npm install of the packed tarballs (without @runledger/store-postgres) failed:\n${r.stdout}${r.stderr}` };
  const failure = provideSqliteBinding(root, project);
  return failure === undefined ? { project } : { project, failure };
}
