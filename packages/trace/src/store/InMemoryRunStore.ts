import { isLateCancel } from './isLateCancel.js';
import { isTerminalRunStatus, RunStatus } from '../step/RunStatus.js';
import type { AppendStepInput, CreateRunInput, FinishRunInput, RunPage, RunQuery, StepQuery, StoredRun, StoredStep } from './RunStore.js';
import { RunStoreError } from './RunStoreError.js';
import {
  checkAppendStep,
  checkCreateRun,
  checkFinishRun,
  checkHeartbeatAt,
  checkImportRun,
  checkRequestCancelAt,
  checkRunId,
  checkRunQuery,
  checkStaleBefore,
  checkStepQuery,
  compareNewestFirst,
  duplicateRunIdError,
  isSameStep,
  sequencePastEndError,
} from './storeInputChecks.js';
import { recoveryReason } from '../step/RunTerminationReason.js';
import type { ServerHealth, ServerHealthQuery } from '../health/ServerHealth.js';
import { serverHealth } from './serverHealth.js';
import {
  checkPruneRunsQuery,
  isPrunableRun,
  planPruneBatches,
  type PruneRunsQuery,
  type PruneRunsResult,
  PruneRunsTally,
  type PruningRunStore,
} from './PruneRuns.js';
import { OpenCallSet, type OpenCallsRead, type OpenCallsRunStore } from './OpenCalls.js';
import { checkRunIdPrefix, checkRunTotalsQuery, type RunTotals, type RunTotalsQuery, type SearchingRunStore } from './RunSearch.js';
import { checkToolCallQuery, type StoredToolCall, type ToolCallPage, type ToolCallQuery, toolCallPageOf } from './ToolCallListing.js';
import { add, compareCallsNewestFirst, isKept, type MutableRun, snapshot } from './inMemoryRuns.js';
import { pageOfRuns } from './runPageOf.js';

/**
 * Options of {@link InMemoryRunStore.create}.
 *
 * @public
 */
export interface InMemoryRunStoreOptions {
  /** The clock for default times, in ms since the epoch; default `Date.now`. */
  readonly clock?: () => number;
}

class SharedState {
  readonly runs = new Map<string, MutableRun>();
  readonly cancelListeners = new Set<(runId: string) => void>();
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
export class InMemoryRunStore implements PruningRunStore, OpenCallsRunStore, SearchingRunStore {
  readonly #state: SharedState;
  readonly #clock: () => number;
  readonly #watchers = new Set<() => void>();
  #closed = false;

  private constructor(state: SharedState, clock: () => number) {
    this.#state = state;
    this.#clock = clock;
  }

  /** Makes an empty store. */
  static create(options: InMemoryRunStoreOptions = {}): InMemoryRunStore {
    return new InMemoryRunStore(new SharedState(), options.clock ?? Date.now);
  }

  /** Opens a second store on this store's data, like another process on the same database. */
  openPeer(): InMemoryRunStore {
    return new InMemoryRunStore(this.#state, this.#clock);
  }

  async createRun(input: CreateRunInput): Promise<StoredRun> {
    this.#open();
    const run = checkCreateRun(input, this.#clock());
    if (this.#state.runs.has(run.id)) {
      throw duplicateRunIdError(run.id);
    }
    const record: MutableRun = {
      id: run.id,
      status: RunStatus.RUNNING,
      configuration: run.configuration,
      actor: run.actor,
      title: run.title,
      createdAt: run.createdAt,
      startedAt: run.createdAt,
      finishedAt: null,
      terminationReason: null,
      cancelRequestedAt: null,
      heartbeatAt: null,
      unstoredSteps: 0,
      steps: [],
      counts: { ok: 0, failed: 0, cancelled: 0 },
      tokens: 0,
      calls: [],
    };
    this.#state.runs.set(run.id, record);
    return snapshot(record);
  }

  async appendStep(runId: string, step: AppendStepInput): Promise<number> {
    this.#open();
    const input = checkAppendStep(step);
    const run = this.#run(runId);
    const sequence = run.steps.length;
    if (input.sequence !== null && input.sequence !== sequence) {
      if (input.sequence > sequence) throw sequencePastEndError(run.id, input.sequence, sequence);
      const existing = run.steps[input.sequence]!;
      if (isSameStep(existing, input)) return input.sequence;
      throw RunStoreError.sequenceConflict(run.id, input.sequence);
    }
    const stored: StoredStep = Object.freeze({
      runId: run.id,
      sequence,
      kind: input.kind,
      round: input.round,
      durationMs: input.durationMs,
      createdAt: input.createdAt,
      payload: input.payloadText,
      toolServer: input.toolServer,
      toolOutcome: input.toolOutcome,
    });
    add(run, stored);
    return sequence;
  }

  async finishRun(runId: string, finish: FinishRunInput): Promise<StoredRun> {
    this.#open();
    const input = checkFinishRun(finish, this.#clock());
    const run = this.#run(runId);
    if (run.status === RunStatus.RUNNING) {
      const cancelFirst = run.cancelRequestedAt !== null;
      run.status = cancelFirst ? RunStatus.CANCELLED : input.status;
      run.finishedAt = input.finishedAt;
      run.terminationReason = cancelFirst ? input.cancelledTerminationReason : input.terminationReason;
      run.unstoredSteps += input.unstoredSteps;
    } else {
      // ended already: how it ended stays. The finish that ended it, again, changes nothing; any
      // other is late — its unstored steps count, and the first late one is kept.
      const ending =
        input.finishedAt === run.finishedAt &&
        (input.status === run.status || (run.status === RunStatus.CANCELLED && run.terminationReason === input.cancelledTerminationReason));
      const sameLate = input.status === run.lateFinishStatus && input.finishedAt === run.lateFinishAt;
      if (!ending && !sameLate) {
        run.unstoredSteps += input.unstoredSteps;
        if (run.lateFinishStatus === undefined) {
          run.lateFinishStatus = input.status;
          run.lateFinishAt = input.finishedAt;
        }
      }
    }
    return snapshot(run);
  }

  async requestCancel(runId: string, at?: number): Promise<StoredRun> {
    this.#open();
    const when = checkRequestCancelAt(at, this.#clock());
    const run = this.#run(runId);
    if (run.cancelRequestedAt === null) {
      run.cancelRequestedAt = when;
      if (run.status === RunStatus.RUNNING) for (const listener of [...this.#state.cancelListeners]) listener(run.id);
    }
    return snapshot(run);
  }

  async heartbeat(runId: string, at?: number): Promise<void> {
    this.#open();
    const when = checkHeartbeatAt(at, this.#clock());
    const run = this.#find(runId);
    // never moves back: a late or out-of-order heartbeat leaves the later sign of life
    if (run !== undefined && run.status === RunStatus.RUNNING) run.heartbeatAt = Math.max(run.heartbeatAt ?? when, when);
  }

  async recoverInterrupted(staleBefore: number): Promise<readonly string[]> {
    this.#open();
    const stale = checkStaleBefore(staleBefore);
    const now = this.#clock();
    const recovered: string[] = [];
    for (const run of this.#state.runs.values()) {
      if (run.status !== RunStatus.RUNNING) continue;
      const lastSign = run.heartbeatAt ?? run.startedAt ?? run.createdAt;
      if (lastSign < stale) {
        run.status = run.cancelRequestedAt === null ? RunStatus.INTERRUPTED : RunStatus.CANCELLED;
        run.finishedAt = Math.max(now, lastSign);
        run.terminationReason = recoveryReason(lastSign, run.cancelRequestedAt !== null);
        recovered.push(run.id);
      }
    }
    return recovered;
  }

  async getRun(runId: string): Promise<StoredRun | null> {
    this.#open();
    const run = this.#find(runId);
    return run === undefined ? null : snapshot(run);
  }

  async listRuns(query?: RunQuery): Promise<RunPage> {
    this.#open();
    const q = checkRunQuery(query);
    const matching: MutableRun[] = [];
    for (const run of this.#state.runs.values()) {
      if (!isKept(run, q)) continue;
      if (q.after !== null && compareNewestFirst(run, q.after) <= 0) continue;
      matching.push(run);
    }
    matching.sort(compareNewestFirst);
    return pageOfRuns(matching, q.limit, snapshot);
  }

  /** How many runs a listing with these filters holds, and their tokens (see {@link SearchingRunStore.runTotals}). */
  async runTotals(query?: RunTotalsQuery): Promise<RunTotals> {
    this.#open();
    // checked as a listing's query; a cursor or limit given anyway is not applied (the type leaves them out)
    const { filters, upTo } = checkRunTotalsQuery(query);
    let runs = 0;
    let tokens = 0;
    for (const run of this.#state.runs.values()) {
      if (!isKept(run, filters)) continue;
      // one past upTo: more match than are counted
      if (runs === upTo) return { runs, tokens, complete: false };
      runs += 1;
      tokens += run.tokens;
    }
    return { runs, tokens, complete: true };
  }

  /** One server's ended tool calls, newest first (see {@link SearchingRunStore.listToolCalls}). */
  async listToolCalls(query: ToolCallQuery): Promise<ToolCallPage> {
    this.#open();
    const q = checkToolCallQuery(query);
    const rows: StoredToolCall[] = [];
    for (const run of this.#state.runs.values()) {
      for (const call of run.calls) {
        if (call.server !== q.server) continue;
        if (q.outcome !== null && call.outcome !== q.outcome) continue;
        if (q.since !== null && call.createdAt < q.since) continue;
        if (q.until !== null && call.createdAt >= q.until) continue;
        if (q.after !== null && compareCallsNewestFirst(call, q.after) <= 0) continue;
        rows.push(call as StoredToolCall);
      }
    }
    rows.sort(compareCallsNewestFirst);
    return toolCallPageOf(rows.slice(0, q.limit + 1), q.limit);
  }

  /** The ids of the runs whose id starts with `prefix` (see {@link SearchingRunStore.findRunIdsByPrefix}). */
  async findRunIdsByPrefix(prefix: string, limit?: number): Promise<readonly string[]> {
    this.#open();
    const q = checkRunIdPrefix(prefix, limit);
    if (q.prefix === null) return [];
    const ids: string[] = [];
    for (const id of this.#state.runs.keys()) if (id.startsWith(q.prefix)) ids.push(id);
    return ids.sort().slice(0, q.limit);
  }

  async readSteps(runId: string, query?: StepQuery): Promise<readonly StoredStep[]> {
    this.#open();
    const q = checkStepQuery(query);
    const run = this.#find(runId);
    if (run === undefined) return [];
    const end = q.limit === null ? run.steps.length : q.fromSequence + q.limit;
    return run.steps.slice(q.fromSequence, end);
  }

  /** The calls on the wire of a run (see {@link OpenCallsRunStore.readOpenCalls}); the reference: it folds the run's steps. */
  async readOpenCalls(runId: string): Promise<OpenCallsRead | null> {
    this.#open();
    checkRunId(runId);
    const run = this.#find(runId);
    if (run === undefined) return null;
    const open = new OpenCallSet<StoredStep>();
    for (const step of run.steps) open.add(step, step);
    return { starts: open.values(), readTo: run.steps.length, endedFirst: open.endedFirst() };
  }

  async serverHealth(query?: ServerHealthQuery): Promise<readonly ServerHealth[]> {
    this.#open();
    const state = this.#state;
    function* rows(): Generator<StoredStep> {
      for (const run of state.runs.values()) yield* run.steps;
    }
    return serverHealth(rows(), query);
  }

  watchCancel(runId: string, onCancel: () => void): () => void {
    this.#open();
    const key = checkRunId(runId);
    let done = false;
    const fire = (): void => {
      if (done) return;
      stop();
      onCancel();
    };
    const listener = (id: string): void => {
      if (id === key) queueMicrotask(fire);
    };
    const stop = (): void => {
      done = true;
      this.#state.cancelListeners.delete(listener);
      this.#watchers.delete(stop);
    };
    this.#state.cancelListeners.add(listener);
    this.#watchers.add(stop);
    const run = this.#find(runId);
    if (run !== undefined && run.cancelRequestedAt !== null && !isLateCancel(run)) queueMicrotask(fire);
    return stop;
  }

  async importRun(run: StoredRun, steps: readonly StoredStep[]): Promise<boolean> {
    this.#open();
    // from here on: the run and steps as checked, the way every store writes them
    ({ run, steps } = checkImportRun(run, steps));
    const id = run.id.toLowerCase();
    if (this.#state.runs.has(id)) return false;
    const record: MutableRun = {
      id,
      status: run.status,
      configuration: run.configuration,
      actor: run.actor ?? null,
      title: run.title ?? null,
      createdAt: run.createdAt,
      startedAt: run.startedAt ?? null,
      finishedAt: run.finishedAt ?? null,
      terminationReason: run.terminationReason ?? null,
      cancelRequestedAt: run.cancelRequestedAt ?? null,
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
    this.#state.runs.set(id, record);
    return true;
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
    for (const stop of [...this.#watchers]) stop();
  }

  #open(): void {
    if (this.#closed) throw RunStoreError.storageFailure('the store is closed');
  }

  /** The run of an id checked by the input rule (any case of its UUID), or undefined. */
  #find(runId: string): MutableRun | undefined {
    const key = checkRunId(runId);
    return key === null ? undefined : this.#state.runs.get(key);
  }

  #run(runId: string): MutableRun {
    const run = this.#find(runId);
    if (run === undefined) throw RunStoreError.runNotFound(runId);
    return run;
  }
}
