import type Database from 'better-sqlite3';
import { callIdOfStoredStep, OpenCallSet } from '@runledger/trace';
import { ROWID_PARTS, STEP_ROWID } from '../sqliteRows.js';
import { REBUILD_BATCH } from './rebuildHealthRollup.js';

/**
 * The data pass of version 13: every run's call steps folded in sequence order, as trace's
 * OpenCallSet does, into `open_calls` (not those of runs a prune already hid). Runs inside the
 * migration's transaction.
 *
 * @internal
 */
export function backfillOpenCalls(db: Database.Database): void {
  const insert = db.prepare('INSERT INTO open_calls (run_no, call_id, sequence, state) VALUES (?, ?, ?, ?)');
  const page = db
    .prepare(
      `SELECT ${ROWID_PARTS}, kind, payload FROM steps
       WHERE id > ${STEP_ROWID} AND kind IN ('tool_start', 'tool') AND instr(payload, '"toolCallId"') > 0
         AND (id >> 32) IN (SELECT run_no FROM runs) ORDER BY id LIMIT ${REBUILD_BATCH}`,
    )
    .raw();
  let runNo = -1;
  let calls = new OpenCallSet<number>();
  const flush = (): void => {
    for (const sequence of calls.values()) insert.run(runNo, callIds.get(sequence)!, sequence, 0);
    for (const callId of calls.endedFirst()) insert.run(runNo, callId, 0, 1);
  };
  let callIds = new Map<number, string>();
  for (let after: [number, number] = [0, -1]; ;) {
    const rows = page.all(...after) as [number, number, string, string][];
    for (const [run, sequence, kind, payload] of rows) {
      if (run !== runNo) {
        flush();
        runNo = run;
        calls = new OpenCallSet<number>();
        callIds = new Map();
      }
      const callId = callIdOfStoredStep({ kind, payload });
      if (callId === null) continue;
      if (kind === 'tool_start') {
        calls.start(callId, sequence, sequence);
        callIds.set(sequence, callId);
      } else {
        calls.end(callId);
      }
    }
    const last = rows[rows.length - 1];
    if (last === undefined || rows.length < REBUILD_BATCH) break;
    after = [last[0], last[1]];
  }
  flush();
}
