/** How long a prune transaction aims to hold the write lock (its work and its commit), when the caller left the batch size to the store. */
export const PRUNE_TRANSACTION_BUDGET_MS = 2.5;
/**
 * The shortest pause after a prune transaction: a writer of another process waiting for the lock
 * tries again every ms (busyRetry.ts), so it takes the lock in this gap; one of this process has
 * its write queued and runs at once.
 */
export const PRUNE_MIN_PAUSE_MS = 2;
/** The steps of the first transaction of a prune whose batch size is the store's to choose. */
const FIRST_STEPS = 50;
/** The fewest steps a transaction is sized for. */
const MIN_STEPS = 10;

/**
 * How fast a SQLite prune goes: how many steps its next transaction deletes and how long it pauses
 * after each, so that writers of other processes (agents recording while `runledger prune` runs)
 * wait little for the write lock.
 *
 * @remarks
 * SQLite has no queue for its write lock: a writer that finds it taken tries again (this store's
 * writers every ms, see busyRetry.ts) and gets it only while it is free. So a writer of another
 * process waits at most about one prune transaction and a ms: when the caller gave no `batchSize`,
 * transactions are sized to hold the lock about {@link PRUNE_TRANSACTION_BUDGET_MS} (the prune's
 * commit is fsync-free, see SqlitePrune), from the time the previous ones held it per step,
 * changing at most 2× at a time, from 10 steps to the default batch size; a given `batchSize` is
 * used as it is. Each transaction is followed by a pause as long as it held the lock, at least
 * {@link PRUNE_MIN_PAUSE_MS}, so the lock is free at least half of the time.
 *
 * @internal
 */
export class SqlitePrunePace {
  readonly #max: number;
  readonly #adaptive: boolean;
  #steps: number;
  #lastMs = 0;

  /** `batchSize` as the caller gave it (undefined: the store chooses, up to `maxSteps`). */
  constructor(options: { batchSize: number | undefined; maxSteps: number }) {
    this.#adaptive = options.batchSize === undefined;
    this.#max = options.batchSize ?? options.maxSteps;
    this.#steps = this.#adaptive ? Math.min(FIRST_STEPS, this.#max) : this.#max;
  }

  /** The most steps the next transaction deletes. */
  get steps(): number {
    return this.#steps;
  }

  /**
   * Learns from a committed transaction: the steps it deleted and the ms it held the write lock
   * (from the lock taken to the commit done, not the wait for it), which sizes the next.
   */
  learn(steps: number, heldMs: number): void {
    this.#lastMs = heldMs;
    // a transaction that deleted few steps (a run row alone, a small run) tells little about the rate
    if (this.#adaptive && steps >= this.#steps / 2) {
      const fitting = Math.floor((steps * PRUNE_TRANSACTION_BUDGET_MS) / Math.max(heldMs, 0.001));
      this.#steps = Math.max(MIN_STEPS, Math.min(this.#max, 2 * this.#steps, Math.max(Math.floor(this.#steps / 2), fitting)));
    }
  }

  /** Waits after a transaction: as long as it took, at least {@link PRUNE_MIN_PAUSE_MS}. */
  pause(): Promise<void> {
    const ms = Math.max(PRUNE_MIN_PAUSE_MS, this.#lastMs);
    this.#lastMs = 0;
    return new Promise((resolve) => setTimeout(resolve, ms));
  }
}
