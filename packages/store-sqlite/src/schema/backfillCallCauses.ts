import type Database from 'better-sqlite3';
import type { ToolOutcome } from '@runledger/core';
import { toolCallOf } from '@runledger/trace/store';
import { ROWID_PARTS, STEP_ROWID } from '../sqliteRows.js';

/**
 * The data pass of version 8: each stored call's failure cause, read from its payload as a
 * health read counts it, into `steps.call_cause` (which version 9's rollup rebuild reads).
 * Runs inside the migration's transaction.
 *
 * @internal
 */
export function backfillCallCauses(db: Database.Database): void {
  const setCause = db.prepare(`UPDATE steps SET call_cause = ? WHERE id = ${STEP_ROWID}`);
  const rows = db
    .prepare(`SELECT ${ROWID_PARTS}, call_server, call_outcome, payload FROM steps WHERE call_server IS NOT NULL ORDER BY id`)
    .raw()
    .all() as [number, number, string, ToolOutcome, string][];
  for (const [runNo, sequence, server, outcome, payload] of rows) {
    const call = toolCallOf({ kind: 'tool', payload, toolServer: server, toolOutcome: outcome });
    if (call === null) continue;
    if (call.cause !== null) setCause.run(call.cause, runNo, sequence);
  }
}
