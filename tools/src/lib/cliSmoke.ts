/**
 * The installed `runledger` command, proven from a consumer project (used by `pnpm api:pack`):
 * `runledger --help`, `migrate` and `runs list --json` on a fresh SQLite file, run through the
 * project's own `npx`. In a project installed with plain npm and without the optional peer
 * `@runledger/store-postgres`, a `--pg` command must exit 2 naming that package.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { provideSqliteBinding } from './sqliteBinding.ts';

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
  // an empty store: no runs, no next page, and (every store of runledger can search) totals of nothing
  const empty = { runs: [], nextCursor: null, totals: { runs: 0, tokens: 0 } };
  if (list.code !== 0 || JSON.stringify(listed) !== JSON.stringify(empty)) fail(list, `should print ${JSON.stringify(empty)}`);
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
  const { failure } = provideSqliteBinding(root, path.join(project, 'package.json'));
  return failure === undefined ? { project } : { project, failure };
}
