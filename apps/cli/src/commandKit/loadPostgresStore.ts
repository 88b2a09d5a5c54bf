import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type * as StorePostgres from '@runledger/store-postgres';
import { CliSetupError } from './CliSetupError.js';
import { releaseLine } from './releaseLine.js';

/** The optional peer dependency that `--pg` and `copy` need. */
export const POSTGRES_STORE_PACKAGE = '@runledger/store-postgres';

/**
 * The version of `@runledger/store-postgres` this CLI was built against, put in by tsup's `define`
 * (apps/cli/tsup.config.ts, from packages/store-postgres/package.json); not defined when the CLI
 * runs from its sources (tests), where the workspace's own package is always the one built with.
 */
declare const __RUNLEDGER_STORE_POSTGRES_BUILT_WITH__: string | undefined;

/** The built-with version, or null when running from sources. */
function builtWith(): string | null {
  return typeof __RUNLEDGER_STORE_POSTGRES_BUILT_WITH__ === 'string' ? __RUNLEDGER_STORE_POSTGRES_BUILT_WITH__ : null;
}

const notInstalled = (): CliSetupError =>
  new CliSetupError(
    `a PostgreSQL store needs the optional package ${POSTGRES_STORE_PACKAGE}, which is not installed; install it next to @runledger/cli (npm i -D ${POSTGRES_STORE_PACKAGE}) or use a SQLite file with --db`,
  );

/**
 * Fails when the installed `@runledger/store-postgres` is of another release line (0.x: major.minor;
 * from 1.0: major) than the one the CLI was built against: the peer range is `>=0.1.0 <1.0.0`, and
 * by the 0.x rule a minor of store-postgres may break the CLI.
 *
 * @throws CliSetupError from `assertStorePostgresLine` on a mismatch, naming both versions and the npm command that installs the matching line.
 * @internal
 */
export function assertStorePostgresLine(installed: string, built: string): void {
  const want = releaseLine(built);
  const have = releaseLine(installed);
  if (want === have) return;
  throw new CliSetupError(
    `@runledger/cli was built against ${POSTGRES_STORE_PACKAGE} ${built} (release line ${want}), but ${installed} (release line ${have}) is installed, which may not work with it; install the matching line next to @runledger/cli (npm i -D ${POSTGRES_STORE_PACKAGE}@${want}) or upgrade @runledger/cli to a release built against ${installed}`,
  );
}

/** The version of the installed `@runledger/store-postgres`, or null when it is not installed. */
function installedVersion(): string | null {
  let manifest: string;
  try {
    manifest = createRequire(import.meta.url).resolve(`${POSTGRES_STORE_PACKAGE}/package.json`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND') return null;
    throw error;
  }
  const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version?: unknown };
  if (typeof version !== 'string') throw new CliSetupError(`${manifest}: "version" must be a string, got ${JSON.stringify(version)}`);
  return version;
}

/**
 * Loads `@runledger/store-postgres` on demand: an optional peer dependency of `@runledger/cli`,
 * needed only for a PostgreSQL store (`--pg`, `RUNLEDGER_PG_URL`, `copy`). A SQLite user never
 * installs it (nor `pg`). Before loading it, the built CLI checks that the installed version is
 * of the release line it was built against ({@link assertStorePostgresLine}).
 *
 * @throws CliSetupError from `loadPostgresStore` when the package is not installed, naming it and how to install it, or is of another release line.
 * @internal
 */
export async function loadPostgresStore(): Promise<typeof StorePostgres> {
  const built = builtWith();
  if (built !== null) {
    const installed = installedVersion();
    if (installed === null) throw notInstalled();
    assertStorePostgresLine(installed, built);
  }
  try {
    return await import('@runledger/store-postgres');
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    if ((code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && message.includes(`'${POSTGRES_STORE_PACKAGE}'`))
      throw notInstalled();
    throw error;
  }
}
