import { isBusyError, retryBusy } from './busyRetry.js';
import { storageError } from './storageFailure.js';

/**
 * The writes of one store, one after another: a write runs at once when nothing waits, else after
 * the writes before it; a write or read that meets another connection's lock is retried with
 * back-off for up to `busyTimeoutMs`.
 *
 * @internal
 */
export class WriteQueue {
  readonly #busyTimeoutMs: number;
  #queue: Promise<unknown> = Promise.resolve();
  #pending = 0;

  constructor(busyTimeoutMs: number) {
    this.#busyTimeoutMs = busyTimeoutMs;
  }

  /** Runs a write now when nothing waits, else after the writes before it, retrying on a lock. */
  write<T>(fn: () => T): Promise<T> {
    if (this.#pending === 0) {
      try {
        return Promise.resolve(fn());
      } catch (error) {
        if (!isBusyError(error)) return Promise.reject(storageError(error, this.#busyTimeoutMs));
      }
    }
    this.#pending++;
    const result = this.#queue.then(() => retryBusy(fn, this.#busyTimeoutMs));
    this.#queue = result.then(
      () => undefined,
      () => undefined,
    );
    return result.finally(() => {
      this.#pending--;
    });
  }

  /** Runs a read now, retrying on a lock. */
  read<T>(fn: () => T): Promise<T> {
    return retryBusy(fn, this.#busyTimeoutMs);
  }

  /** Resolves once every queued write has settled. */
  async drained(): Promise<void> {
    await this.#queue;
  }
}
