/** How long a prune transaction aims to hold the write lock (its work and its commit), when the caller left the batch size to the store. */
export const PRUNE_TRANSACTION_BUDGET_MS = 0.5;
/**
 * The shortest pause after a prune transaction: a writer of another process waiting for the lock
 * tries again every ms (busyRetry.ts), so it takes the lock in this gap; one of this process has
 * its write queued and runs at once.
 */
export const PRUNE_MIN_PAUSE_MS = 2;
/**
 * Alone: when no other writer (of this process or another) has committed for this long, the prune
 * holds the lock longer per transaction ({@link PRUNE_ALONE_BUDGET_MS}) and pauses less.
 */
export const PRUNE_ALONE_AFTER_MS = 1000;
/** How long a prune transaction aims to hold the lock while the prune is alone (the most a writer arriving then waits, once). */
export const PRUNE_ALONE_BUDGET_MS = 10;
/** The pause after a transaction while the prune is alone: a writer arriving meanwhile takes the lock in it. */
export const PRUNE_ALONE_PAUSE_MS = 1;
/**
 * While alone, the log is synced and copied into the database file at most this often, not after
 * every transaction: nobody else is kept waiting by a longer log, and on a busy disk (an fsync of
 * 100 ms and more) a prune that synced after each of its transactions spent its time waiting for them.
 */
export const PRUNE_ALONE_SYNC_EVERY_MS = 50;
/** The steps of the first transaction of a prune whose batch size is the store's to choose. */
const FIRST_STEPS = 50;
/**
 * The fewest steps a transaction is sized for: a transaction's fixed cost (its rollup pages, the
 * commit) is spread over fewer steps below it, so the prune would slow down more than the lock gains.
 */
export const PRUNE_MIN_STEPS = 4;

/**
 * How fast a SQLite prune goes: how many steps its next transaction deletes and how long it pauses
 * after each, so that writers of other processes (agents recording while `runledger prune` runs)
 * wait little for the write lock, and the prune goes fast when nobody else writes.
 *
 * @remarks
 * SQLite has no queue for its write lock: a writer that finds it taken tries again (this store's
 * writers every ms, see busyRetry.ts) and gets it only while it is free. So a writer of another
 * process waits at most about one prune transaction and a ms: when the caller gave no `batchSize`,
 * transactions are sized to hold the lock about {@link PRUNE_TRANSACTION_BUDGET_MS} (the prune's
 * commit is fsync-free, see SqlitePrune), from the time the previous ones held it per step,
 * changing at most 2× at a time, from {@link PRUNE_MIN_STEPS} steps to the default batch size; a given `batchSize` is
 * used as it is. Each transaction is followed by a pause as long as it held the lock, at least
 * {@link PRUNE_MIN_PAUSE_MS}, so the lock is free at least half of the time.
 *
 * The prune tells the pace whether anybody else committed since its previous transaction. Once
 * nobody has for {@link PRUNE_ALONE_AFTER_MS}, transactions grow (2× at a time) to hold the lock
 * about {@link PRUNE_ALONE_BUDGET_MS} and pauses shrink to {@link PRUNE_ALONE_PAUSE_MS}: a writer
 * that arrives then waits for one such transaction, and the next one is cut to the short budget at
 * once. While alone, the pause syncs and checkpoints the log only every
 * {@link PRUNE_ALONE_SYNC_EVERY_MS} ({@link SqlitePrunePace.syncDue}); while others write, after
 * every transaction.
 *
 * @internal
 */
export class SqlitePrunePace {
  readonly #max: number;
  readonly #adaptive: boolean;
  readonly #now: () => number;
  #steps: number;
  #lastMs = 0;
  /** When another writer last committed, as far as the prune saw (at first: now, so the prune starts careful). */
  #othersAt: number;
  /** When the pause last synced and checkpointed the log. */
  #syncedAt: number;
  /** The ms per step the last transaction that deleted enough steps held the lock. */
  #msPerStep: number | null = null;

  /** `batchSize` as the caller gave it (undefined: the store chooses, up to `maxSteps`); `now` a clock in ms (tests). */
  constructor(options: { batchSize: number | undefined; maxSteps: number; now?: () => number }) {
    this.#adaptive = options.batchSize === undefined;
    this.#max = options.batchSize ?? options.maxSteps;
    this.#steps = this.#adaptive ? Math.min(FIRST_STEPS, this.#max) : this.#max;
    this.#now = options.now ?? (() => performance.now());
    this.#othersAt = this.#now();
    this.#syncedAt = this.#othersAt;
  }

  /** The most steps the next transaction deletes. */
  get steps(): number {
    return this.#steps;
  }

  /** Whether nobody else has committed for {@link PRUNE_ALONE_AFTER_MS}. */
  get alone(): boolean {
    return this.#now() - this.#othersAt >= PRUNE_ALONE_AFTER_MS;
  }

  /**
   * Whether the pause after the last transaction syncs the log and copies it into the database file:
   * always while others write (their commits would otherwise flush and copy the prune's pages), while
   * alone once {@link PRUNE_ALONE_SYNC_EVERY_MS} passed since the last time ({@link SqlitePrunePace.synced}).
   */
  get syncDue(): boolean {
    return !this.alone || this.#now() - this.#syncedAt >= PRUNE_ALONE_SYNC_EVERY_MS;
  }

  /** The log was synced and checkpointed just now. */
  synced(): void {
    this.#syncedAt = this.#now();
  }

  /**
   * Learns from a committed transaction: the steps it deleted, the ms it held the write lock (from
   * the lock taken to the commit done, not the wait for it) and whether another writer committed
   * since the previous one; these size the next.
   */
  learn(steps: number, heldMs: number, othersWrote = false): void {
    const wasAlone = this.alone;
    if (othersWrote) this.#othersAt = this.#now();
    this.#lastMs = heldMs;
    if (!this.#adaptive) return;
    // a transaction that deleted few steps (a run row alone, a small run) tells little about the rate
    if (steps >= this.#steps / 2) {
      const budget = this.alone ? PRUNE_ALONE_BUDGET_MS : PRUNE_TRANSACTION_BUDGET_MS;
      const fitting = Math.floor((steps * budget) / Math.max(heldMs, 0.001));
      this.#steps = Math.max(PRUNE_MIN_STEPS, Math.min(this.#max, 2 * this.#steps, Math.max(Math.floor(this.#steps / 2), fitting)));
      this.#msPerStep = heldMs / steps;
    }
    if (wasAlone && othersWrote && this.#msPerStep !== null) {
      // a writer came: the next transaction is short at once, not halved a few times
      const fitting = Math.floor(PRUNE_TRANSACTION_BUDGET_MS / Math.max(this.#msPerStep, 0.000001));
      this.#steps = Math.max(PRUNE_MIN_STEPS, Math.min(this.#steps, fitting));
    }
  }

  /** Waits after a transaction: as long as it took, at least {@link PRUNE_MIN_PAUSE_MS}; {@link PRUNE_ALONE_PAUSE_MS} while alone. */
  pause(): Promise<void> {
    const ms = this.alone ? PRUNE_ALONE_PAUSE_MS : Math.max(PRUNE_MIN_PAUSE_MS, this.#lastMs);
    this.#lastMs = 0;
    return new Promise((resolve) => setTimeout(resolve, ms));
  }
}
