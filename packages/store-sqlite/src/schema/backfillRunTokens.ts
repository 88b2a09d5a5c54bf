import type Database from 'better-sqlite3';

/** A payload's token count under `key` by trace's stepTokens rule: a JSON number that is a safe integer above 0, else 0. */
const tokenCount = (key: string): string => {
  const value = `json_extract(payload, '$.${key}')`;
  // json_type, not typeof: json_extract reads true as 1; a number such as 1.0 or 1e3 is a real in
  // SQLite and an integer to JSON.parse, so it counts when it is whole
  return `CASE WHEN json_type(payload, '$.${key}') IN ('integer', 'real') AND ${value} > 0 AND ${value} <= ${Number.MAX_SAFE_INTEGER}
    AND ${value} = CAST(${value} AS INTEGER) THEN CAST(${value} AS INTEGER) ELSE 0 END`;
};

/**
 * The tokens of one `llm` step from its payload text (`payload`), as trace's stepTokens counts
 * them: `promptTokens` plus `completionTokens`; 0 for a payload that is no JSON (CASE evaluates
 * json_extract only on valid JSON: it throws on malformed text). Frozen as version 18 wrote it.
 *
 * @internal
 */
export const LLM_STEP_TOKENS_SQL = `CASE WHEN json_valid(payload) THEN (${tokenCount('promptTokens')}) + (${tokenCount('completionTokens')}) ELSE 0 END`;

/**
 * The data pass of version 18: every run's `tokens`, summed over its `llm` steps (one range of
 * the steps table per run, as version 3 counted steps). Sets rather than adds, so it runs again
 * over its own result. Runs inside the migration's transaction.
 *
 * @internal
 */
export function backfillRunTokens(db: Database.Database): void {
  db.exec(`
UPDATE runs SET tokens = (
  SELECT coalesce(sum(${LLM_STEP_TOKENS_SQL}), 0) FROM steps
  WHERE steps.id >= (runs.run_no << 32) AND steps.id < ((runs.run_no + 1) << 32) AND steps.kind = 'llm'
) WHERE run_no IS NOT NULL;`);
}
