// Retention as a store applies it: the input rule of RunStore.pruneRuns and which runs it may delete
// (its shapes are in PruningRunStore.ts). A store that prunes applies checkPruneRunsQuery and
// isPrunableRun, so every store deletes the same runs.
import type { PruneRunsQuery, PruneRunsResult, StoredRun } from '@runledger/trace';
import { RunStatus } from '../step/RunStatus.js';
import { invalid, object, show, time } from './storeValueRules.js';

/**
 * Steps deleted in one transaction when `batchSize` is not given.
 *
 * @public
 */
export const DEFAULT_PRUNE_BATCH_SIZE = 2000;
/**
 * The largest `batchSize` a prune takes: a batch is one short transaction.
 *
 * @public
 */
export const MAX_PRUNE_BATCH_SIZE = 100_000;
/**
 * Runs deleted in one transaction at most, whatever their steps.
 *
 * @public
 */
export const MAX_PRUNE_BATCH_RUNS = 500;

/**
 * A {@link PruneRunsQuery} after its rule: every field present.
 *
 * @public
 */
export interface NormalizedPruneRunsQuery {
  readonly olderThan: number;
  readonly dryRun: boolean;
  readonly batchSize: number;
  readonly signal: AbortSignal | null;
}

/**
 * Checks a {@link PruneRunsQuery}: `olderThan` a time (integer ms from 0 to 8.64e15), `dryRun` a
 * boolean, `batchSize` an integer from 1 to 100 000, `signal` an AbortSignal.
 *
 * @throws RunStoreError (`invalid_input`) naming the field and the rule.
 *
 * @public
 */
export function checkPruneRunsQuery(query: PruneRunsQuery): NormalizedPruneRunsQuery {
  object(query, 'PruneRunsQuery');
  if (query.olderThan === undefined) throw invalid('PruneRunsQuery.olderThan is required: the cutoff, in ms since the epoch');
  const olderThan = time(query.olderThan, 'PruneRunsQuery.olderThan');
  if (query.dryRun !== undefined && typeof query.dryRun !== 'boolean') {
    throw invalid(`PruneRunsQuery.dryRun must be a boolean, got ${show(query.dryRun)}`);
  }
  let batchSize = DEFAULT_PRUNE_BATCH_SIZE;
  if (query.batchSize !== undefined) {
    const value: unknown = query.batchSize;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_PRUNE_BATCH_SIZE) {
      throw invalid(`PruneRunsQuery.batchSize must be an integer from 1 to ${MAX_PRUNE_BATCH_SIZE} (steps per batch), got ${show(value)}`);
    }
    batchSize = value;
  }
  const signal = query.signal ?? null;
  if (signal !== null && !(typeof signal === 'object' && typeof (signal as AbortSignal).aborted === 'boolean')) {
    throw invalid(`PruneRunsQuery.signal must be an AbortSignal, got ${show(signal)}`);
  }
  return { olderThan, dryRun: query.dryRun ?? false, batchSize, signal };
}

/**
 * Tells whether a prune with this cutoff deletes the run: it has ended (any status but
 * `running`) and its `finishedAt` is before the cutoff.
 *
 * @public
 */
export function isPrunableRun(run: Pick<StoredRun, 'status' | 'finishedAt'>, olderThan: number): boolean {
  return run.status !== RunStatus.RUNNING && run.finishedAt !== null && run.finishedAt < olderThan;
}

/**
 * Adds up what a prune deleted, batch by batch, into a {@link PruneRunsResult}.
 *
 * @public
 */
export class PruneRunsTally {
  #runs = 0;
  #steps = 0;
  #oldest: number | null = null;
  #newest: number | null = null;
  #batches = 0;

  /** Counts one deleted run (its steps and when it ended). */
  addRun(steps: number, finishedAt: number | null): void {
    this.#runs++;
    this.#steps += steps;
    this.addFinishedAt(finishedAt);
  }

  /** Counts steps deleted apart from their run (the rest of a run whose prune was interrupted). */
  addSteps(steps: number): void {
    this.#steps += steps;
  }

  /** Widens the span of `finishedAt` of the deleted runs. */
  addFinishedAt(finishedAt: number | null): void {
    if (finishedAt === null) return;
    if (this.#oldest === null || finishedAt < this.#oldest) this.#oldest = finishedAt;
    if (this.#newest === null || finishedAt > this.#newest) this.#newest = finishedAt;
  }

  /** Counts one committed batch. */
  addBatch(): void {
    this.#batches++;
  }

  result(dryRun: boolean, complete: boolean): PruneRunsResult {
    return Object.freeze({
      runs: this.#runs,
      steps: this.#steps,
      oldestFinishedAt: this.#oldest,
      newestFinishedAt: this.#newest,
      batches: dryRun ? 0 : this.#batches,
      dryRun,
      complete,
    });
  }
}

/**
 * Splits runs into batches of whole runs: at most `batchSize` steps (a run with more is a batch
 * of its own) and {@link MAX_PRUNE_BATCH_RUNS} runs each.
 *
 * @public
 */
export function planPruneBatches<T extends { readonly stepCount: number }>(runs: readonly T[], batchSize: number): T[][] {
  const batches: T[][] = [];
  let current: T[] = [];
  let steps = 0;
  for (const run of runs) {
    if (current.length > 0 && (steps + run.stepCount > batchSize || current.length >= MAX_PRUNE_BATCH_RUNS)) {
      batches.push(current);
      current = [];
      steps = 0;
    }
    current.push(run);
    steps += run.stepCount;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}
