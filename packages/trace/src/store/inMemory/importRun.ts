// importRun of an InMemoryRunStore (the sibling of the SQL stores' import/importRun.ts): a run and
// its steps kept exactly as given, with what its queries read of them.
import { isTerminalRunStatus } from '../../step/RunStatus.js';
import type { StoredRun, StoredStep } from '../RunStore.js';
import { terminationColumns } from '../storedTermination.js';
import { add, type MutableRun } from './inMemoryRuns.js';

/**
 * The import of a run checked by `checkImportRun` into `runs`: false, and nothing kept, when a run
 * of that id exists.
 *
 * @internal
 */
export function prepareImportRun(runs: Map<string, MutableRun>): (run: StoredRun, steps: readonly StoredStep[]) => boolean {
  return (run, steps) => {
    const id = run.id.toLowerCase();
    if (runs.has(id)) return false;
    const record: MutableRun = {
      id,
      status: run.status,
      configuration: run.configuration,
      actor: run.actor ?? null,
      title: run.title ?? null,
      createdAt: run.createdAt,
      startedAt: run.startedAt ?? null,
      finishedAt: run.finishedAt ?? null,
      termination: terminationColumns(run.termination ?? null, run.terminationReason ?? null),
      cancelRequestedAt: run.cancelRequestedAt ?? null,
      cancelRequest:
        run.cancelRequest == null ? null : { from: run.cancelRequest.from, by: run.cancelRequest.by, reason: run.cancelRequest.reason },
      heartbeatAt: run.heartbeatAt ?? null,
      unstoredSteps: run.unstoredSteps ?? 0,
      ...(isTerminalRunStatus(run.lateFinishStatus)
        ? { lateFinishStatus: run.lateFinishStatus, lateFinishAt: run.lateFinishAt ?? null }
        : {}),
      steps: [],
      counts: { ok: 0, failed: 0, cancelled: 0 },
      tokens: 0,
      calls: [],
    };
    for (const step of steps) {
      const stored: StoredStep = Object.freeze({
        runId: id,
        sequence: step.sequence,
        kind: step.kind,
        round: step.round,
        durationMs: step.durationMs,
        createdAt: step.createdAt,
        payload: step.payload,
        toolServer: step.toolServer ?? null,
        toolOutcome: step.toolOutcome ?? null,
      });
      add(record, stored);
    }
    runs.set(id, record);
    return true;
  };
}
