import type { RunStore } from '@runledger/trace';
import type { StoreTarget } from './parseCommand.js';

/**
 * Opens the store a command names (migrations are applied on open).
 *
 * @internal
 */
export async function openStore(target: StoreTarget): Promise<RunStore> {
  // Loaded on demand: `runledger help` or a bad command line should not load pg or SQLite.
  if (target.kind === 'postgres') {
    const { PostgresRunStore } = await import('@runledger/store-postgres');
    return PostgresRunStore.connect(target.schema === undefined ? { connectionString: target.url } : { connectionString: target.url, schema: target.schema });
  }
  const { SqliteRunStore } = await import('@runledger/store-sqlite');
  return SqliteRunStore.open({ path: target.path });
}

/** The store in words, without a password. @internal */
export function describeStore(target: StoreTarget): string {
  if (target.kind === 'sqlite') return `SQLite ${target.path}`;
  try {
    const url = new URL(target.url);
    if (url.password !== '') url.password = '***';
    return `PostgreSQL ${url.toString()}${target.schema === undefined ? '' : ` (schema ${target.schema})`}`;
  } catch {
    return 'PostgreSQL';
  }
}
