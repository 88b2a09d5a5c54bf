import type { PoolClient } from 'pg';
import { MAX_RUN_TOKENS } from '../ledger/appendStatement.js';
import { tokensOfPayload } from '../payloadFields.js';

const BATCH = 5_000;

/**
 * Fills `runs.tokens` (schema version 12) from the steps already stored: the sum of trace's
 * `stepTokens` over each run's `llm` steps, read from their payload text exactly as imports read
 * it (a value that is not a non-negative safe integer, or an unreadable payload, counts 0).
 *
 * @remarks
 * Runs inside the migration transaction, in keyset-ordered batches of the `llm` steps that name
 * tokens at all, one run's sum in memory at a time. Each run's total is set, never added, so the
 * pass gives the same result when it runs again over its own result. Returns the runs it set.
 *
 * @internal
 */
export async function backfillRunTokens(client: PoolClient): Promise<number> {
  let written = 0;
  const done = { ids: [] as string[], tokens: [] as string[] };
  // summed exactly (a bigint, as appends add in SQL): a run's sum may pass 2^53
  let run: { id: string; tokens: bigint } | null = null;
  const flush = async (): Promise<void> => {
    if (done.ids.length === 0) return;
    await client.query('UPDATE runs r SET tokens = u.tokens FROM unnest($1::uuid[], $2::bigint[]) AS u(id, tokens) WHERE r.id = u.id', [
      done.ids,
      done.tokens,
    ]);
    written += done.ids.length;
    done.ids = [];
    done.tokens = [];
  };
  const finish = (): void => {
    if (run !== null && run.tokens > 0n) {
      done.ids.push(run.id);
      done.tokens.push((run.tokens < MAX_RUN_TOKENS ? run.tokens : MAX_RUN_TOKENS).toString());
    }
  };
  let after: { runId: string; sequence: number } | null = null;
  for (;;) {
    const batch: { rows: { run_id: string; sequence: number; payload: string }[] } = await client.query(
      `SELECT run_id, sequence, payload FROM steps
       WHERE kind = 'llm' AND strpos(payload, 'Tokens"') > 0
         ${after === null ? '' : 'AND (run_id, sequence) > ($1::uuid, $2::integer)'}
       ORDER BY run_id, sequence LIMIT ${BATCH}`,
      after === null ? [] : [after.runId, after.sequence],
    );
    for (const row of batch.rows) {
      if (run === null || row.run_id !== run.id) {
        finish();
        run = { id: row.run_id, tokens: 0n };
      }
      run.tokens += BigInt(tokensOfPayload('llm', row.payload));
    }
    await flush();
    const last = batch.rows[batch.rows.length - 1];
    if (last === undefined || batch.rows.length < BATCH) break;
    after = { runId: last.run_id, sequence: last.sequence };
  }
  finish();
  await flush();
  return written;
}
