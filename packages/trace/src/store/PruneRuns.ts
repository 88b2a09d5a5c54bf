// Retention: the shapes of RunStore.pruneRuns, its input rule and which runs it may delete. A store
// that prunes applies checkPruneRunsQuery and isPrunableRun, so every store deletes the same runs.
import type { RunStore, StoredRun } from './RunStore.js';
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
 * Which runs {@link PruningRunStore.pruneRuns} deletes, and how.
 *
 * @public
 */
export interface PruneRunsQuery {
  /**
   * The cutoff, in ms since the epoch: a run is deleted when it ended (`finishedAt`) before it.
   * A run still `running` is never deleted, however old; an interrupted run has ended (when
   * recovery marked it) and is deleted like any other.
   */
  readonly olderThan: number;
  /** Count what would be deleted and delete nothing. Default false. */
  readonly dryRun?: boolean;
  /**
   * The most steps deleted in one transaction (a batch of whole runs); default 2000, from 1 to
   * 100 000. A batch also holds at most 500 runs. Without one, a store may take fewer: SQLite sizes
   * each transaction by how long it holds the write lock, PostgreSQL deletes at most 500 steps.
   */
  readonly batchSize?: number;
  /** Stops the prune between two batches; what was deleted so far stays deleted. */
  readonly signal?: AbortSignal;
}

/**
 * What a prune deleted (or, on a dry run, would delete).
 *
 * @public
 */
export interface PruneRunsResult {
  /** Runs deleted, each whole. */
  readonly runs: number;
  /** Their steps. */
  readonly steps: number;
  /** The earliest `finishedAt` of a deleted run, or null when none was. */
  readonly oldestFinishedAt: number | null;
  /** The latest `finishedAt` of a deleted run, or null when none was. */
  readonly newestFinishedAt: number | null;
  /** Transactions that deleted something (0 on a dry run). */
  readonly batches: number;
  /** True when nothing was deleted because `dryRun` was set. */
  readonly dryRun: boolean;
  /** False when `signal` stopped the prune before every old run was deleted. */
  readonly complete: boolean;
}

/**
 * A {@link RunStore} that can delete old runs: every store of runledger is one.
 *
 * @remarks
 * `pruneRuns` is optional on {@link RunStore} so that a store written before it still compiles;
 * {@link canPruneRuns} tells whether a store has it.
 *
 * @public
 */
export interface PruningRunStore extends RunStore {
  /**
   * Deletes every run that ended before `olderThan`, whole (its steps, its row and its part of
   * the health rollup), in batches of at most `batchSize` steps, each one short transaction.
   *
   * @throws RunStoreError (`invalid_input`) from `checkPruneRunsQuery`.
   */
  pruneRuns(query: PruneRunsQuery): Promise<PruneRunsResult>;
}

/**
 * Tells whether a store can prune (has `pruneRuns`).
 *
 * @public
 */
export function canPruneRuns(store: RunStore): store is PruningRunStore {
  return typeof (store as Partial<PruningRunStore>).pruneRuns === 'function';
}

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
