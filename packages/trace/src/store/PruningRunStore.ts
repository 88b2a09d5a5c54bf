// Retention as a store's users see it: RunStore.pruneRuns (optional, with its can… test) and its
// query and result. How a store applies it (checkPruneRunsQuery, isPrunableRun) is in PruneRuns.ts.
import type { RunStore } from './RunStore.js';

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
