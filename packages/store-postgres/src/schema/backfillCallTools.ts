import type { PoolClient } from 'pg';
import { toolNameOfPayload } from '../payloadFields.js';

const BATCH = 5_000;

/**
 * Fills `steps.call_tool` (schema version 12) of every ended tool call already stored: the
 * payload's `toolName` when it is a string, as appends and imports fill it (null otherwise, and
 * for an unreadable payload).
 *
 * @remarks
 * Runs inside the migration transaction, in keyset-ordered batches of the call steps whose
 * payload names a tool, so memory stays flat. Returns the steps it set.
 *
 * @internal
 */
export async function backfillCallTools(client: PoolClient): Promise<number> {
  let updated = 0;
  let after: { runId: string; sequence: number } | null = null;
  for (;;) {
    const batch: { rows: { run_id: string; sequence: number; payload: string }[] } = await client.query(
      `SELECT run_id, sequence, payload FROM steps
       WHERE call_outcome IS NOT NULL AND strpos(payload, '"toolName"') > 0
         ${after === null ? '' : 'AND (run_id, sequence) > ($1::uuid, $2::integer)'}
       ORDER BY run_id, sequence LIMIT ${BATCH}`,
      after === null ? [] : [after.runId, after.sequence],
    );
    const runIds: string[] = [];
    const sequences: number[] = [];
    const tools: string[] = [];
    for (const row of batch.rows) {
      const tool = toolNameOfPayload(row.payload);
      if (tool === null) continue;
      runIds.push(row.run_id);
      sequences.push(row.sequence);
      tools.push(tool);
    }
    if (runIds.length > 0) {
      await client.query(
        `UPDATE steps s SET call_tool = u.tool
         FROM unnest($1::uuid[], $2::integer[], $3::text[]) AS u(run_id, sequence, tool)
         WHERE s.run_id = u.run_id AND s.sequence = u.sequence`,
        [runIds, sequences, tools],
      );
      updated += runIds.length;
    }
    const last = batch.rows[batch.rows.length - 1];
    if (last === undefined || batch.rows.length < BATCH) return updated;
    after = { runId: last.run_id, sequence: last.sequence };
  }
}
