// One append: the statement that hands out the sequence, inserts the step and notes its call as
// pending for the health rollup in one implicit transaction, and the values it takes.
import type { ToolOutcome } from '@runledger/core';
import { type NormalizedAppendStep, toolCallOf } from '@runledger/trace';
import { healthPendingWrite } from './PostgresHealthWriter.js';
import { ms, STEP_COLUMNS } from './postgresRows.js';

export const STEP_INSERT_COLUMNS = `${STEP_COLUMNS}, call_server, call_outcome, call_cause, call_answered, call_counted`;

/** The derived columns of a step: how health, outcome counts and the outcome filter read it. */
export interface CallColumns {
  /** The server health counts the call under, or null (not a call, no server or no outcome). */
  readonly server: string | null;
  /** The outcome the run's counters count, or null. */
  readonly outcome: ToolOutcome | null;
  /** Why a failed call failed, or null. */
  readonly cause: string | null;
  /** The server answered (trace's isAnsweredCall), or null when not a call. */
  readonly answered: boolean | null;
  /** The call counts in the failure rate (trace's isCountedCall), or null when not a call. */
  readonly counted: boolean | null;
}

/**
 * The `call_server` / `call_outcome` of a step, as {@link toolCallOf} reads it (columns first,
 * then the payload, legacy tool names included), so that counts, filters and health agree with
 * every other store. `tool_server` / `tool_outcome` keep what the recorder gave.
 */
export function callColumns(kind: string, payload: unknown, toolServer: string | null, toolOutcome: ToolOutcome | null): CallColumns {
  const call = toolCallOf({ kind, payload, toolServer, toolOutcome });
  if (call === null) return { server: null, outcome: null, cause: null, answered: null, counted: null };
  return { server: call.server, outcome: call.outcome, cause: call.cause, answered: call.answered, counted: call.counted };
}

/**
 * The statement of one append: the run's counter hands out the sequence (the row lock queues
 * concurrent writers of one run), the step is inserted, and its tool call is noted as pending for
 * the health rollup ({@link healthPendingWrite}) — all in one implicit transaction.
 */
export function appendStatement(q: string): string {
  return `WITH run AS (
  UPDATE ${q}.runs SET
    next_sequence = next_sequence + 1,
    ok_count = ok_count + ($9::text IS NOT DISTINCT FROM 'ok')::int,
    failed_count = failed_count + ($9::text IS NOT DISTINCT FROM 'failed')::int,
    cancelled_count = cancelled_count + ($9::text IS NOT DISTINCT FROM 'cancelled')::int
  WHERE id = $1::uuid AND pruned_at IS NULL AND ($11::integer IS NULL OR next_sequence = $11::integer)
  RETURNING next_sequence - 1 AS sequence
), step AS (
  INSERT INTO ${q}.steps (run_id, sequence, kind, round, duration_ms, created_at, payload, tool_server, tool_outcome,
    call_server, call_outcome, call_cause, call_answered, call_counted)
  SELECT $1::uuid, run.sequence, $2::text, $3::integer, $4::float8, $5::bigint, $6::text, $7::text, $8::text,
    $10::text, $9::text, $12::text, $13::boolean, $14::boolean FROM run
  RETURNING sequence
), ${healthPendingWrite(q)}
SELECT sequence FROM step`;
}

export function appendValues(runId: string, input: NormalizedAppendStep): unknown[] {
  const call = callColumns(input.kind, input.payload, input.toolServer, input.toolOutcome);
  return [
    runId,
    input.kind,
    input.round,
    input.durationMs,
    ms(input.createdAt),
    input.payloadText,
    input.toolServer,
    input.toolOutcome,
    call.outcome,
    call.outcome === null ? null : call.server,
    input.sequence,
    call.cause,
    call.answered,
    call.counted,
  ];
}
