import type { PrivacyLevel } from './PrivacyLevel.js';
import { RunCancelledError, type RunCancelSource } from './RunCancelledError.js';
import type { RunStep } from './RunStep.js';
import { RunStatus, type TerminalRunStatus } from './RunStatus.js';
import type { RunStore, StoredRun } from './RunStore.js';
import { RunTrace } from './RunTrace.js';

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
  /** Told about a record hook failure kept away from the agent loop. */
  readonly onRecordError?: (error: unknown, step: RunStep) => void;
  /** Told about a background failure (heartbeat, cancel marking, polling). */
  readonly onError?: (error: unknown) => void;
  /** The clock for step times; default `Date.now`. */
  readonly clock?: () => number;
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
   * the store. Resolves once both are done; idempotent.
   */
  cancel(reason?: string): Promise<void>;
  /** Ends the run `completed` (or `cancelled` after a cancel) once its steps are stored. */
  complete(): Promise<StoredRun>;
  /** Ends the run `failed` (or `cancelled` after a cancel) once its steps are stored. */
  fail(error: unknown): Promise<StoredRun>;
  /** Resolves with the run as stored when it ended. */
  readonly finished: Promise<StoredRun>;
}

const DEFAULT_HEARTBEAT_MS = 10_000;
const DEFAULT_CANCEL_GRACE_MS = 10_000;

/**
 * Creates a run in the store and returns it running, with its signal, trace and heartbeat.
 *
 * @throws RunStoreError from `startRun` when the store refuses the run; RangeError when an
 * interval option is negative.
 * @public
 */
export async function startRun(store: RunStore, options: StartRunOptions): Promise<ActiveRun> {
  for (const key of ['cancelPollMs', 'heartbeatMs', 'cancelGraceMs'] as const) {
    const value = options[key];
    if (value !== undefined && (!Number.isFinite(value) || value < 0)) {
      throw new RangeError(`StartRunOptions.${key} must be a finite number ≥ 0, got ${String(value)}`);
    }
  }
  const clock = options.clock ?? Date.now;
  const stored = await store.createRun({
    ...(options.id === undefined ? {} : { id: options.id }),
    configuration: options.configuration,
    actor: options.actor ?? null,
    createdAt: clock(),
  });
  return new LiveRun(store, stored.id, options, clock);
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
  #status: RunStatus = RunStatus.RUNNING;
  #cancelReason: string | null = null;
  #cancelling: Promise<void> | null = null;
  #finishing: Promise<StoredRun> | null = null;
  #resolve!: (run: StoredRun) => void;
  #reject!: (error: unknown) => void;
  readonly #timers: ReturnType<typeof setTimeout>[] = [];
  readonly #stopWatch: () => void;

  constructor(store: RunStore, id: string, options: StartRunOptions, clock: () => number) {
    this.id = id;
    this.#store = store;
    this.#onError = options.onError ?? (() => undefined);
    this.#graceMs = options.cancelGraceMs ?? DEFAULT_CANCEL_GRACE_MS;
    this.#clock = clock;
    this.finished = new Promise<StoredRun>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    this.finished.catch(() => undefined);
    this.trace = RunTrace.create({
      ...(options.privacy === undefined ? {} : { privacy: options.privacy }),
      ...(options.onRecordError === undefined ? {} : { onRecordError: options.onRecordError }),
      clock,
      onRecord: async (step, record) => {
        await store.appendStep(id, {
          kind: step.kind,
          round: step.round,
          durationMs: step.durationMs,
          createdAt: record.recordedAt,
          payload: record.payload,
          toolServer: step.toolServer ?? null,
          toolOutcome: step.toolOutcome ?? null,
        });
      },
    });
    this.#stopWatch = store.watchCancel(id, () => this.#cancel('cancel requested through the store', 'store'));
    const heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
    if (heartbeatMs > 0) {
      this.#every(heartbeatMs, () => store.heartbeat(id).catch(this.#onError));
    }
    const pollMs = options.cancelPollMs;
    if (pollMs !== undefined && pollMs > 0) {
      this.#every(pollMs, () =>
        store.getRun(id).then((run) => {
          if (run !== null && run.cancelRequestedAt !== null) void this.#cancel('cancel requested through the store', 'store');
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

  cancel(reason = 'cancelled by the operator'): Promise<void> {
    return this.#cancel(reason, 'local');
  }

  complete(): Promise<StoredRun> {
    return this.#finish(this.#cancelReason !== null ? RunStatus.CANCELLED : RunStatus.COMPLETED, this.#cancelReason);
  }

  fail(error: unknown): Promise<StoredRun> {
    if (this.#cancelReason !== null || (RunCancelledError.is(error) && error === this.#controller.signal.reason)) {
      return this.#finish(RunStatus.CANCELLED, this.#cancelReason);
    }
    const reason = error instanceof Error ? error.message : typeof error === 'string' ? error : String(error);
    return this.#finish(RunStatus.FAILED, reason);
  }

  #cancel(reason: string, source: RunCancelSource): Promise<void> {
    if (this.#cancelling !== null) return this.#cancelling;
    if (this.#finishing !== null) return Promise.resolve();
    this.#cancelReason = reason;
    const at = this.#clock();
    this.#controller.abort(new RunCancelledError(this.id, reason, source));
    const grace = setTimeout(() => void this.#finish(RunStatus.CANCELLED, reason).catch(() => undefined), this.#graceMs);
    grace.unref?.();
    this.#timers.push(grace);
    this.#cancelling =
      source === 'local'
        ? this.#store.requestCancel(this.id, at).then(
            () => undefined,
            (error: unknown) => this.#onError(error),
          )
        : Promise.resolve();
    return this.#cancelling;
  }

  #finish(status: TerminalRunStatus, reason: string | null): Promise<StoredRun> {
    if (this.#finishing !== null) return this.#finishing;
    this.#status = status;
    this.#finishing = (async () => {
      for (const timer of this.#timers) clearTimeout(timer);
      this.#stopWatch();
      if (this.#cancelling !== null) await this.#cancelling;
      await this.trace.flush();
      const run = await this.#store.finishRun(this.id, { status, terminationReason: reason });
      this.#status = run.status;
      return run;
    })();
    this.#finishing.then(this.#resolve, this.#reject);
    return this.#finishing;
  }

  #every(ms: number, tick: () => unknown): void {
    const timer = setInterval(tick, ms);
    timer.unref?.();
    this.#timers.push(timer as unknown as ReturnType<typeof setTimeout>);
  }
}
