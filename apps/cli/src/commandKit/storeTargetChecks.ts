import { statSync } from 'node:fs';
import { join } from 'node:path';
import { CliSetupError } from './CliSetupError.js';
import { maskedPostgresUrl } from './maskedPostgresUrl.js';
import type { StoreTarget } from './commandArgs.js';

/** A value that starts like a URL (`mysql://`, `postgres://`): a scheme and `://`. */
const URL_LIKE = /^([a-z][a-z0-9+.-]*):\/\//i;

/** The URL schemes PostgreSQL connection strings use. */
const POSTGRES_SCHEMES = ['postgres', 'postgresql'];

/**
 * Refuses a URL given as `--db`, which takes a SQLite file: for a PostgreSQL URL it says to give
 * it as `--pg`.
 *
 * @throws CliSetupError from `checkDbFlag` naming the command, what was given and what to type instead.
 * @internal
 */
export function checkDbFlag(db: string, command: string): void {
  const scheme = URL_LIKE.exec(db)?.[1]?.toLowerCase();
  if (scheme === undefined) return;
  const given = JSON.stringify(maskedPostgresUrl(db));
  throw new CliSetupError(
    POSTGRES_SCHEMES.includes(scheme)
      ? `runledger ${command}: --db takes the path of a SQLite file, not a URL (got ${given}); for a PostgreSQL store give the URL as --pg ${maskedPostgresUrl(db)} (or set RUNLEDGER_PG_URL)`
      : `runledger ${command}: --db takes the path of a SQLite file, not a URL (got ${given}); runledger keeps runs in a SQLite file (--db <file>) or in PostgreSQL (--pg postgres://user@host:5432/db)`,
  );
}

/**
 * Refuses a `--pg` (or RUNLEDGER_PG_URL) URL of another database (`mysql://`, `http://`);
 * a connection string without a scheme is left to the PostgreSQL client.
 *
 * @throws CliSetupError from `checkPgUrl` naming the command, where the URL came from and what runledger takes.
 * @internal
 */
export function checkPgUrl(url: string, command: string, from: '--pg' | 'RUNLEDGER_PG_URL'): void {
  const scheme = URL_LIKE.exec(url)?.[1]?.toLowerCase();
  if (scheme === undefined || POSTGRES_SCHEMES.includes(scheme)) return;
  throw new CliSetupError(
    `runledger ${command}: ${from} must be a PostgreSQL URL such as postgres://user@host:5432/db, got ${JSON.stringify(maskedPostgresUrl(url))}; runledger keeps runs in PostgreSQL or in a SQLite file (--db <file>), not in ${scheme}`,
  );
}

/**
 * Refuses a SQLite store path that is a folder, before SQLite answers it with a bare "disk I/O error".
 *
 * @throws CliSetupError from `checkStoreTarget` naming the folder and a file in it to give instead.
 * @internal
 */
export function checkStoreTarget(target: StoreTarget): void {
  if (target.kind !== 'sqlite') return;
  if (statSync(target.path, { throwIfNoEntry: false })?.isDirectory() !== true) return;
  throw new CliSetupError(
    `--db ${target.path} is a folder, not a SQLite file; name a file (new or existing) instead, e.g. --db ${join(target.path, 'runledger.db')}`,
  );
}

/** The first `code` of an error or of its causes. */
function errorCode(error: unknown): string | undefined {
  for (let at: unknown = error, depth = 0; at instanceof Error && depth < 5; at = at.cause, depth++) {
    const code = (at as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
  }
  return undefined;
}

/**
 * The setup error a failure to reach PostgreSQL amounts to, when its host name does not resolve
 * (`ENOTFOUND`: a mistyped host, not an outage), else null.
 *
 * @internal
 */
export function unresolvedPostgresHost(error: unknown, target: StoreTarget & { readonly kind: 'postgres' }): CliSetupError | null {
  if (errorCode(error) !== 'ENOTFOUND') return null;
  let host = '';
  try {
    host = new URL(target.url).hostname;
  } catch {
    // a connection string that is not a URL: named by the error itself
  }
  return new CliSetupError(
    `cannot find the PostgreSQL host${host === '' ? '' : ` ${JSON.stringify(host)}`}: the name does not resolve (ENOTFOUND); check the host in the URL (--pg or RUNLEDGER_PG_URL), or use a SQLite file with --db <file>`,
  );
}
