import type Database from 'better-sqlite3';
import { SqliteHealthPending } from '../health/SqliteHealthPending.js';
import { SqliteHealthWriter } from '../health/SqliteHealthWriter.js';
import { SqliteToolRollup, TOOL_ROLLUP_TABLES, type ToolCallRow } from '../toolRollup/SqliteToolRollup.js';
import { CALL_TOOL_NAME, ROWID_PARTS, STEP_ROWID } from '../sqliteRows.js';
import { REBUILD_BATCH } from './rebuildHealthRollup.js';

/**
 * Schema version 22: the per-server-and-tool rollup (SqliteToolRollup), filled from the steps.
 *
 * @remarks
 * The calls pending for the health rollup are moved into it first (they name no tool, and would
 * otherwise count in the new rollup twice: from the steps here, and when moved); `health_pending`
 * gets the tool name of the calls noted from now on. Then every ended call already stored is
 * added, in bounded batches ({@link REBUILD_BATCH} steps, keyset by rowid), as version 9's
 * rebuild does: memory stays flat on any table. Runs inside the migration's transaction.
 *
 * @internal
 */
export function addToolRollup(db: Database.Database): void {
  // Written to run again over its own result, like version 15: the tool rollup is made anew
  const columns = new Set(db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('health_pending') as string[]);
  if (!columns.has('tool')) db.exec('ALTER TABLE health_pending ADD COLUMN tool TEXT');
  // without a tool rollup to write, a roll moves the pending calls into the health rollup alone
  new SqliteHealthPending(db, new SqliteHealthWriter(db)).roll();
  db.exec(`DROP TABLE IF EXISTS tool_rollup; DROP TABLE IF EXISTS tool_causes; ${TOOL_ROLLUP_TABLES}`);
  const rollup = new SqliteToolRollup(db);
  const batch = db
    .prepare(
      `SELECT ${ROWID_PARTS}, call_server, call_outcome, duration_ms, created_at, call_cause, ${CALL_TOOL_NAME} FROM steps
       WHERE call_server IS NOT NULL AND id > ${STEP_ROWID} ORDER BY id LIMIT ${REBUILD_BATCH}`,
    )
    .raw();
  for (let after: [number, number] = [0, -1]; ;) {
    const rows = batch.all(...after) as [number, number, ...ToolCallRow][];
    rollup.add(rows.map(([, , ...call]) => call));
    const last = rows[rows.length - 1];
    if (last === undefined || rows.length < REBUILD_BATCH) break;
    after = [last[0], last[1]];
  }
}
