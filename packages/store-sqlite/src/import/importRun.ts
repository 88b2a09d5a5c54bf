// importRun's transaction (the sibling of store-postgres's importRun.ts): a run and its steps
// written as given, the run's counters and tokens from its steps, the rollup through the same step writer
// appends use.
import { storedStepTokens, terminationColumns, type ToolCallFacts, toolCallOf } from '@runledger/trace/store';
import { callIdOfStoredStep, type StoredRun, type StoredStep } from '@runledger/trace';
import type Database from 'better-sqlite3';
import { NEXT_RUN_NO, RUN_COLUMNS, type StepColumns } from '../sqliteRows.js';

/**
 * Inserts a step row, notes its tool call, if it is one, for the rollups (its tool name read from
 * `appended`, the payload as appended, else from the text), and the call it starts or ends (`callId`).
 */
export type WriteStep = (
  runNo: number,
  runId: string,
  sequence: number,
  step: StepColumns,
  payload: string,
  call: ToolCallFacts | null,
  callId: string | null,
  appended?: unknown,
) => void;

/**
 * The import transaction (`BEGIN IMMEDIATE`) of a run checked by `checkImportRun`: false, and
 * nothing written, when a run of that id exists.
 */
export function prepareImportRun(db: Database.Database, writeStep: WriteStep): (run: StoredRun, steps: readonly StoredStep[]) => boolean {
  const exists = db.prepare('SELECT 1 FROM runs WHERE id = ?').pluck();
  const insertRun = db.prepare(
    `INSERT INTO runs (${RUN_COLUMNS}, run_no) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ${NEXT_RUN_NO}) RETURNING run_no`,
  );
  insertRun.pluck();
  const setCounts = db.prepare('UPDATE runs SET ok_count = ?, failed_count = ?, cancelled_count = ?, tokens = ? WHERE id = ?');
  return db.transaction((run: StoredRun, steps: readonly StoredStep[]): boolean => {
    const id = run.id.toLowerCase();
    if (exists.get(id) !== undefined) return false;
    const termination = terminationColumns(run.termination ?? null, run.terminationReason ?? null);
    const runNo = insertRun.get(
      id,
      run.status,
      run.configuration,
      run.actor ?? null,
      run.title ?? null,
      run.createdAt,
      run.startedAt ?? null,
      run.finishedAt ?? null,
      termination.termination_reason,
      termination.termination_kind,
      termination.termination_facts,
      run.cancelRequestedAt ?? null,
      run.heartbeatAt ?? null,
      steps.length,
      0,
      0,
      0,
      run.unstoredSteps ?? 0,
      run.lateFinishStatus ?? null,
      run.lateFinishStatus === undefined || run.lateFinishStatus === null ? null : (run.lateFinishAt ?? null),
      run.cancelRequest?.from ?? null,
      run.cancelRequest?.by ?? null,
      run.cancelRequest?.reason ?? null,
    ) as number;
    const counts = { ok: 0, failed: 0, cancelled: 0 };
    let tokens = 0;
    for (const step of steps) {
      const columns = { ...step, toolServer: step.toolServer ?? null, toolOutcome: step.toolOutcome ?? null };
      const call = toolCallOf(columns);
      writeStep(runNo, id, step.sequence, columns, step.payload, call, callIdOfStoredStep(step));
      if (call !== null) counts[call.outcome]++;
      tokens += storedStepTokens(step);
    }
    setCounts.run(counts.ok, counts.failed, counts.cancelled, tokens, id);
    return true;
  }).immediate;
}
