// Schema version 12 (issue 32): what finding runs in a large store needs, its columns filled from
// the stored steps and its indexes.
import type { PoolClient } from 'pg';
import { backfillCallTools } from './backfillCallTools.js';
import { backfillRunTokens } from './backfillRunTokens.js';

/**
 * Version 12, what finding runs in a large store needs: `runs.tokens` (the model tokens of the
 * run's steps, kept by appends) and `steps.call_tool` (the tool name of an ended call), filled by
 * the backfills between V12_COLUMNS and V12_INDEXES.
 */
const V12_COLUMNS = `
ALTER TABLE runs ADD COLUMN IF NOT EXISTS tokens bigint NOT NULL DEFAULT 0;
ALTER TABLE steps ADD COLUMN IF NOT EXISTS call_tool text;
`;

/**
 * The indexes of version 12. \`steps_call_server\` gains run id and sequence as keys: one server's
 * calls in the tool call listing's order (created_at, run_id, sequence), read backwards from a
 * cursor without a sort, and the same prefix as before for server health and prune.
 * \`steps_run_calls\`: a run's own ended calls by server and tool, what the listing's server and tool
 * filters look up per run (index only). A run id prefix is a range of the primary key (a uuid).
 */
const V12_INDEXES = `
DROP INDEX IF EXISTS steps_call_server;
CREATE INDEX steps_call_server ON steps (call_server, created_at, run_id, sequence)
  INCLUDE (call_outcome, duration_ms, call_answered)
  WHERE call_server IS NOT NULL AND call_outcome IS NOT NULL;
CREATE INDEX IF NOT EXISTS steps_run_calls ON steps (run_id, call_server, call_tool)
  WHERE call_server IS NOT NULL AND call_outcome IS NOT NULL;
`;

/**
 * Migration 12: the columns, their backfills, then the indexes (built once, over the filled rows).
 *
 * @internal
 */
export async function addSearchColumns(client: PoolClient): Promise<void> {
  await client.query(V12_COLUMNS);
  await backfillRunTokens(client);
  await backfillCallTools(client);
  await client.query(V12_INDEXES);
}
