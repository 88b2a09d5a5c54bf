import { isRetryable, type RetryPolicy, retryDelay, sleep, withRetry } from '../store/RecordRetry.js';
import type { SpoolEntry, SpoolWriter } from '../spool/RunSpool.js';
import type { AppendStepInput, FinishRunInput, RunStore, StoredRun } from '../store/RunStore.js';
import { RunStoreError } from '../store/RunStoreError.js';
import { checkAppendStep } from '../store/storeInputChecks.js';

/** How often a process tries to deliver its spooled entries: from this … */
const FIRST_DELIVERY_MS = 200;
/** … doubling up to this. */
const MAX_DELIVERY_MS = 5_000;

/** What became of a final status. */
export type FinishOutcome = { readonly stored: StoredRun } | { readonly spooled: string };

/**
 * A step as the ledger takes it: the store's input, made for this append alone (the ledger sets
 * its `sequence`, so no copy is made per try), and what a loss report names.
 */
type LedgerInput = { -readonly [K in keyof AppendStepInput]: AppendStepInput[K] };

/** A spooled entry waiting for delivery, with the tag of its step. */
type Pending<Tag> = { readonly entry: SpoolEntry; readonly tag: Tag | null; readonly lostBefore: number };

/**
 * Writes one run's steps and final status to its store so that nothing is lost silently.
 *
 * @remarks
 * Each step names its sequence, so a retry after an answer that never came cannot store it twice.
 * A write that fails for a reason waiting may fix is retried with back-off (each try with its own
 * deadline: a connection that went silent counts as a failed try); past the budget the step goes
 * to the process's spool (fsynced), and so does every later step of the run, in order, until a
 * background delivery has handed the spooled ones to the store. A step that can be neither stored
 * nor spooled, or that the store refuses for good, is lost and counted for the run's final status:
 * while it is recorded its record call rejects (the recorder reports it); at a later delivery
 * `onLost` is told; the next step first reads the run's step
 * count again, so one loss never takes the steps after it along. All writes of a run are serial.
 */
export class RunLedger<Tag> {
  readonly #store: RunStore;
  readonly #runId: string;
  readonly #retry: RetryPolicy;
  readonly #spool: SpoolWriter | null;
  readonly #onLost: (error: unknown, tag: Tag | null) => void;
  /** The sequence the next step gets … */
  #next = 0;
  /** … to be read again from the store first (after a loss, which may have been stored after all). */
  #verify = false;
  #lost = 0;
  /** Entries of this run in the spool, oldest first, not yet delivered. */
  readonly #pending: Pending<Tag>[] = [];
  #chain: Promise<unknown> = Promise.resolve();
  /** Operations running outside the chain (a fast append). */
  #busy = 0;
  /** The deadline timer of the current try, re-armed for each, and how to give that try up. */
  #deadline: ReturnType<typeof setTimeout> | null = null;
  #abandon: (() => void) | null = null;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #deliveryDelay = FIRST_DELIVERY_MS;
  #onFinishDelivered: ((run: StoredRun) => void) | null = null;
  #onFinishRefused: ((error: unknown) => void) | null = null;

  constructor(options: {
    store: RunStore;
    runId: string;
    retry: RetryPolicy;
    spool: SpoolWriter | null;
    onLost: (error: unknown, tag: Tag | null) => void;
  }) {
    this.#store = options.store;
    this.#runId = options.runId;
    this.#retry = options.retry;
    this.#spool = options.spool;
    this.#onLost = options.onLost;
  }

  /** Steps lost so far (reported through `onLost`, counted with the final status). */
  get lost(): number {
    return this.#lost;
  }

  /** Entries of this run waiting in the spool. */
  get spooled(): number {
    return this.#pending.length;
  }

  /** Called with the stored run when a spooled final status reaches the store. */
  onFinishDelivered(listener: (run: StoredRun) => void): void {
    this.#onFinishDelivered = listener;
  }

  /** Called with the store's refusal when it refuses a spooled final status for good (the run is gone). */
  onFinishRefused(listener: (error: unknown) => void): void {
    this.#onFinishRefused = listener;
  }

  /** Stores (or spools) a step; rejects with the reason only when it is lost (already reported). */
  append(input: LedgerInput, tag: Tag): Promise<void> {
    if (this.#busy > 0 || this.#pending.length > 0 || this.#verify) return this.#serial(() => this.#appendSlowly(input, tag, null));
    // The common case, kept cheap: nothing queued, nothing spooled; one try, then the slow path.
    const sequence = this.#next;
    this.#busy++;
    // one promise for the try and what follows it (the next append or #serial waits on it, whether it
    // fulfils or rejects: a rejection here is a loss its caller is told of)
    const result = this.#tryAppendThen(
      input,
      sequence,
      () => {
        this.#next = sequence + 1;
        this.#busy--;
      },
      // still this operation (what waits on the chain waits for it): not through #serial
      (error: unknown) => this.#appendSlowly(input, tag, { sequence, error }).finally(() => this.#busy--),
    );
    this.#chain = result;
    return result;
  }

  /** The retries (after a failed first try, when given), then the spool. */
  async #appendSlowly(input: LedgerInput, tag: Tag, failedFirst: { sequence: number; error: unknown } | null): Promise<void> {
    if (this.#pending.length === 0) {
      let sequence: number | null = failedFirst?.sequence ?? null;
      try {
        if (failedFirst !== null && !isRetryable(failedFirst.error)) throw failedFirst.error;
        if (failedFirst !== null) await sleep(retryDelay(this.#retry, 1));
        const attempts = failedFirst === null ? this.#retry.attempts : this.#retry.attempts - 1;
        if (attempts < 1) throw failedFirst!.error;
        await withRetry({ ...this.#retry, attempts, attemptTimeoutMs: 0 }, async () => {
          sequence ??= await this.#nextSequence();
          await this.#tryAppend(input, sequence);
        });
        this.#next = sequence! + 1;
        return;
      } catch (error) {
        if (!isRetryable(error) || this.#spool === null) return this.#lose(error, tag);
        // spooled at the sequence it was tried with (or, when the count could not be read, the best guess)
        if (sequence !== null) this.#next = sequence;
      }
    }
    const { sequence: _tried, ...step } = input;
    await this.#toSpool({ type: 'step', runId: this.#runId, sequence: this.#next, step }, tag);
    this.#next++;
  }

  /**
   * One try of an append at `sequence`, with the try's deadline: a store that does not answer
   * within `attemptTimeoutMs` fails the try (it may still complete: the next try names the same
   * sequence). One timer per ledger, re-armed for each try, keeps this cheap.
   */
  #tryAppend(input: LedgerInput, sequence: number): Promise<number> {
    const write = this.#write(input, sequence);
    const ms = this.#retry.attemptTimeoutMs;
    if (ms <= 0) return write;
    return new Promise<number>((resolve, reject) => {
      const abandon = (): void => reject(this.#unanswered(ms));
      this.#arm(abandon, ms);
      write.then(
        (value) => {
          if (this.#abandon === abandon) this.#abandon = null;
          resolve(value);
        },
        (error: unknown) => {
          if (this.#abandon === abandon) this.#abandon = null;
          reject(error);
        },
      );
    });
  }

  /**
   * {@link RunLedger.#tryAppend} followed by `then(onStored, onFailed)`, in one promise: the append
   * made on every step (the try's deadline, when it ends the try first, is a failure like the
   * store's own; an answer after it changes nothing).
   */
  #tryAppendThen(input: LedgerInput, sequence: number, onStored: () => void, onFailed: (error: unknown) => Promise<void>): Promise<void> {
    const write = this.#write(input, sequence);
    const ms = this.#retry.attemptTimeoutMs;
    if (ms <= 0) return write.then(onStored, onFailed);
    return new Promise<void>((resolve) => {
      let ended = false;
      const fail = (error: unknown): void => {
        if (ended) return;
        ended = true;
        if (this.#abandon === abandon) this.#abandon = null;
        resolve(onFailed(error));
      };
      const abandon = (): void => fail(this.#unanswered(ms));
      this.#arm(abandon, ms);
      write.then(() => {
        if (ended) return;
        ended = true;
        if (this.#abandon === abandon) this.#abandon = null;
        onStored();
        resolve();
      }, fail);
    });
  }

  /** The store's append of `input` at `sequence`, a store that throws instead of rejecting included. */
  #write(input: LedgerInput, sequence: number): Promise<number> {
    input.sequence = sequence;
    try {
      return this.#store.appendStep(this.#runId, input);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Arms the ledger's one deadline timer (re-armed for each try) to give up the current try with `abandon`. */
  #arm(abandon: () => void, ms: number): void {
    this.#abandon = abandon;
    if (this.#deadline === null) {
      this.#deadline = setTimeout(() => this.#abandon?.(), ms);
      this.#deadline.unref?.();
    } else {
      this.#deadline.refresh();
    }
  }

  #unanswered(ms: number): RunStoreError {
    return RunStoreError.storageFailure(`the store did not answer within ${ms} ms (StartRunOptions.retry.attemptTimeoutMs)`);
  }

  /** Stores the final status (after the steps), retried; spools it past the budget. */
  finish(finish: FinishRunInput): Promise<FinishOutcome> {
    return this.#serial(async () => {
      if (this.#pending.length > 0) await this.#deliver();
      // counted after the delivery: its losses belong to the run too
      const input = { ...finish, unstoredSteps: (finish.unstoredSteps ?? 0) + this.#lost };
      if (this.#pending.length === 0) {
        try {
          return { stored: await withRetry(this.#retry, () => this.#store.finishRun(this.#runId, input)) };
        } catch (error) {
          if (!isRetryable(error) || this.#spool === null) throw error;
        }
      }
      const path = await this.#toSpool({ type: 'finish', runId: this.#runId, finish: input }, null);
      return { spooled: path };
    });
  }

  /** Tries once, now, to hand the spooled entries to the store. */
  deliverNow(): Promise<void> {
    return this.#serial(() => this.#deliver());
  }

  /** Stops background delivery (the spool file keeps what is left). */
  stop(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    if (this.#deadline !== null) clearTimeout(this.#deadline);
    this.#deadline = null;
  }

  /** The next step's sequence; after a loss, the run's step count as the store has it now. */
  async #nextSequence(): Promise<number> {
    if (!this.#verify) return this.#next;
    const run = await this.#store.getRun(this.#runId);
    if (run === null) throw RunStoreError.runNotFound(this.#runId);
    this.#next = run.stepCount;
    this.#verify = false;
    return this.#next;
  }

  async #toSpool(entry: SpoolEntry, tag: Tag | null): Promise<string> {
    if (entry.type === 'step') {
      // what the store would refuse at delivery is refused (and reported) now
      try {
        checkAppendStep({ ...entry.step, sequence: entry.sequence });
      } catch (error) {
        return this.#lose(error, tag);
      }
    }
    let path: string;
    try {
      path = await this.#spool!.write(entry);
    } catch (error) {
      const lost = RunStoreError.storageFailure(
        `${entry.type === 'step' ? `step ${entry.sequence}` : 'the final status'} of run ${this.#runId} could not be stored, nor written to the spool in ${this.#spool!.dir}: ${messageOf(error)}`,
        error,
      );
      if (entry.type === 'finish') throw lost;
      return this.#lose(lost, tag);
    }
    this.#pending.push({ entry, tag, lostBefore: this.#lost });
    this.#schedule();
    return path;
  }

  /**
   * Counts a step lost while it was recorded and rejects with the reason, which the recorder
   * reports (`onRecordError`); the next step reads its sequence from the store again.
   */
  #lose(error: unknown, _tag: Tag | null): never {
    this.#lost++;
    this.#verify = true;
    throw error;
  }

  async #deliver(): Promise<void> {
    let delivered = 0;
    try {
      while (this.#pending.length > 0) {
        const { entry, tag, lostBefore } = this.#pending[0]!;
        if (entry.type === 'step') {
          try {
            await this.#store.appendStep(this.#runId, { ...entry.step, sequence: entry.sequence });
          } catch (error) {
            if (isRetryable(error)) throw error;
            // refused for good: reported and counted; the later steps move up one place, so the
            // run's sequences stay gap-free (and the next new step reads its sequence again)
            for (let i = 1; i < this.#pending.length; i++) {
              const later = this.#pending[i]!;
              if (later.entry.type === 'step')
                this.#pending[i] = { ...later, entry: { ...later.entry, sequence: later.entry.sequence - 1 } };
            }
            this.#next--;
            this.#lost++;
            try {
              this.#onLost(error, tag);
            } catch {
              // stays away from the loop
            }
          }
        } else {
          // losses counted since this final status was spooled belong to it too
          const finish = { ...entry.finish, unstoredSteps: (entry.finish.unstoredSteps ?? 0) + (this.#lost - lostBefore) };
          try {
            this.#onFinishDelivered?.(await this.#store.finishRun(this.#runId, finish));
          } catch (error) {
            if (isRetryable(error)) throw error;
            // refused for good (the run is gone): it will never be stored, and the run is told so
            try {
              this.#onFinishRefused?.(error);
            } catch {
              // stays away from the loop
            }
          }
        }
        this.#pending.shift();
        delivered++;
      }
      this.#deliveryDelay = FIRST_DELIVERY_MS;
    } catch {
      this.#schedule();
    } finally {
      if (delivered > 0) await this.#spool!.delivered(delivered);
    }
  }

  #schedule(): void {
    if (this.#timer !== null || this.#pending.length === 0) return;
    const delay = retryDelay({ attempts: 1, initialDelayMs: this.#deliveryDelay, maxDelayMs: MAX_DELIVERY_MS, attemptTimeoutMs: 0 }, 1);
    this.#deliveryDelay = Math.min(MAX_DELIVERY_MS, this.#deliveryDelay * 2);
    this.#timer = setTimeout(() => {
      this.#timer = null;
      void this.deliverNow();
    }, delay);
    // a process may end with entries spooled: the file keeps them for `runledger spool deliver`
    this.#timer.unref?.();
  }

  /** Runs `fn` after every operation before it has settled (fulfilled or rejected: the chain may hold a rejection its caller was given). */
  #serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = (): Promise<T> => fn();
    const result = this.#chain.then(next, next);
    this.#chain = result;
    return result;
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
