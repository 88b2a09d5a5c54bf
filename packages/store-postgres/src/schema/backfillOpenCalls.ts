import type { PoolClient } from 'pg';
import { foldOpenCalls, type HeldCall, insertOpenCalls } from '../PostgresOpenCalls.js';
import type { OpenCallSet } from '@runledger/trace';

const BATCH = 5_000;

/**
 * Fills `open_calls` (schema version 9) from the steps already stored: every run's call steps
 * folded in sequence order as appends keep the table (trace's OpenCallSet), one run in memory at
 * a time.
 *
 * @remarks
 * Runs inside the migration transaction, in keyset-ordered batches of the steps that name a call.
 * An unreadable payload starts and ends nothing.
 *
 * @internal
 */
export async function backfillOpenCalls(client: PoolClient): Promise<number> {
  let written = 0;
  let runId: string | null = null;
  let calls: OpenCallSet<HeldCall> | undefined;
  let after: { runId: string; sequence: number } | null = null;
  for (;;) {
    const batch: { rows: { run_id: string; sequence: number; kind: string; payload: string }[] } = await client.query(
      `SELECT run_id, sequence, kind, payload FROM steps
       WHERE kind IN ('tool_start', 'tool') AND strpos(payload, '"toolCallId"') > 0
         ${after === null ? '' : 'AND (run_id, sequence) > ($1::uuid, $2::integer)'}
       ORDER BY run_id, sequence LIMIT ${BATCH}`,
      after === null ? [] : [after.runId, after.sequence],
    );
    for (const row of batch.rows) {
      if (row.run_id !== runId) {
        if (runId !== null && calls !== undefined) written += await insertOpenCalls(client, 'open_calls', runId, calls);
        runId = row.run_id;
        calls = undefined;
      }
      calls = foldOpenCalls([row], calls);
    }
    const last = batch.rows[batch.rows.length - 1];
    if (last === undefined || batch.rows.length < BATCH) break;
    after = { runId: last.run_id, sequence: last.sequence };
  }
  if (runId !== null && calls !== undefined) written += await insertOpenCalls(client, 'open_calls', runId, calls);
  return written;
}
