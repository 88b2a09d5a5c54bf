import { retryBusy } from './busyRetry.js';
import { isBusyError } from './isBusyError.js';
import type { BatchOutcome } from './SqliteGroupCommit.js';
import { SQLITE_FAILED, storageFailure } from './storageFailure.js';

/**
 * How {@link WriteQueue.group} commits: `run` executes a batch in one transaction (see
 * SqliteGroupCommit); a batch closes at `maxWrites` writes or `maxBytes` bytes.
 *
 * @internal
 */
export interface GroupRunner {
  readonly run: (writes: readonly (() => unknown)[]) => BatchOutcome[];
  readonly maxWrites: number;
  readonly maxBytes: number;
}

/** The writes waiting for one commit, with what settles each caller's promise. */
interface Batch {
  readonly writes: (() => unknown)[];
  readonly settles: { resolve(value: unknown): void; reject(error: unknown): void }[];
  /** Who asked for the first write (e.g. its run), to tell a writer that is alone. */
  readonly key: unknown;
  bytes: number;
}

/** The next turn of the event loop, after every write that arrives in this one. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * The writes of one store, one after another: a write runs at once when nothing waits, else after
 * the writes before it; a write or read that meets another connection's lock is retried with
 * back-off for up to `busyTimeoutMs`.
 *
 * @remarks
 * With a {@link GroupRunner}, {@link WriteQueue.group} writes share a commit: a group write joins
 * the open batch, which commits on the next turn of the event loop (after the writes queued before
 * it) in one transaction, and each promise settles only after that commit. Every other write
 * closes the open batch, so the order of all writes stays the order they were asked for. A writer
 * alone — its last batch held only its own write and nothing waits — commits at once, without the
 * turn's wait (which would only add latency); a write of anyone else makes it wait and share again.
 *
 * @internal
 */
export class WriteQueue {
  readonly #busyTimeoutMs: number;
  readonly #group: GroupRunner | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  #pending = 0;
  #open: Batch | null = null;
  /** The key of the last commit when it held a single group write, else undefined. */
  #soloKey: unknown = undefined;
  #commits = 0;

  constructor(busyTimeoutMs: number, group?: GroupRunner) {
    this.#busyTimeoutMs = busyTimeoutMs;
    this.#group = group;
  }

  /** How many writes and batches have run without an error (committed, for writes that are transactions). */
  get commits(): number {
    return this.#commits;
  }

  /** Runs a write now when nothing waits, else after the writes before it, retrying on a lock. */
  write<T>(fn: () => T): Promise<T> {
    // what is asked after this write runs after it, in the batch after it
    this.#open = null;
    const counted = (): T => {
      const value = fn();
      this.#commits++;
      return value;
    };
    if (this.#pending === 0) {
      try {
        return Promise.resolve(counted());
      } catch (error) {
        if (!isBusyError(error)) return Promise.reject(storageFailure(SQLITE_FAILED, error, this.#busyTimeoutMs));
      }
    }
    return this.#enqueue(() => retryBusy(counted, this.#busyTimeoutMs));
  }

  /**
   * Adds a write to the open batch (or opens one) that commits in one transaction on the next
   * turn; resolves with its value once that commit is durable. Without a GroupRunner: {@link WriteQueue.write}.
   */
  group<T>(fn: () => T, bytes: number, key?: unknown): Promise<T> {
    const group = this.#group;
    if (group === undefined) return this.write(fn);
    if (this.#open === null && this.#pending === 0 && key !== undefined && key === this.#soloKey) {
      // the same writer alone again: a batch of one, committed now
      return this.write(() => {
        const [outcome] = group.run([fn]);
        if (!outcome!.ok) throw outcome!.error;
        return outcome!.value as T;
      });
    }
    let batch = this.#open;
    if (batch === null) {
      const opened: Batch = { writes: [], settles: [], key, bytes: 0 };
      batch = this.#open = opened;
      // #commit counts itself done before it settles the batch's writes (a write those settle may
      // find the queue idle), and never rejects
      this.#pending++;
      const committed = this.#queue.then(() => this.#commit(opened, group));
      this.#queue = committed;
    }
    batch.writes.push(fn);
    batch.bytes += bytes;
    const done = new Promise<T>((resolve, reject) => batch.settles.push({ resolve: resolve as (value: unknown) => void, reject }));
    if (batch.writes.length >= group.maxWrites || batch.bytes >= group.maxBytes) this.#open = null;
    return done;
  }

  /** Runs a read now, retrying on a lock. */
  read<T>(fn: () => T): Promise<T> {
    return retryBusy(fn, this.#busyTimeoutMs);
  }

  /** Resolves once every queued write has settled. */
  async drained(): Promise<void> {
    await this.#queue;
  }

  /** Runs `task` after every write queued before it. */
  #enqueue<T>(task: () => Promise<T>): Promise<T> {
    this.#pending++;
    const result = this.#queue.then(task);
    this.#queue = result.then(
      () => undefined,
      () => undefined,
    );
    return result.finally(() => {
      this.#pending--;
    });
  }

  /** Commits a batch on the next turn (gathering the writes of this one), then settles each of its writes. */
  async #commit(batch: Batch, group: GroupRunner): Promise<void> {
    await nextTurn();
    if (this.#open === batch) this.#open = null;
    let outcomes: BatchOutcome[];
    try {
      // a lock or a failed commit leaves nothing of the batch behind: the whole batch is tried again
      outcomes = await retryBusy(() => group.run(batch.writes), this.#busyTimeoutMs);
      this.#commits++;
      this.#soloKey = batch.writes.length === 1 ? batch.key : undefined;
    } catch (error) {
      this.#pending--;
      for (const settle of batch.settles) settle.reject(error);
      return;
    }
    this.#pending--;
    outcomes.forEach((outcome, i) => {
      const settle = batch.settles[i]!;
      if (outcome.ok) settle.resolve(outcome.value);
      else settle.reject(outcome.error);
    });
  }
}
