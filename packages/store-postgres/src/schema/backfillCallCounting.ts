import { isToolOutcome, type ToolOutcome } from '@runledger/core';
import { toolCallOf } from '@runledger/trace/store';
import type { PoolClient } from 'pg';

const BATCH = 5_000;

/**
 * Fills `call_cause`, `call_answered` and `call_counted` of every counted tool step (schema
 * version 4) by {@link toolCallOf}, exactly as appends fill them: the cause from the payload's
 * `toolFailureCause` when it has one, answered and counted by trace's rules.
 *
 * @remarks
 * Runs inside the migration transaction, in keyset-ordered batches so memory stays flat; the
 * payload is read only for failed calls.
 *
 * @internal
 */
export async function backfillCallCounting(client: PoolClient): Promise<number> {
  let updated = 0;
  let after: { runId: string; sequence: number } | null = null;
  for (;;) {
    const select = `SELECT run_id, sequence, call_server, call_outcome, CASE WHEN call_outcome = 'failed' THEN payload END AS payload
      FROM steps WHERE call_outcome IS NOT NULL`;
    const batch: {
      rows: { run_id: string; sequence: number; call_server: string | null; call_outcome: string; payload: string | null }[];
    } = await client.query(
      after === null
        ? `${select} ORDER BY run_id, sequence LIMIT ${BATCH}`
        : `${select} AND (run_id, sequence) > ($1::uuid, $2::integer) ORDER BY run_id, sequence LIMIT ${BATCH}`,
      after === null ? [] : [after.runId, after.sequence],
    );
    if (batch.rows.length === 0) return updated;
    const runIds: string[] = [];
    const sequences: number[] = [];
    const causes: (string | null)[] = [];
    const answered: boolean[] = [];
    const counted: boolean[] = [];
    for (const row of batch.rows) {
      if (!isToolOutcome(row.call_outcome)) continue;
      const call = toolCallOf({
        kind: 'tool',
        payload: row.payload,
        toolServer: row.call_server,
        toolOutcome: row.call_outcome as ToolOutcome,
      });
      if (call === null) continue;
      runIds.push(row.run_id);
      sequences.push(row.sequence);
      causes.push(call.cause);
      answered.push(call.answered);
      counted.push(call.counted);
    }
    if (runIds.length > 0) {
      await client.query(
        `UPDATE steps s SET call_cause = u.cause, call_answered = u.answered, call_counted = u.counted
         FROM unnest($1::uuid[], $2::integer[], $3::text[], $4::boolean[], $5::boolean[]) AS u(run_id, sequence, cause, answered, counted)
         WHERE s.run_id = u.run_id AND s.sequence = u.sequence`,
        [runIds, sequences, causes, answered, counted],
      );
      updated += runIds.length;
    }
    const last = batch.rows[batch.rows.length - 1]!;
    after = { runId: last.run_id, sequence: last.sequence };
  }
}
