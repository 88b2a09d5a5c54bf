import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { RunStoreError } from '@runledger/trace';

/**
 * Reads the schema version of a SQLite file, opened read-only, without creating or changing
 * anything: null when there is no file, 0 for a file without runledger's tables.
 *
 * @internal
 */
export function readSchemaVersion(path: string): number | null {
  if (!existsSync(path)) return null;
  let db: Database.Database;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw RunStoreError.storageFailure(
      `cannot open the SQLite file ${path}: ${error instanceof Error ? error.message : String(error)}`,
      error,
    );
  }
  try {
    const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'").get();
    if (table === undefined) return 0;
    return (db.prepare('SELECT max(version) FROM schema_version').pluck().get() as number | null) ?? 0;
  } catch (error) {
    throw RunStoreError.storageFailure(
      `cannot read the schema version of the SQLite file ${path}: ${error instanceof Error ? error.message : String(error)}`,
      error,
    );
  } finally {
    db.close();
  }
}
