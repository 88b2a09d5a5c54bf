import type { AppendStepInput, CreateRunInput, FinishRunInput, RunPage, RunQuery, StepQuery, StoredRun, StoredStep } from './RunStore.js';
import { RunStoreError } from './RunStoreError.js';
import type { CancelRequestInput } from './CancelRequest.js';
import { checkImportRun } from './storeInputChecks.js';
import type { ServerHealth, ServerHealthQuery } from '../health/ServerHealth.js';
import { serverHealth } from './serverHealth.js';
import { checkPruneRunsQuery, isPrunableRun, planPruneBatches, PruneRunsTally } from './PruneRuns.js';
import type { PruneRunsQuery, PruneRunsResult, PruningRunStore } from './PruningRunStore.js';
import type { OpenCallsRead, OpenCallsRunStore } from './OpenCalls.js';
import type { RunTotals, RunTotalsQuery, SearchingRunStore } from './SearchingRunStore.js';
import type { ToolCallPage, ToolCallQuery } from './StoredToolCall.js';
import type { ToolCallTotals, ToolCallTotalsQuery, ToolTotalsRunStore } from './ToolCallTotals.js';
import { InMemoryState } from './inMemory/inMemoryRuns.js';
import { InMemoryLedger } from './inMemory/InMemoryLedger.js';
import { InMemoryRunSearch } from './inMemory/InMemoryRunSearch.js';
import { prepareImportRun } from './inMemory/importRun.js';

/**
 * Options of {@link InMemoryRunStore.create}.
 *
 * @public
 */
export interface InMemoryRunStoreOptions {
  /** The clock for default times, in ms since the epoch; default `Date.now`. */
  readonly clock?: () => number;
}

/**
 * A {@link RunStore} that keeps everything in memory, for unit tests and for users' tests.
 *
 * @remarks
 * Passes the shared store contract suite. Payloads are kept as JSON text, exactly as a database
 * store keeps them, so what is read back is what a real store would give. {@link
 * InMemoryRunStore.openPeer} opens a second store on the same data, like another process on
 * the same database; cancel requests reach the watchers of every peer at once.
 *
 * @public
 */
export class InMemoryRunStore implements PruningRunStore, OpenCallsRunStore, SearchingRunStore, ToolTotalsRunStore {
  readonly #state: InMemoryState;
  readonly #clock: () => number;
  readonly #ledger: InMemoryLedger;
  readonly #search: InMemoryRunSearch;
  readonly #import: (run: StoredRun, steps: readonly StoredStep[]) => boolean;
  #closed = false;

  private constructor(state: InMemoryState, clock: () => number) {
    this.#state = state;
    this.#clock = clock;
    const open = (): void => this.#open();
    this.#ledger = new InMemoryLedger(state, open, clock);
    this.#search = new InMemoryRunSearch(state, open);
    this.#import = prepareImportRun(state.runs);
  }

  /** Makes an empty store. */
  static create(options: InMemoryRunStoreOptions = {}): InMemoryRunStore {
    return new InMemoryRunStore(new InMemoryState(), options.clock ?? Date.now);
  }

  /** Opens a second store on this store's data, like another process on the same database. */
  openPeer(): InMemoryRunStore {
    return new InMemoryRunStore(this.#state, this.#clock);
  }

  // --- the run ledger (inMemory/InMemoryLedger.ts) -----------------------------------------------

  createRun(input: CreateRunInput): Promise<StoredRun> {
    return this.#ledger.createRun(input);
  }

  appendStep(runId: string, step: AppendStepInput): Promise<number> {
    return this.#ledger.appendStep(runId, step);
  }

  finishRun(runId: string, finish: FinishRunInput): Promise<StoredRun> {
    return this.#ledger.finishRun(runId, finish);
  }

  requestCancel(runId: string, at?: number, request?: CancelRequestInput): Promise<StoredRun> {
    return this.#ledger.requestCancel(runId, at, request);
  }

  heartbeat(runId: string, at?: number): Promise<void> {
    return this.#ledger.heartbeat(runId, at);
  }

  recoverInterrupted(staleBefore: number): Promise<readonly string[]> {
    return this.#ledger.recoverInterrupted(staleBefore);
  }

  getRun(runId: string): Promise<StoredRun | null> {
    return this.#ledger.getRun(runId);
  }

  readSteps(runId: string, query?: StepQuery): Promise<readonly StoredStep[]> {
    return this.#ledger.readSteps(runId, query);
  }

  /** The calls on the wire of a run (see {@link OpenCallsRunStore.readOpenCalls}); the reference: it folds the run's steps. */
  readOpenCalls(runId: string): Promise<OpenCallsRead | null> {
    return this.#ledger.readOpenCalls(runId);
  }

  watchCancel(runId: string, onCancel: () => void): () => void {
    return this.#ledger.watchCancel(runId, onCancel);
  }

  // --- search (inMemory/InMemoryRunSearch.ts) ----------------------------------------------------

  listRuns(query?: RunQuery): Promise<RunPage> {
    return this.#search.listRuns(query);
  }

  /** How many runs a listing with these filters holds, and their tokens (see {@link SearchingRunStore.runTotals}). */
  runTotals(query?: RunTotalsQuery): Promise<RunTotals> {
    return this.#search.runTotals(query);
  }

  /** One server's ended tool calls, newest first (see {@link SearchingRunStore.listToolCalls}). */
  listToolCalls(query: ToolCallQuery): Promise<ToolCallPage> {
    return this.#search.listToolCalls(query);
  }

  /** The ended calls of a window summed per server and tool (see {@link ToolTotalsRunStore.toolCallTotals}). */
  toolCallTotals(query?: ToolCallTotalsQuery): Promise<readonly ToolCallTotals[]> {
    return this.#search.toolCallTotals(query);
  }

  /** The ids of the runs whose id starts with `prefix` (see {@link SearchingRunStore.findRunIdsByPrefix}). */
  findRunIdsByPrefix(prefix: string, limit?: number): Promise<readonly string[]> {
    return this.#search.findRunIdsByPrefix(prefix, limit);
  }

  // --- health, import (inMemory/importRun.ts), prune ----------------------------------------------

  async serverHealth(query?: ServerHealthQuery): Promise<readonly ServerHealth[]> {
    this.#open();
    const state = this.#state;
    function* rows(): Generator<StoredStep> {
      for (const run of state.runs.values()) yield* run.steps;
    }
    return serverHealth(rows(), query);
  }

  async importRun(run: StoredRun, steps: readonly StoredStep[]): Promise<boolean> {
    this.#open();
    // from here on: the run and steps as checked, the way every store writes them
    ({ run, steps } = checkImportRun(run, steps));
    return this.#import(run, steps);
  }

  /** Deletes the runs that ended before `olderThan`, whole, a batch of runs at a time (see {@link PruningRunStore.pruneRuns}). */
  async pruneRuns(query: PruneRunsQuery): Promise<PruneRunsResult> {
    this.#open();
    const q = checkPruneRunsQuery(query);
    const tally = new PruneRunsTally();
    const old = [...this.#state.runs.values()].filter((run) => isPrunableRun(run, q.olderThan));
    const batches = planPruneBatches(
      old.map((run) => ({ run, stepCount: run.steps.length })),
      q.batchSize,
    );
    for (const batch of batches) {
      if (q.signal?.aborted === true) return tally.result(q.dryRun, false);
      for (const { run } of batch) {
        // a run that went on since it was listed is checked again, as a database store does in its transaction
        if (this.#state.runs.get(run.id) !== run || !isPrunableRun(run, q.olderThan)) continue;
        if (!q.dryRun) this.#state.runs.delete(run.id);
        tally.addRun(run.steps.length, run.finishedAt);
      }
      tally.addBatch();
      // like a database store, writes queued meanwhile go first
      if (!q.dryRun) await Promise.resolve();
    }
    return tally.result(q.dryRun, true);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#ledger.close();
  }

  #open(): void {
    if (this.#closed) throw RunStoreError.storageFailure('the store is closed');
  }
}
