// One append (the sibling of store-postgres's appendStatement.ts): the statements that hand out
// the sequence from the run row, insert the step and note its call as pending for the health
// rollup, and the function that runs them inside the append's transaction (SQLite's append is a
// few statements in one transaction, PostgreSQL's one statement).
import type { ToolOutcome } from '@runledger/core';
import { RunStoreError } from '@runledger/trace';
import {
  callIdOfPayload,
  isSameStep,
  type NormalizedAppendStep,
  sequencePastEndError,
  stepTokens,
  toolCallOf,
  toolNameOfPayload,
} from '@runledger/trace/store';
import type Database from 'better-sqlite3';
import type { WriteStep } from '../import/importRun.js';
import type { SqliteHealthPending } from '../health/SqliteHealthPending.js';
import type { SqliteOpenCalls } from '../SqliteOpenCalls.js';
import { STEP_COLUMNS, STEP_ROWID } from '../sqliteRows.js';

const INSERT_STEP_COLUMNS = `id, ${STEP_COLUMNS}, call_server, call_outcome, call_cause`;

/** What an append runs: the append itself (inside a transaction or savepoint), and the step writer it shares with importRun. */
export interface PreparedAppend {
  /** Appends a step at the run's next sequence (or the one it names), returns the sequence; refuses before it writes anything. */
  readonly append: (runId: string, step: NormalizedAppendStep) => number;
  /** Inserts a step row, notes its tool call, if it is one, as pending for the health rollup, and the call it starts or ends. */
  readonly writeStep: WriteStep;
}

/** Prepares the statements of an append on `db`; calls are noted in `pending`, their starts and ends in `openCalls`. */
export function prepareAppendStatement(db: Database.Database, pending: SqliteHealthPending, openCalls: SqliteOpenCalls): PreparedAppend {
  // One statement per outcome, with or without the sequence the caller expects: a counter the
  // step leaves alone is not in its SET (so neither are the partial indexes on failed_count and
  // cancelled_count), and the expected sequence is checked in the same statement.
  const bumps = new Map<string, Database.Statement>();
  const bump = (outcome: ToolOutcome | undefined, expected: boolean): Database.Statement => {
    const key = `${outcome ?? ''} ${expected}`;
    let statement = bumps.get(key);
    if (statement === undefined) {
      const counter = outcome === undefined ? '' : `, ${outcome}_count = ${outcome}_count + 1`;
      statement = db
        .prepare(
          `UPDATE runs SET step_count = step_count + 1, tokens = tokens + ?${counter} WHERE id = ?${expected ? ' AND step_count = ?' : ''} RETURNING step_count - 1, run_no`,
        )
        .raw();
      bumps.set(key, statement);
    }
    return statement;
  };
  // the rowid of a step is (run number << 32) + sequence: a run's steps are one range of the table
  const insertStep = db.prepare(`INSERT INTO steps (${INSERT_STEP_COLUMNS}) VALUES (${STEP_ROWID}, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const writeStep: WriteStep = (runNo, runId, sequence, step, payload, call, callId, appended) => {
    insertStep.run(
      runNo,
      sequence,
      runId,
      sequence,
      step.kind,
      step.round,
      step.durationMs,
      step.createdAt,
      payload,
      step.toolServer,
      step.toolOutcome,
      call?.server ?? null,
      call?.outcome ?? null,
      call?.cause ?? null,
    );
    if (call !== null && call.server !== null) {
      pending.pend(call.server, call.outcome, step.durationMs, step.createdAt, call.cause, toolNameOfPayload(appended, payload));
    }
    if (callId !== null) openCalls.note(runNo, step.kind, callId, sequence);
  };
  const nextSequence = db.prepare('SELECT step_count FROM runs WHERE id = ?').pluck();
  const storedAt = db.prepare(
    `SELECT kind, round, duration_ms AS durationMs, created_at AS createdAt, payload, tool_server AS toolServer,
       tool_outcome AS toolOutcome FROM steps WHERE id = ((SELECT run_no FROM runs WHERE id = ?) << 32) + CAST(? AS INTEGER)`,
  );
  /** Why an append found no run row at the sequence it expects: the idempotent retry of a stored step, or its refusal. */
  const notBumped = (runId: string, step: NormalizedAppendStep): number => {
    const next = nextSequence.get(runId) as number | undefined;
    if (next === undefined || step.sequence === null) throw RunStoreError.runNotFound(runId);
    if (step.sequence > next) throw sequencePastEndError(runId, step.sequence, next);
    const stored = storedAt.get(runId, step.sequence) as
      | {
          kind: string;
          round: number;
          durationMs: number;
          createdAt: number;
          payload: string;
          toolServer: string | null;
          toolOutcome: ToolOutcome | null;
        }
      | undefined;
    if (stored !== undefined && isSameStep(stored, step)) return step.sequence;
    throw RunStoreError.sequenceConflict(runId, step.sequence);
  };
  const append = (runId: string, step: NormalizedAppendStep): number => {
    const call = toolCallOf(step);
    // the run's tokens move in the statement that hands out the sequence (stepTokens: the one rule)
    const tokens = stepTokens(step.kind, step.payload);
    const bumped = (
      step.sequence === null ? bump(call?.outcome, false).get(tokens, runId) : bump(call?.outcome, true).get(tokens, runId, step.sequence)
    ) as [number, number] | undefined;
    // nothing was written: refused (or an earlier try stored this very step) before any write
    if (bumped === undefined) return notBumped(runId, step);
    const [sequence, runNo] = bumped;
    writeStep(runNo, runId, sequence, step, step.payloadText, call, callIdOfPayload(step.kind, step.payload), step.payload);
    return sequence;
  };
  return { append, writeStep };
}
