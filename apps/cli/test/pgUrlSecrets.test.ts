// Issue 38 item 5: a PostgreSQL URL's secrets never reach the terminal. The password of
// `user:pass@` was masked; one given as a query parameter (`?password=`, `?sslpassword=`, both read
// by the pg driver as libpq does) was printed in clear by `serve`'s banner and by every message
// that names the store.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maskedPostgresUrl } from '../src/commandKit/maskedPostgresUrl.js';
import { cli, pgClientOrSkip } from './cliHelpers.js';

const PG_URL = process.env['RUNLEDGER_PG_URL'] || 'postgres://postgres@127.0.0.1:5432/test';

/** A URL carrying three secrets, each marked so that any trace of it in the output is found. */
function withSecrets(base: string, secret = 'Zq9secret'): string {
  const url = new URL(base);
  url.password = `${secret}-user`;
  url.searchParams.set('password', `${secret}-query`);
  url.searchParams.set('sslpassword', `${secret}-ssl`);
  url.searchParams.set('application_name', 'kept');
  return url.toString();
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'runledger-pg-secrets-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('maskedPostgresUrl', () => {
  it('masks the user password and every secret query parameter, whatever the secret, and keeps the rest', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 12 }), fc.constantFrom('password', 'sslpassword', 'PassWord'), (secret, name) => {
        const marked = `Zq9${secret}`;
        const url = new URL('postgres://me@db.example:5432/runs?sslmode=require');
        url.password = marked;
        url.searchParams.set(name, marked);
        const masked = maskedPostgresUrl(url.toString());
        for (const form of [marked, encodeURIComponent(marked), new URLSearchParams({ s: marked }).toString().slice(2)]) {
          expect(masked).not.toContain(form);
        }
        expect(masked.startsWith('postgres://me:***@db.example:5432/runs?')).toBe(true);
        expect(new URL(masked).searchParams.get(name)).toBe('***');
        expect(new URL(masked).searchParams.get('sslmode')).toBe('require');
      }),
    );
  });

  it('a URL that does not parse is named by its scheme alone', () => {
    expect(maskedPostgresUrl('postgres://me:pw@[::1/x?password=pw')).toBe('postgres://…');
  });
});

describe('the CLI never prints a secret of the URL', () => {
  it('the refusal of a URL given as --db or a --pg of another database', async () => {
    const asDb = await cli(['runs', 'list', '--db', withSecrets('postgres://me@db.example:5432/runs')], dir);
    const otherDb = await cli(['runs', 'list', '--pg', withSecrets('mysql://me@db.example:3306/runs')], dir);
    for (const result of [asDb, otherDb]) {
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('password=***');
      expect(result.stderr).not.toContain('Zq9');
    }
  });

  it('an unreachable PostgreSQL: the error names no secret', async () => {
    const result = await cli(['runs', 'list', '--pg', withSecrets('postgres://me@127.0.0.1:1/runs')], dir);
    expect(result.code).not.toBe(0);
    expect(result.stderr).not.toBe('');
    expect(result.stderr).not.toContain('Zq9');
  });

  it('the real PostgreSQL: migrate, a missing store, a missing run and serve’s banner name the store without its secrets', async (ctx) => {
    const client = await pgClientOrSkip(PG_URL, ctx);
    if (client === null) return;
    const schema = `rl_cli_secrets_${process.pid}_${Date.now()}`;
    const url = withSecrets(PG_URL);
    try {
      const missing = await cli(['runs', 'list', '--pg', url, '--pg-schema', schema], dir);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain('there is no runledger store in PostgreSQL');
      const migrated = await cli(['migrate', '--pg', url, '--pg-schema', schema], dir);
      expect(migrated.code).toBe(0);
      const noRun = await cli(['runs', 'show', 'ffffffff', '--pg', url, '--pg-schema', schema], dir);
      expect(noRun.code).toBe(1);
      const controller = new AbortController();
      const served = await cli(['serve', '--port', '0', '--pg', url, '--pg-schema', schema], dir, {
        signal: controller.signal,
        onListening: () => controller.abort(),
      });
      expect(served.code).toBe(0);
      expect(served.stdout).toContain('runledger app serving PostgreSQL postgres://');
      for (const result of [missing, migrated, noRun, served]) {
        const output = result.stdout + result.stderr;
        expect(output).toContain('password=***');
        expect(output).toContain('sslpassword=***');
        expect(output).toContain('application_name=kept');
        expect(output).not.toContain('Zq9');
      }
    } finally {
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    }
  });
});
