// One append: the statement that hands out the sequence, inserts the step and notes its call as
// pending for the health rollup in one implicit transaction, and the values it takes.
import type { ToolOutcome } from '@runledger/core';
import { callIdOfPayload, type NormalizedAppendStep, toolCallOf } from '@runledger/trace/store';
import { healthPendingWrite } from '../health/PostgresHealthWriter.js';
import { openCallsBatchWrite, openCallsWrite } from '../PostgresOpenCalls.js';
import { tokensOfPayload, toolNameOfPayload } from '../payloadFields.js';
import { ms, STEP_COLUMNS } from '../postgresRows.js';

export const STEP_INSERT_COLUMNS = `${STEP_COLUMNS}, call_server, call_outcome, call_cause, call_answered, call_counted, call_tool`;

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
  /** The payload's `toolName` of a call (what listToolCalls shows and the `tool` filter matches), or null. */
  readonly tool: string | null;
}

/**
 * The `call_server` / `call_outcome` of a step, as {@link toolCallOf} reads it (columns first,
 * then the payload, legacy tool names included), so that counts, filters and health agree with
 * every other store. `tool_server` / `tool_outcome` keep what the recorder gave. `payload` is the
 * object an append gives or the stored text (an import).
 */
export function callColumns(kind: string, payload: unknown, toolServer: string | null, toolOutcome: ToolOutcome | null): CallColumns {
  const call = toolCallOf({ kind, payload, toolServer, toolOutcome });
  if (call === null) return { server: null, outcome: null, cause: null, answered: null, counted: null, tool: null };
  return {
    server: call.server,
    outcome: call.outcome,
    cause: call.cause,
    answered: call.answered,
    counted: call.counted,
    tool: toolNameOfPayload(payload),
  };
}

/** The largest bigint: a run's tokens stop there rather than fail its appends (a step counts at most 2 × (2^53 − 1)). */
export const MAX_RUN_TOKENS = 9_223_372_036_854_775_807n;

/** SQL adding a step's tokens to a run's, saturating at {@link MAX_RUN_TOKENS} (never an overflow error). */
function addTokens(run: string, step: string): string {
  return `CASE WHEN ${run} > ${MAX_RUN_TOKENS} - ${step} THEN ${MAX_RUN_TOKENS} ELSE ${run} + ${step} END`;
}

/**
 * The statement of one append: the run's counter hands out the sequence (the row lock queues
 * concurrent writers of one run), its model tokens are added to the run's, the step is inserted,
 * and its tool call is noted as pending for the health rollup ({@link healthPendingWrite}) — all in
 * one implicit transaction.
 */
export function appendStatement(q: string): string {
  return `WITH run AS (
  UPDATE ${q}.runs SET
    next_sequence = next_sequence + 1,
    ok_count = ok_count + ($9::text IS NOT DISTINCT FROM 'ok')::int,
    failed_count = failed_count + ($9::text IS NOT DISTINCT FROM 'failed')::int,
    cancelled_count = cancelled_count + ($9::text IS NOT DISTINCT FROM 'cancelled')::int,
    tokens = ${addTokens('tokens', '$17::bigint')}
  WHERE id = $1::uuid AND pruned_at IS NULL AND ($11::integer IS NULL OR next_sequence = $11::integer)
  RETURNING next_sequence - 1 AS sequence
), step AS (
  INSERT INTO ${q}.steps (run_id, sequence, kind, round, duration_ms, created_at, payload, tool_server, tool_outcome,
    call_server, call_outcome, call_cause, call_answered, call_counted, call_tool)
  SELECT $1::uuid, run.sequence, $2::text, $3::integer, $4::float8, $5::bigint, $6::text, $7::text, $8::text,
    $10::text, $9::text, $12::text, $13::boolean, $14::boolean, $16::text FROM run
  RETURNING sequence
), ${healthPendingWrite(q)}, ${openCallsWrite(q)}
SELECT sequence FROM step`;
}

/**
 * The statement of a batch of appends of different runs (group commit, see PostgresGroupCommit):
 * the same as {@link appendStatement} for each, in one statement and one commit. Its parameters
 * are the append's {@link APPEND_VALUE_COUNT} values, each an array with one element per append; it returns the
 * 1-based position and sequence of each append it stored. An append whose run is missing, hidden
 * or not at the expected sequence is left out (the caller runs it alone, which tells why); run
 * rows are locked in id order, so concurrent batches never wait for each other in a circle.
 */
export function appendBatchStatement(q: string): string {
  return `WITH input AS (
  SELECT * FROM unnest($1::uuid[], $2::text[], $3::integer[], $4::float8[], $5::bigint[], $6::text[], $7::text[], $8::text[],
    $9::text[], $10::text[], $11::integer[], $12::text[], $13::boolean[], $14::boolean[], $15::text[], $16::text[], $17::bigint[])
    WITH ORDINALITY AS i (run_id, kind, round, duration_ms, created_at, payload, tool_server, tool_outcome, call_outcome, call_server,
      expected, call_cause, call_answered, call_counted, call_id, call_tool, tokens, ord)
), locked AS (
  SELECT r.id FROM ${q}.runs r WHERE r.id IN (SELECT run_id FROM input) AND r.pruned_at IS NULL ORDER BY r.id FOR UPDATE
), run AS (
  UPDATE ${q}.runs r SET
    next_sequence = r.next_sequence + 1,
    ok_count = r.ok_count + (i.call_outcome IS NOT DISTINCT FROM 'ok')::int,
    failed_count = r.failed_count + (i.call_outcome IS NOT DISTINCT FROM 'failed')::int,
    cancelled_count = r.cancelled_count + (i.call_outcome IS NOT DISTINCT FROM 'cancelled')::int,
    tokens = ${addTokens('r.tokens', 'i.tokens')}
  FROM input i JOIN locked l ON l.id = i.run_id
  WHERE r.id = i.run_id AND (i.expected IS NULL OR r.next_sequence = i.expected)
  RETURNING i.ord, r.next_sequence - 1 AS sequence
), step AS (
  INSERT INTO ${q}.steps (run_id, sequence, kind, round, duration_ms, created_at, payload, tool_server, tool_outcome,
    call_server, call_outcome, call_cause, call_answered, call_counted, call_tool)
  SELECT i.run_id, run.sequence, i.kind, i.round, i.duration_ms, i.created_at, i.payload, i.tool_server, i.tool_outcome,
    i.call_server, i.call_outcome, i.call_cause, i.call_answered, i.call_counted, i.call_tool
  FROM input i JOIN run ON run.ord = i.ord
  RETURNING 1
), pending AS (
  INSERT INTO ${q}.health_pending (run_id, sequence, server, shard, outcome, duration_ms, created_at, cause, answered, counted, tool)
  SELECT i.run_id, run.sequence, i.call_server, ${q}.rollup_shard(i.run_id), i.call_outcome, i.duration_ms, i.created_at, i.call_cause,
    i.call_answered, i.call_counted, i.call_tool
  FROM input i JOIN run ON run.ord = i.ord
  WHERE i.call_server IS NOT NULL AND i.call_outcome IS NOT NULL
  RETURNING 1
), ${openCallsBatchWrite(q)}
SELECT run.ord::int AS ord, run.sequence FROM run`;
}

/** How many values an append takes (see appendValues). */
export const APPEND_VALUE_COUNT = 17;

/**
 * An append's values: the parameters of appendStatement, one column of appendBatchStatement each
 * ($16 the call's tool name, $17 the step's tokens by trace's stepTokens).
 */
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
    callIdOfPayload(input.kind, input.payload),
    call.tool,
    tokensOfPayload(input.kind, input.payload),
  ];
}
