// Issue 13 polish of the `runledger` CLI: run id prefixes, read commands that never create a
// store, `migrate` saying what it did, the demo's port check, and Ctrl+C (SIGINT) on the real
// binary ending `serve` and `demo` with a goodbye and exit status 0.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SqliteRunStore } from '@runledger/store-sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, BIN_ENV, cli, pgClientOrSkip, runBin } from './cliHelpers.js';

const PG_URL = process.env['RUNLEDGER_PG_URL'] || 'postgres://postgres@127.0.0.1:5432/test';

/** Starts the real binary, sends SIGINT (or `stopWith`) once `ready` matches its stdout, and waits for the exit. */
function interrupt(
  args: readonly string[],
  cwd: string,
  ready: RegExp,
  stopWith: NodeJS.Signals = 'SIGINT',
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env: BIN_ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let sent = false;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no exit after ${stopWith}; stdout so far:\n${stdout}\nstderr:\n${stderr}`));
    }, 60_000);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (!sent && ready.test(stdout)) {
        sent = true;
        child.kill(stopWith);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

let dir: string;
let db: string;
const FIRST = 'abcdef12-0000-4000-8000-000000000001';
const SECOND = 'abcdef12-0000-4000-8000-000000000002';
const THIRD = 'abcdef13-0000-4000-8000-000000000003';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'runledger-ui-cli13-'));
  db = join(dir, 'runs.db');
  const store = await SqliteRunStore.open({ path: db });
  try {
    for (const id of [FIRST, SECOND, THIRD])
      await store.createRun({ id, configuration: 'prefix-test', actor: null, createdAt: Date.UTC(2026, 10, 30, 9) });
  } finally {
    await store.close();
  }
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('runs show <id prefix>', () => {
  it('takes a unique prefix of at least 8 characters: the short id the app shows', async () => {
    const show = await cli(['runs', 'show', 'abcdef13', '--db', db], dir);
    expect(show.stderr).toBe('');
    expect(show.code).toBe(0);
    expect(show.stdout).toContain(`Run ${THIRD}`);
    const upper = await cli(['runs', 'show', 'ABCDEF13-0000', '--db', db], dir);
    expect(upper.stdout).toContain(`Run ${THIRD}`);
  });

  it('lists the matches of an ambiguous prefix and exits 1', async () => {
    const show = await cli(['runs', 'show', 'abcdef12', '--db', db], dir);
    expect(show.code).toBe(1);
    expect(show.stdout).toBe('');
    expect(show.stderr).toContain('"abcdef12" is the start of 2 runs');
    expect(show.stderr).toContain(`  ${FIRST}\n`);
    expect(show.stderr).toContain(`  ${SECOND}\n`);
    expect(show.stderr).not.toContain(THIRD);
  });

  it('refuses a prefix shorter than 8 characters, and one that matches nothing', async () => {
    const short = await cli(['runs', 'show', 'abcdef1', '--db', db], dir);
    expect(short.code).toBe(1);
    expect(short.stderr).toContain('at least 8 characters');
    const none = await cli(['runs', 'show', 'ffffffff', '--db', db], dir);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('there is no run "ffffffff"');
  });
});

describe('read commands never create a store', () => {
  it.each([[['runs', 'list']], [['runs', 'show', FIRST]], [['runs', 'recover']], [['servers']], [['serve', '--port', '0']]])(
    '%j on a missing SQLite file: a clear error naming the path, exit 1, no file',
    async (args) => {
      const missing = join(dir, `missing-${args.join('-')}.db`);
      const result = await runBin([...args, '--db', missing], dir);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(`there is no SQLite store at ${missing}`);
      expect(result.stderr).toContain('nothing was created');
      expect(existsSync(missing)).toBe(false);
    },
  );

  it('on PostgreSQL: a schema without a store is refused and not created', async (ctx) => {
    const client = await pgClientOrSkip(PG_URL, ctx);
    if (client === null) return;
    const schema = `rl_cli_missing_${process.pid}_${Date.now()}`;
    try {
      const result = await cli(['runs', 'list', '--pg', PG_URL, '--pg-schema', schema], dir);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('there is no runledger store in PostgreSQL');
      expect(result.stderr).toContain(`(schema ${schema})`);
      const found = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
      expect(found.rowCount).toBe(0);
    } finally {
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    }
  });
});

describe('migrate says what it did', () => {
  it('SQLite: created at version N, then already at N', async () => {
    const file = join(dir, 'migrate.db');
    const created = await cli(['migrate', '--db', file], dir);
    expect(created.code).toBe(0);
    expect(created.stdout).toBe(`SQLite ${file}: created at schema version ${SqliteRunStore.SCHEMA_VERSION}\n`);
    const again = await cli(['migrate', '--db', file], dir);
    expect(again.stdout).toBe(`SQLite ${file}: already at schema version ${SqliteRunStore.SCHEMA_VERSION}; nothing to do\n`);
  });

  it('PostgreSQL: upgraded from N to M for a schema one version behind', async (ctx) => {
    const client = await pgClientOrSkip(PG_URL, ctx);
    if (client === null) return;
    const schema = `rl_cli_upgrade_${process.pid}_${Date.now()}`;
    // The store's own migrations, read from its source (not part of its published surface).
    const source = pathToFileURL(
      fileURLToPath(new URL('../../../packages/store-postgres/src/schema/PostgresMigrations.ts', import.meta.url)),
    ).href;
    const { POSTGRES_MIGRATIONS } = (await import(source)) as {
      POSTGRES_MIGRATIONS: readonly { version: number; name: string; up(client: unknown): Promise<void> }[];
    };
    const latest = POSTGRES_MIGRATIONS[POSTGRES_MIGRATIONS.length - 1]!.version;
    const older = latest - 1;
    try {
      // a store as an older runledger left it: every migration but the last
      await client.query('BEGIN');
      await client.query(`CREATE SCHEMA "${schema}"`);
      await client.query(`SET LOCAL search_path TO "${schema}"`);
      await client.query('CREATE TABLE schema_version (version integer PRIMARY KEY, name text NOT NULL, applied_at bigint NOT NULL)');
      for (const migration of POSTGRES_MIGRATIONS.filter((m) => m.version <= older)) {
        await migration.up(client);
        await client.query('INSERT INTO schema_version (version, name, applied_at) VALUES ($1, $2, $3)', [
          migration.version,
          migration.name,
          Date.now(),
        ]);
      }
      await client.query('COMMIT');
      const upgraded = await cli(['migrate', '--pg', PG_URL, '--pg-schema', schema], dir);
      expect(upgraded.stderr).toBe('');
      expect(upgraded.stdout).toMatch(
        new RegExp(`^PostgreSQL .*\\(schema ${schema}\\): upgraded from schema version ${older} to ${latest}\\n$`),
      );
      const again = await cli(['migrate', '--pg', PG_URL, '--pg-schema', schema], dir);
      expect(again.stdout).toContain(`already at schema version ${latest}; nothing to do`);
    } finally {
      await client.query('ROLLBACK').catch(() => undefined);
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    }
  });
});

describe('demo and serve on the real binary', () => {
  it('demo checks that its port is free before recording anything', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const file = join(dir, 'demo-busy-port.db');
      const result = await runBin(['demo', '--db', file, '--port', String(port)], dir);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`port ${port} on 127.0.0.1 is already in use; nothing was recorded`);
      expect(result.stdout).not.toContain('recording into');
      expect(existsSync(file)).toBe(false);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it('Ctrl+C ends serve with a one-line goodbye and exit status 0', async () => {
    const result = await interrupt(['serve', '--db', db, '--port', '0'], dir, /press Ctrl\+C to stop\n/);
    expect(result.stderr).toBe('');
    expect(result.signal).toBeNull();
    expect(result.code).toBe(0);
    expect(result.stdout.trimEnd().split('\n').at(-1)).toBe('runledger: stopped serving (Ctrl+C); goodbye');
    expect(result.stdout.match(/goodbye/g)).toHaveLength(1);
  });

  it('SIGTERM ends serve with a goodbye that names it, exit status 0, and the port closed', async () => {
    const result = await interrupt(['serve', '--db', db, '--port', '0'], dir, /press Ctrl\+C to stop\n/, 'SIGTERM');
    expect(result.stderr).toBe('');
    expect(result.signal).toBeNull();
    expect(result.code).toBe(0);
    expect(result.stdout.trimEnd().split('\n').at(-1)).toBe('runledger: stopped serving (SIGTERM); goodbye');
    const url = /serving .* at (http:\/\/\S+)\n/.exec(result.stdout)?.[1];
    expect(url).toBeDefined();
    await expect(fetch(url!)).rejects.toThrow();
  });

  it('serve stops when the process that started it dies without passing a signal on (npx killed with SIGTERM)', async () => {
    // npm exec runs the bin under `sh -c`; a SIGTERM to npx ends npm and the shell, never the bin.
    // Here the shell is SIGKILLed: the binary, orphaned, must notice and stop, not serve on unseen.
    const shell = spawn('sh', ['-c', `"${process.execPath}" "${BIN}" serve --db "${db}" --port 0 & wait`], {
      cwd: dir,
      env: BIN_ENV,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    shell.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const closed = new Promise<void>((resolve) => shell.stdout.on('end', resolve)); // the orphan holds the pipe until it exits
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`serve never listened; stdout:\n${stdout}\nstderr:\n${stderr}`)), 60_000);
      shell.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        if (/press Ctrl\+C to stop\n/.test(stdout)) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    const url = /serving .* at (http:\/\/\S+)\n/.exec(stdout)![1]!;
    shell.kill('SIGKILL');
    const ended = await Promise.race([closed.then(() => true), new Promise<false>((resolve) => setTimeout(() => resolve(false), 15_000))]);
    expect(ended, `the orphaned server still runs; stdout:\n${stdout}`).toBe(true);
    expect(stderr).toBe('');
    expect(stdout.trimEnd().split('\n').at(-1)).toBe('runledger: stopped serving (the process that started it exited); goodbye');
    await expect(fetch(url)).rejects.toThrow();
  }, 90_000);

  it('Ctrl+C ends demo while it serves with a one-line goodbye and exit status 0', async () => {
    const result = await interrupt(['demo', '--db', join(dir, 'demo-sigint.db'), '--port', '0'], dir, /press Ctrl\+C to stop\n/);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('runledger app serving SQLite');
    expect(result.stdout.trimEnd().split('\n').at(-1)).toBe('runledger: stopped serving (Ctrl+C); goodbye');
  }, 90_000);

  it('Ctrl+C ends demo while it records with a one-line goodbye and exit status 0', async () => {
    const file = join(dir, 'demo-sigint-early.db');
    const result = await interrupt(['demo', '--db', file, '--port', '0'], dir, /\[1\/\d+\]/);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain('runledger app serving');
    expect(result.stdout.trimEnd().split('\n').at(-1)).toBe(
      `runledger demo: stopped (Ctrl+C) before all runs were recorded; the runs recorded so far are in ${file}; goodbye`,
    );
  }, 90_000);
});
