// A run and its steps written exactly as another store holds them: one transaction, the steps in
// chunks of one multi-row INSERT each, the counters (tokens too), the health rollup and the open calls updated once.
import type { StoredRun, StoredStep } from '@runledger/trace';
import { terminationColumns } from '@runledger/trace/store';
import type pg from 'pg';
import { callColumns, MAX_RUN_TOKENS, STEP_INSERT_COLUMNS } from '../ledger/appendStatement.js';
import { ms, msOrNull } from '../postgresRows.js';
import { tokensOfPayload } from '../payloadFields.js';
import { withTransaction } from '../withTransaction.js';
import { foldOpenCalls, insertOpenCalls } from '../PostgresOpenCalls.js';
import { storageFailure } from '../storageFailure.js';
import { rollRunStatement } from '../health/PostgresHealthWriter.js';

/** Steps per INSERT of an import. */
const IMPORT_CHUNK = 2_000;

/**
 * The import transaction of a run checked by `checkImportRun`, into the schema `q` (quoted): false,
 * and nothing written, when a run with that id exists already.
 */
export function prepareImportRun(pool: pg.Pool, q: string): (run: StoredRun, steps: readonly StoredStep[]) => Promise<boolean> {
  return async (run, steps) => {
    try {
      return await withTransaction(pool, (client) => importInto(client, q, run, steps));
    } catch (error) {
      throw storageFailure('importRun', error);
    }
  };
}

/** Writes the run and its steps on `client`, inside its transaction; false when the run exists. */
async function importInto(client: pg.PoolClient, q: string, run: StoredRun, steps: readonly StoredStep[]): Promise<boolean> {
  const id = run.id.toLowerCase();
  const termination = terminationColumns(run.termination ?? null, run.terminationReason ?? null);
  const inserted = await client.query(
    `INSERT INTO ${q}.runs (id, status, configuration, actor, title, created_at, started_at, finished_at,
       termination_reason, termination_kind, termination_facts, cancel_requested_at, heartbeat_at, unstored_steps,
       late_finish_status, late_finish_at, cancel_from, cancel_by, cancel_reason)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19) ON CONFLICT (id) DO NOTHING RETURNING id`,
    [
      id,
      run.status,
      run.configuration,
      run.actor ?? null,
      run.title ?? null,
      ms(run.createdAt),
      msOrNull(run.startedAt),
      msOrNull(run.finishedAt),
      termination.termination_reason,
      termination.termination_kind,
      termination.termination_facts,
      msOrNull(run.cancelRequestedAt),
      msOrNull(run.heartbeatAt),
      run.unstoredSteps ?? 0,
      run.lateFinishStatus ?? null,
      run.lateFinishStatus === undefined || run.lateFinishStatus === null ? null : msOrNull(run.lateFinishAt),
      run.cancelRequest?.from ?? null,
      run.cancelRequest?.by ?? null,
      run.cancelRequest?.reason ?? null,
    ],
  );
  // the run exists: nothing was written, and the transaction commits nothing
  if (inserted.rowCount === 0) return false;
  const counts = { ok: 0, failed: 0, cancelled: 0 };
  // the run's tokens are the sum over the steps it brings (what it says it used is not kept), exact
  // as appends add them in SQL (a sum may pass 2^53)
  let tokens = 0n;
  for (let start = 0; start < steps.length; start += IMPORT_CHUNK) {
    const chunk = steps.slice(start, start + IMPORT_CHUNK);
    const columns = {
      sequence: [] as number[],
      kind: [] as string[],
      round: [] as number[],
      duration: [] as number[],
      createdAt: [] as number[],
      payload: [] as string[],
      server: [] as (string | null)[],
      outcome: [] as (string | null)[],
      callServer: [] as (string | null)[],
      callOutcome: [] as (string | null)[],
      callCause: [] as (string | null)[],
      callAnswered: [] as (boolean | null)[],
      callCounted: [] as (boolean | null)[],
      callTool: [] as (string | null)[],
    };
    for (const step of chunk) {
      const call = callColumns(step.kind, step.payload, step.toolServer ?? null, step.toolOutcome ?? null);
      if (call.outcome !== null) counts[call.outcome] += 1;
      tokens += BigInt(tokensOfPayload(step.kind, step.payload));
      columns.sequence.push(step.sequence);
      columns.kind.push(step.kind);
      columns.round.push(step.round);
      columns.duration.push(step.durationMs);
      columns.createdAt.push(ms(step.createdAt));
      columns.payload.push(step.payload);
      columns.server.push(step.toolServer ?? null);
      columns.outcome.push(step.toolOutcome ?? null);
      columns.callServer.push(call.outcome === null ? null : call.server);
      columns.callOutcome.push(call.outcome);
      columns.callCause.push(call.cause);
      columns.callAnswered.push(call.answered);
      columns.callCounted.push(call.counted);
      columns.callTool.push(call.tool);
    }
    await client.query(
      `INSERT INTO ${q}.steps (${STEP_INSERT_COLUMNS})
       SELECT $1::uuid, * FROM unnest($2::integer[], $3::text[], $4::integer[], $5::float8[], $6::bigint[], $7::text[],
         $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::boolean[], $14::boolean[], $15::text[])`,
      [
        id,
        columns.sequence,
        columns.kind,
        columns.round,
        columns.duration,
        columns.createdAt,
        columns.payload,
        columns.server,
        columns.outcome,
        columns.callServer,
        columns.callOutcome,
        columns.callCause,
        columns.callAnswered,
        columns.callCounted,
        columns.callTool,
      ],
    );
  }
  await client.query(
    `UPDATE ${q}.runs SET next_sequence = $2, ok_count = $3, failed_count = $4, cancelled_count = $5, tokens = $6 WHERE id = $1`,
    [id, steps.length, counts.ok, counts.failed, counts.cancelled, (tokens < MAX_RUN_TOKENS ? tokens : MAX_RUN_TOKENS).toString()],
  );
  await client.query(rollRunStatement(q), [id]);
  await insertOpenCalls(client, `${q}.open_calls`, id, foldOpenCalls(steps));
  return true;
}
