// The run ledger of an InMemoryRunStore (the sibling of store-sqlite's SqliteLedger and
// store-postgres's PostgresLedger): a run's life from createRun to its end and the reads of one run.
import { isLateCancel } from '../isLateCancel.js';
import { RunStatus } from '../../step/RunStatus.js';
import type { AppendStepInput, CreateRunInput, FinishRunInput, StepQuery, StoredRun, StoredStep } from '../RunStore.js';
import { RunStoreError } from '../RunStoreError.js';
import { type CancelRequestInput, checkCancelRequest } from '../CancelRequest.js';
import {
  checkAppendStep,
  checkCreateRun,
  checkFinishRun,
  checkHeartbeatAt,
  checkRequestCancelAt,
  checkRunId,
  checkStaleBefore,
  checkStepQuery,
  duplicateRunIdError,
  isSameStep,
  sequencePastEndError,
} from '../storeInputChecks.js';
import { RunTerminationKind } from '../../step/RunTerminationReason.js';
import { NO_TERMINATION, sameTermination, terminationColumns } from '../storedTermination.js';
import { OpenCallSet, type OpenCallsRead } from '../OpenCalls.js';
import { add, type InMemoryState, type MutableRun, snapshot } from './inMemoryRuns.js';

/**
 * The run-ledger methods of an InMemoryRunStore (the sibling of store-sqlite's SqliteLedger and
 * store-postgres's PostgresLedger) over the runs its peers share.
 *
 * @internal
 */
export class InMemoryLedger {
  readonly #state: InMemoryState;
  /** Refuses every use once its store is closed. */
  readonly #open: () => void;
  readonly #clock: () => number;
  readonly #watchers = new Set<() => void>();

  constructor(state: InMemoryState, open: () => void, clock: () => number) {
    this.#state = state;
    this.#open = open;
    this.#clock = clock;
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
      termination: NO_TERMINATION,
      cancelRequestedAt: null,
      cancelRequest: null,
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
    add(run, stored, input.payload);
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
      run.termination = cancelFirst ? input.cancelledTermination : input.termination;
      run.unstoredSteps += input.unstoredSteps;
    } else {
      // ended already: how it ended stays. The finish that ended it, again, changes nothing; any
      // other is late — its unstored steps count, and the first late one is kept.
      const ending =
        input.finishedAt === run.finishedAt &&
        (input.status === run.status ||
          (run.status === RunStatus.CANCELLED && sameTermination(run.termination, input.cancelledTermination)));
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

  async requestCancel(runId: string, at?: number, request?: CancelRequestInput): Promise<StoredRun> {
    this.#open();
    const when = checkRequestCancelAt(at, this.#clock());
    const asked = checkCancelRequest(request);
    const run = this.#run(runId);
    if (run.cancelRequestedAt === null) {
      run.cancelRequestedAt = when;
      run.cancelRequest = asked;
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
        run.termination = terminationColumns({
          kind: RunTerminationKind.NO_SIGN_OF_LIFE,
          since: lastSign,
          cancelRequested: run.cancelRequestedAt !== null,
        });
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

  /** Stops this store's cancel watches. */
  close(): void {
    for (const stop of [...this.#watchers]) stop();
  }

  /** The run of an id checked by the input rule (any case of its UUID), or undefined. */
  #find(runId: string): MutableRun | undefined {
    // a run's own id (every key is a checked, lowercase UUID) finds it without the UUID test; any other
    // value (another case, not a UUID, not a string) is checked as always
    const same = this.#state.runs.get(runId);
    if (same !== undefined) return same;
    const key = checkRunId(runId);
    return key === null ? undefined : this.#state.runs.get(key);
  }

  #run(runId: string): MutableRun {
    const run = this.#find(runId);
    if (run === undefined) throw RunStoreError.runNotFound(runId);
    return run;
  }
}
