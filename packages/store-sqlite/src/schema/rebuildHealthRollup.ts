import type Database from 'better-sqlite3';
import type { ToolOutcome } from '@runledger/core';
import { SqliteHealthWriter } from '../health/SqliteHealthWriter.js';
import { RollupDeltas } from '../health/SqliteRollupDeltas.js';
import { ROWID_PARTS, STEP_ROWID } from '../sqliteRows.js';

/** Steps per batch of the data passes of versions 9 and 13 (keyset by rowid): memory stays bounded whatever the table holds. */
export const REBUILD_BATCH = 5_000;

/**
 * The data pass of version 9: the health rollup made again from the steps, the source of truth,
 * through the writer appends use, in bounded batches ({@link REBUILD_BATCH} steps, keyset by
 * rowid): memory stays flat on any table. Runs inside the migration's transaction.
 *
 * @internal
 */
export function rebuildHealthRollup(db: Database.Database): void {
  const writer = new SqliteHealthWriter(db);
  const batch = db
    .prepare(
      `SELECT ${ROWID_PARTS}, call_server, call_outcome, duration_ms, created_at, call_cause FROM steps
       WHERE call_server IS NOT NULL AND id > ${STEP_ROWID} ORDER BY id LIMIT ${REBUILD_BATCH}`,
    )
    .raw();
  for (let after: [number, number] = [0, -1]; ;) {
    const rows = batch.all(...after) as [number, number, string, ToolOutcome, number, number, string | null][];
    // the calls as a health read counts them: from the call columns and the stored cause
    const deltas = new RollupDeltas();
    for (const [, , server, outcome, durationMs, createdAt, cause] of rows) deltas.addRow([server, outcome, durationMs, createdAt, cause]);
    writer.add(deltas);
    const last = rows[rows.length - 1];
    if (last === undefined || rows.length < REBUILD_BATCH) break;
    after = [last[0], last[1]];
  }
}
