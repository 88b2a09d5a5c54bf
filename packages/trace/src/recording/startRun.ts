import type { PrivacyLevel } from '../privacy/PrivacyLevel.js';
import { isRetryable, type RecordRetryOptions, retryPolicy, withRetry } from '../store/RecordRetry.js';
import { RunFinishRefusedError } from './RunFinishRefusedError.js';
import { RunLedger } from './RunLedger.js';
import { defaultSpoolDir, SpoolWriter } from '../spool/RunSpool.js';
import { RunStoreError } from '../store/RunStoreError.js';
import { storableText } from '../store/storeValueRules.js';
import { type CancelRequestInput, CancelRequestSource, cancelReasonLine } from '../store/CancelRequest.js';
import { checkCancelRequest } from '../store/CancelRequest.js';
import { RunCancelledError, type RunCancelSource } from './RunCancelledError.js';
import type { RunStep } from '../step/RunStep.js';
import { RunStatus, type TerminalRunStatus } from '../step/RunStatus.js';
import { type RunTermination, RunTerminationKind, runTerminationText } from '../step/RunTerminationReason.js';
import type { RunStore, StoredRun, StoredStep } from '../store/RunStore.js';
import { RunTrace } from './RunTrace.js';
import { checkKeepSteps } from './StepWindow.js';
import { checkReadRunSteps, type ReadRunStepsOptions, readRunSteps } from './readRunSteps.js';
import { unboundedWarnAt, warnUnboundedTrace } from './unboundedTraceWarning.js';

/**
 * Options of {@link startRun}.
 *
 * @public
 */
export interface StartRunOptions {
  /** The name of the agent configuration the run uses. */
  readonly configuration: string;
  /** Who started the run. */
  readonly actor?: string | null;
  /**
   * A readable title the runs list and the run page show (say, what the agent was asked to do):
   * 1 to 200 characters, no control characters; absent or null for none.
   */
  readonly title?: string | null;
  /** A UUID for the run; the store makes one when absent. */
  readonly id?: string;
  /** What of each step's content is stored; default `metadata`. */
  readonly privacy?: PrivacyLevel;
  /**
   * Also poll the store for a cancel request every this many ms, beside `store.watchCancel`
   * (which pushes or polls on its own); default: no extra polling.
   */
  readonly cancelPollMs?: number;
  /** Send a heartbeat every this many ms; default 10 000; 0 sends none. */
  readonly heartbeatMs?: number;
  /**
   * After a cancel, how long the agent loop has to wind down (so the cancelled call's step is
   * recorded) before the run is ended `cancelled` anyway; default 10 000 ms.
   */
  readonly cancelGraceMs?: number;
  /**
   * Told about a step that was lost: it could be neither stored (after the retries) nor
   * spooled. Default: a line on stderr. The run's `unstoredSteps` counts these steps either way.
   */
  readonly onRecordError?: (error: unknown, step: RunStep) => void;
  /** How a failed store write is retried before it goes to the spool; see {@link RecordRetryOptions}. */
  readonly retry?: RecordRetryOptions;
  /**
   * The folder of this process's spool file, where steps and the final status wait while the
   * store cannot take them (see docs/reliability.md); `false` for no spool (a step that cannot be
   * stored is then lost, loudly). Default {@link defaultSpoolDir}.
   */
  readonly spoolDir?: string | false;
  /**
   * Told about a background failure (heartbeat, cancel marking, polling), and once about a final
   * status the store refused for good (a {@link RunFinishRefusedError}; without `onError`, that
   * one is a line on stderr).
   */
  readonly onError?: (error: unknown) => void;
  /** The clock for step times and the run's own (created, and finished: when its status was decided); default `Date.now`. */
  readonly clock?: () => number;
  /**
   * How many of the latest steps `run.trace.steps` holds in memory (the store holds them all):
   * a non-negative integer, or `Infinity` for every step. Set it for a long run, so the
   * process's memory stays flat however many steps it records; read every step back with
   * {@link ActiveRun.readSteps}.
   *
   * @remarks
   * Default: every step (`Infinity`), as before. A run that records 100 000 steps without this
   * option set emits a `RUNLEDGER_UNBOUNDED_TRACE` warning, once per process: the next major
   * release is planned to default to a window (see docs/deprecations.md). Set `Infinity` to
   * keep every step without the warning.
   */
  readonly keepSteps?: number;
}

/**
 * Who cancels a run through {@link ActiveRun.cancel}, and from where.
 *
 * @public
 */
export interface RunCancelOptions {
  /** Who asked: 1 to 200 characters, no control characters; absent or null when unknown. */
  readonly requestedBy?: string | null;
  /** Where the request came from; default `api` (`signal` for a Ctrl+C the program caught). */
  readonly from?: CancelRequestSource;
}

/**
 * A run in progress: its signal, its trace (wired to the store) and the calls that end it.
 *
 * @remarks
 * Terminal is terminal: the first of `complete()`, `fail()` or a cancel decides the status,
 * and later calls return the same finished run. After a cancel, `complete()` and `fail()` end
 * the run `cancelled`.
 *
 * @public
 */
export interface ActiveRun {
  /** The run's UUID. */
  readonly id: string;
  /** Aborted when the run is cancelled, here or through the store; its reason is a {@link RunCancelledError}. */
  readonly signal: AbortSignal;
  /** Records the run's steps; each one is appended to the store in record order. */
  readonly trace: RunTrace;
  /** The status as this process knows it. */
  readonly status: RunStatus;
  /** True once a cancel was requested, here or through the store. */
  readonly cancelRequested: boolean;
  /**
   * Cancels the run: aborts its signal with a {@link RunCancelledError} and marks the cancel in
   * the store, with who asked, from where (default `api`) and the reason (see
   * {@link StoredRun.cancelRequest}). Resolves once both are done; idempotent.
   *
   * @remarks
   * The reason is the run's termination as given; the request keeps it as one line (control
   * characters as spaces, at most 500 characters). Rejects with an `invalid_input`
   * {@link RunStoreError}, cancelling nothing, when `options` breaks its rule.
   */
  cancel(reason?: string, options?: RunCancelOptions): Promise<void>;
  /**
   * Ends the run `completed` (or `cancelled` after a cancel, here or in the store) once its
   * steps are stored; the final status is retried like a step.
   *
   * @remarks
   * Rejects with a `storage_failure` {@link RunStoreError} when the final status could not be
   * stored within the retry budget: it then waits in the spool (delivered in the background, or
   * by `runledger spool deliver`), and calling again tries again. A run whose final status is
   * never stored is marked `interrupted` by recovery once its heartbeats stop. The status is stored
   * with the time it was decided (this call), however late it reaches the store. When the store
   * refuses it for good (the run is gone: pruned, or a wrong store), this call, every later one
   * and `finished` reject with one {@link RunFinishRefusedError}.
   */
  complete(): Promise<StoredRun>;
  /** Ends the run `failed` (or `cancelled` after a cancel); like {@link ActiveRun.complete}. */
  fail(error: unknown): Promise<StoredRun>;
  /**
   * Resolves with the run as stored when its final status reached the store (a run that recovery
   * ended meanwhile shows it as `lateFinishStatus`); rejects with a {@link RunFinishRefusedError}
   * when the store refused it for good.
   */
  readonly finished: Promise<StoredRun>;
  /**
   * Reads the run's steps back from the store, in sequence order, a page at a time, so a run
   * whose trace keeps only a window (`keepSteps`) can still be read whole.
   *
   * @remarks
   * First waits for the steps recorded so far to settle (`trace.flush()`), then pages through
   * `store.readSteps(id, { fromSequence, limit: pageSize })` until a page comes back short.
   * The steps are as stored: after the privacy filter. A step still waiting in the spool, or
   * lost, is not there yet (or at all) — `trace.stepCount` counts it, the store does not.
   *
   * @throws TypeError from `ActiveRun.readSteps` when an option is not a number; RangeError when
   * `fromSequence` is not a non-negative integer or `pageSize` not a positive one (default 1 000).
   */
  readSteps(options?: ReadRunStepsOptions): AsyncIterable<StoredStep>;
}

const DEFAULT_HEARTBEAT_MS = 10_000;
const DEFAULT_CANCEL_GRACE_MS = 10_000;
const OPERATOR_CANCEL: RunTermination = Object.freeze({ kind: RunTerminationKind.OPERATOR_CANCEL });
const STORE_CANCEL: RunTermination = Object.freeze({ kind: RunTerminationKind.STORE_CANCEL });

/**
 * Creates a run in the store and returns it running, with its signal, trace and heartbeat.
 *
 * @throws RunStoreError from `startRun` when the store refuses the run; RangeError when an
 * interval option is negative or `keepSteps` is neither a non-negative integer nor Infinity;
 * TypeError when `keepSteps` is not a number.
 * @public
 */
export async function startRun(store: RunStore, options: StartRunOptions): Promise<ActiveRun> {
  for (const key of ['cancelPollMs', 'heartbeatMs', 'cancelGraceMs'] as const) {
    const value = options[key];
    if (value !== undefined && (!Number.isFinite(value) || value < 0)) {
      throw new RangeError(`StartRunOptions.${key} must be a finite number ≥ 0, got ${String(value)}`);
    }
  }
  if (options.keepSteps !== undefined) checkKeepSteps(options.keepSteps, 'StartRunOptions.keepSteps');
  const retry = retryPolicy(options.retry, 'StartRunOptions.retry');
  const spoolDir = options.spoolDir ?? defaultSpoolDir();
  if (spoolDir !== false && (typeof spoolDir !== 'string' || spoolDir === '')) {
    throw new RangeError(`StartRunOptions.spoolDir must be a folder path or false, got ${JSON.stringify(spoolDir)}`);
  }
  const clock = options.clock ?? Date.now;
  const input = {
    id: options.id ?? crypto.randomUUID(),
    configuration: options.configuration,
    actor: options.actor ?? null,
    title: options.title ?? null,
    createdAt: clock(),
  };
  // retried like a step; a retry that finds the run made by an earlier try (whose answer was
  // lost) takes it
  let tries = 0;
  const stored = await withRetry(retry, async () => {
    tries++;
    try {
      return await store.createRun(input);
    } catch (error) {
      if (tries > 1 && RunStoreError.is(error) && error.code === 'invalid_input') {
        const made = await store.getRun(input.id);
        if (made !== null && made.createdAt === input.createdAt && made.configuration === input.configuration) return made;
      }
      throw error;
    }
  });
  const report = options.onRecordError ?? reportLoss;
  const ledger = new RunLedger<RunStep>({
    store,
    runId: stored.id,
    retry,
    spool: spoolDir === false ? null : SpoolWriter.forDir(spoolDir),
    // a spooled step the store refused at delivery: reported like a step lost while recorded
    onLost: (error, step) => {
      if (step !== null) report(error, step);
    },
  });
  return new LiveRun(store, stored.id, options, clock, ledger);
}

/** The default loss report: one line on stderr. */
function reportLoss(error: unknown, step: RunStep): void {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`runledger: a ${step.kind} step was NOT stored (counted on the run as unstored): ${message}\n`);
}

class LiveRun implements ActiveRun {
  readonly id: string;
  readonly trace: RunTrace;
  readonly finished: Promise<StoredRun>;
  readonly #store: RunStore;
  readonly #controller = new AbortController();
  readonly #onError: (error: unknown) => void;
  readonly #graceMs: number;
  readonly #clock: () => number;
  readonly #ledger: RunLedger<RunStep>;
  #heartbeat: ReturnType<typeof setInterval> | null = null;
  #status: RunStatus = RunStatus.RUNNING;
  #cancelReason: RunTermination | null = null;
  #cancelling: Promise<void> | null = null;
  /** The first decision of how the run ends; later calls end it the same way. */
  #decided: { readonly status: TerminalRunStatus; readonly termination: RunTermination | null; readonly at: number } | null = null;
  #finishing: Promise<StoredRun> | null = null;
  #spooledFinish: string | null = null;
  #stored: StoredRun | null = null;
  #resolve!: (run: StoredRun) => void;
  #reject!: (error: RunFinishRefusedError) => void;
  /** The final status the store refused for good: every later call settles with it. */
  #refused: RunFinishRefusedError | null = null;
  readonly #reportRefused: (error: RunFinishRefusedError) => void;
  readonly #timers: ReturnType<typeof setTimeout>[] = [];
  readonly #stopWatch: () => void;

  constructor(store: RunStore, id: string, options: StartRunOptions, clock: () => number, ledger: RunLedger<RunStep>) {
    this.id = id;
    this.#store = store;
    this.#ledger = ledger;
    ledger.onFinishDelivered((run) => this.#ended(run));
    ledger.onFinishRefused((error) => this.#refuse(error));
    this.#onError = options.onError ?? (() => undefined);
    this.#reportRefused = options.onError ?? ((error) => process.stderr.write(`runledger: ${error.message}\n`));
    this.#graceMs = options.cancelGraceMs ?? DEFAULT_CANCEL_GRACE_MS;
    this.#clock = clock;
    this.finished = new Promise<StoredRun>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    // a caller that never awaits `finished` gets no unhandled rejection (the refusal is reported)
    this.finished.catch(() => undefined);
    // unbounded because nobody chose: told once, at a count where it starts to matter
    const warnCount = unboundedWarnAt();
    const warnAt = options.keepSteps === undefined ? warnCount - 1 : -1;
    this.trace = RunTrace.create({
      ...(options.privacy === undefined ? {} : { privacy: options.privacy }),
      ...(options.keepSteps === undefined ? {} : { keepSteps: options.keepSteps }),
      onRecordError: options.onRecordError ?? reportLoss,
      clock,
      onRecord: (step, record) => {
        const appended = ledger.append(
          {
            kind: step.kind,
            round: step.round,
            durationMs: step.durationMs,
            createdAt: record.recordedAt,
            payload: record.payload,
            toolServer: step.toolServer ?? null,
            toolOutcome: step.toolOutcome ?? null,
            sequence: 0, // set by the ledger
          },
          step,
        );
        if (record.index === warnAt) warnUnboundedTrace(warnCount);
        return appended;
      },
    });
    this.#stopWatch = store.watchCancel(id, () => void this.#cancel(STORE_CANCEL, 'store')); // #cancel never rejects (store errors go to onError)
    const heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
    if (heartbeatMs > 0) {
      // kept until the final status is stored: a run whose finish waits in the spool is not stale
      this.#heartbeat = setInterval(() => void store.heartbeat(id).catch(this.#onError), heartbeatMs);
      this.#heartbeat.unref?.();
    }
    const pollMs = options.cancelPollMs;
    if (pollMs !== undefined && pollMs > 0) {
      this.#every(pollMs, () =>
        store.getRun(id).then((run) => {
          if (run !== null && run.cancelRequestedAt !== null) void this.#cancel(STORE_CANCEL, 'store');
        }, this.#onError),
      );
    }
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get status(): RunStatus {
    return this.#status;
  }

  get cancelRequested(): boolean {
    return this.#cancelReason !== null;
  }

  readSteps(options: ReadRunStepsOptions = {}): AsyncIterable<StoredStep> {
    const query = checkReadRunSteps(options);
    return readRunSteps(this.#store, this.id, this.trace, query);
  }

  cancel(reason?: string, options: RunCancelOptions = {}): Promise<void> {
    let request: CancelRequestInput;
    try {
      const asked = { from: options.from ?? CancelRequestSource.API, by: options.requestedBy ?? null };
      checkCancelRequest(asked);
      request = { ...asked, reason: reason === undefined ? null : cancelReasonLine(reason) };
    } catch (error) {
      return Promise.reject(error);
    }
    const termination = reason === undefined ? OPERATOR_CANCEL : { kind: RunTerminationKind.OTHER, text: reason };
    return this.#cancel(termination, 'local', request);
  }

  complete(): Promise<StoredRun> {
    return this.#finish(this.#cancelReason !== null ? RunStatus.CANCELLED : RunStatus.COMPLETED, this.#cancelReason);
  }

  fail(error: unknown): Promise<StoredRun> {
    if (this.#cancelReason !== null || (RunCancelledError.is(error) && error === this.#controller.signal.reason)) {
      return this.#finish(RunStatus.CANCELLED, this.#cancelReason);
    }
    const reason = error instanceof Error ? error.message : typeof error === 'string' ? error : String(error);
    return this.#finish(RunStatus.FAILED, { kind: RunTerminationKind.OTHER, text: reason });
  }

  #cancel(termination: RunTermination, source: RunCancelSource, request?: CancelRequestInput): Promise<void> {
    if (this.#cancelling !== null) return this.#cancelling;
    if (this.#finishing !== null) return Promise.resolve();
    this.#cancelReason = termination;
    const reason = runTerminationText(termination);
    const at = this.#clock();
    this.#controller.abort(new RunCancelledError(this.id, reason, source));
    const grace = setTimeout(() => void this.#finish(RunStatus.CANCELLED, termination).catch(() => undefined), this.#graceMs);
    grace.unref?.();
    this.#timers.push(grace);
    this.#cancelling =
      source === 'local'
        ? this.#store.requestCancel(this.id, at, request).then(
            () => undefined,
            (error: unknown) => this.#onError(error),
          )
        : Promise.resolve();
    return this.#cancelling;
  }

  #finish(status: TerminalRunStatus, termination: RunTermination | null): Promise<StoredRun> {
    if (this.#stored !== null) return Promise.resolve(this.#stored);
    if (this.#refused !== null) return Promise.reject(this.#refused);
    if (this.#finishing !== null) return this.#finishing;
    if (this.#decided === null) {
      // the time it ended is now, however late the status reaches the store (it is spooled with it)
      const stored =
        termination?.kind === RunTerminationKind.OTHER ? { ...termination, text: storableText(termination.text) } : termination;
      this.#decided = { status, termination: stored, at: this.#clock() };
      this.#status = status;
      for (const timer of this.#timers) clearTimeout(timer);
      this.#stopWatch();
    }
    const decided = this.#decided;
    const attempt = (async () => {
      if (this.#cancelling !== null) await this.#cancelling;
      await this.trace.flush();
      if (this.#spooledFinish === null) {
        let outcome: Awaited<ReturnType<RunLedger<RunStep>['finish']>>;
        try {
          // the words too, for a store that keeps only them
          const { termination: data } = decided;
          const reason = data === null ? null : runTerminationText(data);
          outcome = await this.#ledger.finish({
            status: decided.status,
            finishedAt: decided.at,
            terminationReason: reason,
            termination: data,
          });
        } catch (error) {
          // refused for good (the run is gone): final, like a stored status
          if (!isRetryable(error)) throw this.#refuse(error);
          // neither stored nor spooled: no more heartbeats, so recovery ends the run once its
          // process is gone (calling again tries again)
          this.#stopHeartbeat();
          throw error;
        }
        if ('stored' in outcome) return this.#ended(outcome.stored);
        this.#spooledFinish = outcome.spooled;
      } else {
        await this.#ledger.deliverNow();
        if (this.#stored !== null) return this.#stored;
        if (this.#refused !== null) throw this.#refused;
      }
      throw RunStoreError.storageFailure(
        `the final status of run ${this.id} ("${decided.status}") could not be stored yet; it waits in the spool file ${this.#spooledFinish} and is delivered when the store is back (or by \`runledger spool deliver\`)`,
      );
    })();
    this.#finishing = attempt;
    // a failed attempt is not final: the next call tries again
    attempt.then(undefined, () => {
      if (this.#finishing === attempt) this.#finishing = null;
    });
    return attempt;
  }

  #stopHeartbeat(): void {
    if (this.#heartbeat !== null) clearInterval(this.#heartbeat);
    this.#heartbeat = null;
  }

  /** Settles the run with the store's refusal of its final status, reported once; returns the error. */
  #refuse(cause: unknown): RunFinishRefusedError {
    if (this.#refused !== null) return this.#refused;
    const error = new RunFinishRefusedError(this.id, this.#decided!.status, cause);
    this.#refused = error;
    this.#stopHeartbeat();
    this.#reject(error);
    try {
      this.#reportRefused(error);
    } catch {
      // stays away from the loop
    }
    return error;
  }

  #ended(run: StoredRun): StoredRun {
    this.#stopHeartbeat();
    this.#stored = run;
    this.#status = run.status;
    this.#resolve(run);
    return run;
  }

  #every(ms: number, tick: () => unknown): void {
    const timer = setInterval(tick, ms);
    timer.unref?.();
    this.#timers.push(timer as unknown as ReturnType<typeof setTimeout>);
  }
}
