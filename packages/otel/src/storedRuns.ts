import type { RunStore, StoredRun } from '@runledger/trace';
import type { StepRecord } from './mapping.js';

/** Steps read from the store at a time. */
const STEP_PAGE = 1000;

/** Which stored runs an export reads: these ids (each must exist), else the runs created at or after `since`, else all. */
export interface RunSelection {
  readonly runIds?: readonly string[];
  readonly since?: number;
}

/**
 * The selected runs: the ids given in their order, else newest first (the store's listing, in pages).
 *
 * @throws Error from `selectRuns` when a run id is not in the store.
 */
export async function* selectRuns(store: RunStore, selection: RunSelection): AsyncGenerator<StoredRun> {
  if (selection.runIds !== undefined) {
    for (const id of selection.runIds) {
      const run = await store.getRun(id);
      if (run === null) throw new Error(`there is no run "${id}" in the store`);
      yield run;
    }
    return;
  }
  let cursor: string | null = null;
  do {
    const page = await store.listRuns({ limit: 200, cursor, ...(selection.since === undefined ? {} : { createdFrom: selection.since }) });
    yield* page.runs;
    cursor = page.nextCursor;
  } while (cursor !== null);
}

function parse(payload: string): Readonly<Record<string, unknown>> | null {
  try {
    const value: unknown = JSON.parse(payload);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** A run's stored steps in sequence order, read in pages, each payload parsed (null when it cannot be read). */
export async function* readStepRecords(store: RunStore, runId: string): AsyncGenerator<StepRecord> {
  let from = 0;
  for (;;) {
    const steps = await store.readSteps(runId, { fromSequence: from, limit: STEP_PAGE });
    for (const stored of steps) {
      yield {
        sequence: stored.sequence,
        kind: stored.kind,
        round: stored.round,
        durationMs: stored.durationMs,
        createdAt: stored.createdAt,
        payload: parse(stored.payload),
      };
    }
    if (steps.length < STEP_PAGE) return;
    from = steps[steps.length - 1]!.sequence + 1;
  }
}
