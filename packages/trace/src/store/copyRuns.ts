import type { RunQuery, RunStore, StoredStep } from './RunStore.js';

/**
 * Where a copy stands, after each run.
 *
 * @public
 */
export interface CopyRunsProgress {
  /** Runs read from the source so far. */
  readonly runsSeen: number;
  /** Runs written to the target. */
  readonly runsCopied: number;
  /** Runs the target already had, left as they were. */
  readonly runsSkipped: number;
  /** Steps written to the target. */
  readonly stepsCopied: number;
  /** The run just handled. */
  readonly runId: string;
}

/**
 * What {@link copyRuns} did.
 *
 * @public
 */
export interface CopyRunsResult {
  readonly runsSeen: number;
  readonly runsCopied: number;
  readonly runsSkipped: number;
  readonly stepsCopied: number;
}

/**
 * Options of {@link copyRuns}.
 *
 * @public
 */
export interface CopyRunsOptions {
  /** Called after each run. */
  readonly onProgress?: (progress: CopyRunsProgress) => void;
  /** Which runs to copy (filters only; paging is done here); default all. */
  readonly filter?: Omit<RunQuery, 'cursor' | 'limit'>;
  /** Steps read per page from the source; default 1000. */
  readonly stepPageSize?: number;
  /** Stops the copy between runs when aborted. */
  readonly signal?: AbortSignal;
}

/**
 * Copies runs and their steps from one store into another, exactly (same ids, sequences,
 * times and payload text), e.g. from SQLite to PostgreSQL.
 *
 * @remarks
 * Pages through the source's runs newest first with keyset cursors and reads each run's steps
 * page by page, then writes the run with `target.importRun`. A run the target already has is
 * skipped, so an interrupted copy can simply be run again. A run still running in the source
 * is copied as it stands at that moment.
 *
 * @throws RangeError from `copyRuns` when stepPageSize is not a positive integer; the signal's
 * reason when aborted; whatever either store raises.
 * @public
 */
export async function copyRuns(source: RunStore, target: RunStore, options: CopyRunsOptions = {}): Promise<CopyRunsResult> {
  const stepPageSize = options.stepPageSize ?? 1000;
  if (!Number.isSafeInteger(stepPageSize) || stepPageSize < 1) {
    throw new RangeError(`CopyRunsOptions.stepPageSize must be a positive integer, got ${String(stepPageSize)}`);
  }
  let runsSeen = 0;
  let runsCopied = 0;
  let runsSkipped = 0;
  let stepsCopied = 0;
  let cursor: string | null = null;
  do {
    options.signal?.throwIfAborted();
    const page = await source.listRuns({ ...options.filter, limit: 200, cursor });
    for (const run of page.runs) {
      options.signal?.throwIfAborted();
      runsSeen++;
      const steps: StoredStep[] = [];
      for (;;) {
        const chunk = await source.readSteps(run.id, { fromSequence: steps.length, limit: stepPageSize });
        for (const step of chunk) steps.push(step);
        if (chunk.length < stepPageSize) break;
      }
      // the run as it stands after its steps were read, so its counts match them
      const current = (await source.getRun(run.id)) ?? run;
      const imported = await target.importRun(
        current.stepCount === steps.length ? current : { ...current, stepCount: steps.length },
        steps,
      );
      if (imported) {
        runsCopied++;
        stepsCopied += steps.length;
      } else {
        runsSkipped++;
      }
      options.onProgress?.({ runsSeen, runsCopied, runsSkipped, stepsCopied, runId: run.id });
    }
    cursor = page.nextCursor;
  } while (cursor !== null);
  return { runsSeen, runsCopied, runsSkipped, stepsCopied };
}
