import { isRetryable, type RetryPolicy, retryDelay, withRetry } from './RecordRetry.js';
import type { SpoolEntry, SpoolWriter } from './RunSpool.js';
import type { AppendStepInput, FinishRunInput, RunStore, StoredRun } from './RunStore.js';
import { RunStoreError, RunStoreErrorCode } from './RunStoreError.js';

/** How often a process tries to deliver its spooled entries: from this … */
const FIRST_DELIVERY_MS = 200;
/** … doubling up to this. */
const MAX_DELIVERY_MS = 5_000;

/** What became of a final status. */
export type FinishOutcome = { readonly stored: StoredRun } | { readonly spooled: string };

/**
 * Writes one run's steps and final status to its store so that nothing is lost silently.
 *
 * @remarks
 * Each step names its sequence (the count of steps handed on before it), so a retry after an
 * answer that never came cannot store it twice. A write that fails for a reason waiting may fix
 * is retried with back-off; past the budget the step goes to the process's spool (fsynced), and
 * so does every later step of the run, in order, until a background delivery has handed the
 * spooled ones to the store. A step that can be neither stored nor spooled is lost: the error is
 * thrown (the recorder reports it) and the loss is counted for the run's final status. All writes
 * of a run are serial.
 */
export class RunLedger {
  readonly #store: RunStore;
  readonly #runId: string;
  readonly #retry: RetryPolicy;
  readonly #spool: SpoolWriter | null;
  /** The sequence the next step gets. */
  #next = 0;
  #lost = 0;
  /** Entries of this run in the spool, oldest first, not yet delivered. */
  readonly #pending: SpoolEntry[] = [];
  #chain: Promise<unknown> = Promise.resolve();
  #timer: ReturnType<typeof setTimeout> | null = null;
  #deliveryDelay = FIRST_DELIVERY_MS;
  #onFinishDelivered: ((run: StoredRun) => void) | null = null;

  constructor(store: RunStore, runId: string, retry: RetryPolicy, spool: SpoolWriter | null) {
    this.#store = store;
    this.#runId = runId;
    this.#retry = retry;
    this.#spool = spool;
  }

  /** Steps that could be neither stored nor spooled. */
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

  /** Stores (or spools) a step; rejects only when it is lost. */
  append(step: Omit<AppendStepInput, 'sequence'>): Promise<void> {
    return this.#serial(async () => {
      const sequence = this.#next++;
      if (this.#pending.length === 0) {
        try {
          await withRetry(this.#retry, () => this.#appendAt(step, sequence));
          return;
        } catch (error) {
          if (!isRetryable(error)) return this.#lose(error);
          if (this.#spool === null) return this.#lose(error);
        }
      }
      await this.#toSpool({ type: 'step', runId: this.#runId, sequence, step });
    });
  }

  /** Stores the final status (after the steps), retried; spools it past the budget. */
  finish(finish: FinishRunInput): Promise<FinishOutcome> {
    return this.#serial(async () => {
      const input = { ...finish, unstoredSteps: (finish.unstoredSteps ?? 0) + this.#lost };
      if (this.#pending.length > 0) await this.#deliver();
      if (this.#pending.length === 0) {
        try {
          return { stored: await withRetry(this.#retry, () => this.#store.finishRun(this.#runId, input)) };
        } catch (error) {
          if (!isRetryable(error) || this.#spool === null) throw error;
        }
      }
      const path = await this.#toSpool({ type: 'finish', runId: this.#runId, finish: input });
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
  }

  async #appendAt(step: Omit<AppendStepInput, 'sequence'>, sequence: number): Promise<void> {
    try {
      await this.#store.appendStep(this.#runId, { ...step, sequence });
    } catch (error) {
      // another writer took this sequence: go on after the run's last step
      if (RunStoreError.is(error) && error.code === RunStoreErrorCode.SEQUENCE_CONFLICT) {
        const run = await this.#store.getRun(this.#runId);
        if (run !== null && run.stepCount > sequence) {
          this.#next = run.stepCount + 1;
          await this.#store.appendStep(this.#runId, { ...step, sequence: run.stepCount });
          return;
        }
      }
      throw error;
    }
  }

  async #toSpool(entry: SpoolEntry): Promise<string> {
    let path: string;
    try {
      path = await this.#spool!.write(entry);
    } catch (error) {
      const lost = RunStoreError.storageFailure(
        `${entry.type === 'step' ? `step ${entry.sequence}` : 'the final status'} of run ${this.#runId} could not be stored, nor written to the spool in ${this.#spool!.dir}: ${messageOf(error)}`,
        error,
      );
      if (entry.type === 'finish') throw lost;
      this.#next--; // the sequence stays free: the run's steps stay gap-free
      return this.#lose(lost);
    }
    this.#pending.push(entry);
    this.#schedule();
    return path;
  }

  #lose(error: unknown): never {
    this.#lost++;
    throw error;
  }

  async #deliver(): Promise<void> {
    let delivered = 0;
    try {
      while (this.#pending.length > 0) {
        const entry = this.#pending[0]!;
        if (entry.type === 'step') {
          try {
            await this.#appendAt(entry.step, entry.sequence);
          } catch (error) {
            if (isRetryable(error)) throw error;
            this.#lost++; // refused for good: counted, and the rest goes on
          }
        } else {
          try {
            this.#onFinishDelivered?.(await this.#store.finishRun(this.#runId, entry.finish));
          } catch (error) {
            if (isRetryable(error)) throw error;
            // refused for good (the run is gone): recovery or the operator sees a run that did not end
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
    const delay = retryDelay({ attempts: 1, initialDelayMs: this.#deliveryDelay, maxDelayMs: MAX_DELIVERY_MS }, 1);
    this.#deliveryDelay = Math.min(MAX_DELIVERY_MS, this.#deliveryDelay * 2);
    this.#timer = setTimeout(() => {
      this.#timer = null;
      void this.deliverNow();
    }, delay);
    // a process may end with entries spooled: the file keeps them for `runledger spool deliver`
    this.#timer.unref?.();
  }

  #serial<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.#chain.then(fn);
    this.#chain = result.catch(() => undefined);
    return result;
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
