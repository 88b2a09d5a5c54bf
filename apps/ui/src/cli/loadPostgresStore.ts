import { CliSetupError } from './CliSetupError.js';

/** The optional peer dependency that `--pg` and `copy` need. */
export const POSTGRES_STORE_PACKAGE = '@runledger/store-postgres';

/**
 * Loads `@runledger/store-postgres` on demand: an optional peer dependency of `@runledger/cli`,
 * needed only for a PostgreSQL store (`--pg`, `RUNLEDGER_PG_URL`, `copy`). A SQLite user never
 * installs it (nor `pg`).
 *
 * @throws CliSetupError from `loadPostgresStore` when the package is not installed, naming it and how to install it.
 * @internal
 */
export async function loadPostgresStore(): Promise<typeof import('@runledger/store-postgres')> {
  try {
    return await import('@runledger/store-postgres');
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    if ((code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && message.includes(`'${POSTGRES_STORE_PACKAGE}'`)) {
      throw new CliSetupError(
        `a PostgreSQL store needs the optional package ${POSTGRES_STORE_PACKAGE}, which is not installed; install it next to @runledger/cli (npm i -D ${POSTGRES_STORE_PACKAGE}) or use a SQLite file with --db`,
      );
    }
    throw error;
  }
}
