import type { RunStore } from '@runledger/trace';
import { loadPostgresStore } from './loadPostgresStore.js';
import { maskedPostgresUrl } from './maskedPostgresUrl.js';
import type { StoreTarget } from './commandArgs.js';
import { checkStoreTarget, unresolvedPostgresHost } from './storeTargetChecks.js';

/** Runs a step against PostgreSQL, a host name that does not resolve made the setup error it is. */
async function reachingPostgres<T>(target: StoreTarget & { readonly kind: 'postgres' }, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    throw unresolvedPostgresHost(error, target) ?? error;
  }
}

/**
 * Opens the store a command names (migrations are applied on open; a missing store is created).
 *
 * @throws CliSetupError from `openStore` for a folder as the SQLite file or a PostgreSQL host that does not resolve.
 * @internal
 */
export async function openStore(target: StoreTarget): Promise<RunStore> {
  checkStoreTarget(target);
  // Loaded on demand: `runledger help` or a bad command line should not load pg or SQLite.
  if (target.kind === 'postgres') {
    const { PostgresRunStore } = await loadPostgresStore();
    return reachingPostgres(target, () =>
      PostgresRunStore.connect(
        target.schema === undefined ? { connectionString: target.url } : { connectionString: target.url, schema: target.schema },
      ),
    );
  }
  const { SqliteRunStore } = await import('@runledger/store-sqlite');
  return SqliteRunStore.open({ path: target.path });
}

/**
 * A store that is not there, for a command that only reads one and must not create it.
 *
 * @internal
 */
export class MissingStoreError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MissingStoreError';
  }
}

/**
 * The schema version of the store a command names, read without creating or changing anything:
 * null when there is no store (no SQLite file, no runledger schema in PostgreSQL).
 *
 * @internal
 */
export async function storeSchemaVersion(target: StoreTarget): Promise<number | null> {
  checkStoreTarget(target);
  if (target.kind === 'postgres') {
    const { PostgresRunStore } = await loadPostgresStore();
    return reachingPostgres(target, () =>
      PostgresRunStore.schemaVersionOf(
        target.schema === undefined ? { connectionString: target.url } : { connectionString: target.url, schema: target.schema },
      ),
    );
  }
  const { SqliteRunStore } = await import('@runledger/store-sqlite');
  return SqliteRunStore.schemaVersionOf(target.path);
}

/** The schema version this runledger writes, for the store a command names. @internal */
export async function currentSchemaVersion(target: StoreTarget): Promise<number> {
  if (target.kind === 'postgres') return (await loadPostgresStore()).PostgresRunStore.SCHEMA_VERSION;
  return (await import('@runledger/store-sqlite')).SqliteRunStore.SCHEMA_VERSION;
}

/**
 * Opens a store that must exist already, for the commands that read (`runs`, `servers`,
 * `serve`): a missing SQLite file or PostgreSQL schema is a {@link MissingStoreError} naming
 * it, and nothing is created.
 *
 * @internal
 */
export async function openExistingStore(target: StoreTarget): Promise<RunStore> {
  const version = await storeSchemaVersion(target);
  if (version === null || version === 0) {
    const how = target.kind === 'sqlite' ? `runledger migrate --db ${target.path}` : 'runledger migrate --pg <url>';
    throw new MissingStoreError(
      target.kind === 'sqlite'
        ? version === null
          ? `there is no SQLite store at ${target.path} (the file does not exist; nothing was created). Create one with \`${how}\` or \`runledger demo --db ${target.path}\`, or name another with --db`
          : `${target.path} is not a runledger store (it has no runledger tables; nothing was changed)`
        : `there is no runledger store in ${describeStore(target)} (nothing was created). Create one with \`${how}\``,
    );
  }
  return openStore(target);
}

/** The store in words, without a password. @internal */
export function describeStore(target: StoreTarget): string {
  if (target.kind === 'sqlite') return `SQLite ${target.path}`;
  return `PostgreSQL ${maskedPostgresUrl(target.url)}${target.schema === undefined ? '' : ` (schema ${target.schema})`}`;
}
