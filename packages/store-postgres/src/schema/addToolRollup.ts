import type { PoolClient } from 'pg';
import { TOOL_ROLLUP_TABLES, toolRollupWrites } from '../toolRollup/PostgresToolRollup.js';

/** Steps per batch of the backfill (keyset by run id and sequence): memory and statement size stay bounded. */
const BATCH = 5_000;

/**
 * Schema version 17: the per-server-and-tool rollup (PostgresToolRollup), filled from the steps.
 *
 * @remarks
 * `health_pending` gets the tool name of its calls (those pending now: from their steps); every
 * ended call already stored and not pending is added to the new rollup, in keyset-ordered batches
 * of {@link BATCH} steps, with the statement moves use (the pending ones are added when they are
 * moved). Written to run again over its own result (the rollup is made anew). Makes the SQL function `tool_rollup_add_runs(run_ids uuid[])` that adds whole runs' calls
 * with the same statement, for bulk loads. Runs inside the migration transaction, on the store's
 * schema (its search path).
 *
 * @internal
 */
export async function addToolRollup(client: PoolClient): Promise<void> {
  const q = (await client.query<{ q: string }>('SELECT quote_ident(current_schema()) AS q')).rows[0]!.q;
  await client.query(`ALTER TABLE health_pending ADD COLUMN IF NOT EXISTS tool text;
UPDATE health_pending p SET tool = s.call_tool FROM steps s WHERE s.run_id = p.run_id AND s.sequence = p.sequence;
DROP TABLE IF EXISTS tool_rollup, tool_causes;
${TOOL_ROLLUP_TABLES}`);
  // for bulk loads (as rollup_add_runs is the health rollup's): the ended calls of whole runs added, by the statement moves use
  await client.query(`CREATE OR REPLACE FUNCTION tool_rollup_add_runs(run_ids uuid[]) RETURNS void
  LANGUAGE sql VOLATILE
  AS $fn$
WITH run_calls AS (
  SELECT call_server AS server, call_tool AS tool, call_outcome AS outcome, duration_ms, created_at, call_cause AS cause, call_answered AS answered
  FROM ${q}.steps WHERE run_id = ANY (run_ids) AND call_server IS NOT NULL AND call_outcome IS NOT NULL
), ${toolRollupWrites(q, 'run_calls')}
SELECT count(*) FROM tool_sums
$fn$`);
  let after: [string, number] | null = null;
  for (;;) {
    const from: string = after === null ? '' : 'AND (run_id, sequence) > ($1::uuid, $2::integer)';
    const values: unknown[] = after ?? [];
    const result = await client.query<{ run_id: string | null; sequence: number | null; n: number }>(
      `WITH batch AS (
  SELECT run_id, sequence, call_server AS server, call_tool AS tool, call_outcome AS outcome, duration_ms, created_at,
         call_cause AS cause, call_answered AS answered
  FROM ${q}.steps WHERE call_server IS NOT NULL AND call_outcome IS NOT NULL ${from}
  ORDER BY run_id, sequence LIMIT ${BATCH}
), moved AS (
  SELECT * FROM batch b WHERE NOT EXISTS (SELECT 1 FROM ${q}.health_pending p WHERE p.run_id = b.run_id AND p.sequence = b.sequence)
), ${toolRollupWrites(q, 'moved')}
SELECT last.run_id, last.sequence, (SELECT count(*)::int FROM batch) AS n
FROM (SELECT 1) AS one LEFT JOIN (SELECT run_id, sequence FROM batch ORDER BY run_id DESC, sequence DESC LIMIT 1) AS last ON true`,
      values,
    );
    const row = result.rows[0]!;
    if (row.n < BATCH || row.run_id === null || row.sequence === null) break;
    after = [row.run_id, row.sequence];
  }
}
