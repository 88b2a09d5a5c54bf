import { toolCallOf } from '@runledger/trace/store';
import type { PoolClient } from 'pg';

const BATCH = 5_000;

/**
 * Fills `call_server` and `call_outcome` of tool steps written before those columns existed,
 * from their payload text, exactly as the timeline and server health read such rows
 * (`tool_server` / `tool_outcome`, what the recorder gave, stay null as they were).
 *
 * @remarks
 * Runs inside the migration transaction, in keyset-ordered batches so memory stays flat. A
 * payload that cannot be read leaves both columns null: the step stays readable (as unreadable)
 * and simply does not count in server health.
 *
 * @internal
 */
export async function backfillLegacySteps(client: PoolClient): Promise<number> {
  let updated = 0;
  let after: { runId: string; sequence: number } | null = null;
  for (;;) {
    const batch: { rows: { run_id: string; sequence: number; payload: string }[] } = await client.query(
      after === null
        ? `SELECT run_id, sequence, payload FROM steps WHERE kind = 'tool' ORDER BY run_id, sequence LIMIT ${BATCH}`
        : `SELECT run_id, sequence, payload FROM steps WHERE kind = 'tool' AND (run_id, sequence) > ($1::uuid, $2::integer)
           ORDER BY run_id, sequence LIMIT ${BATCH}`,
      after === null ? [] : [after.runId, after.sequence],
    );
    if (batch.rows.length === 0) return updated;
    const runIds: string[] = [];
    const sequences: number[] = [];
    const servers: (string | null)[] = [];
    const outcomes: (string | null)[] = [];
    for (const row of batch.rows) {
      const call = toolCallOf({ kind: 'tool', payload: row.payload, toolServer: null, toolOutcome: null });
      if (call === null) continue;
      runIds.push(row.run_id);
      sequences.push(row.sequence);
      servers.push(call.server);
      outcomes.push(call.outcome);
    }
    if (runIds.length > 0) {
      await client.query(
        `UPDATE steps s SET call_server = u.server, call_outcome = u.outcome
         FROM unnest($1::uuid[], $2::integer[], $3::text[], $4::text[]) AS u(run_id, sequence, server, outcome)
         WHERE s.run_id = u.run_id AND s.sequence = u.sequence`,
        [runIds, sequences, servers, outcomes],
      );
      updated += runIds.length;
    }
    const last = batch.rows[batch.rows.length - 1]!;
    after = { runId: last.run_id, sequence: last.sequence };
  }
}
