/** One watchCancel registration. */
interface Watcher {
  readonly runId: string;
  readonly onCancel: () => void;
}

/**
 * The cancel watchers of one SQLite store: a request made in this process fires them at once
 * (`fire`), one made by another process is found by polling while anyone watches (the sibling of
 * store-postgres's PostgresCancelWatch, which is pushed by NOTIFY).
 */
export class SqliteCancelWatch {
  readonly #pollMs: number;
  /** Whether a cancel that counts was requested for the run; throws while the file is locked. */
  readonly #requested: (runId: string) => boolean;
  readonly #watchers = new Set<Watcher>();
  #timer: NodeJS.Timeout | null = null;
  #closed = false;

  constructor(options: { pollMs: number; requested: (runId: string) => boolean }) {
    this.#pollMs = options.pollMs;
    this.#requested = options.requested;
  }

  /** Calls `onCancel` once when the run's cancel is seen; returns a function that stops watching. */
  watch(runId: string, onCancel: () => void): () => void {
    if (this.#closed) return () => {};
    const watcher: Watcher = { runId, onCancel };
    this.#watchers.add(watcher);
    if (this.#timer === null) {
      this.#timer = setInterval(() => this.#poll(), this.#pollMs);
      this.#timer.unref();
    }
    queueMicrotask(() => this.#poll(watcher));
    return () => this.#unwatch(watcher);
  }

  /** A cancel of the run was requested in this process: its watchers fire now. */
  fire(runId: string): void {
    for (const watcher of [...this.#watchers]) {
      if (watcher.runId === runId) queueMicrotask(() => this.#watchers.has(watcher) && this.#notify(watcher));
    }
  }

  /** Stops polling and forgets every watcher. */
  close(): void {
    this.#closed = true;
    this.#watchers.clear();
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
  }

  #poll(only?: Watcher): void {
    if (this.#closed) return;
    for (const watcher of only === undefined ? [...this.#watchers] : [only]) {
      if (!this.#watchers.has(watcher)) continue;
      let requested: boolean;
      try {
        requested = this.#requested(watcher.runId);
      } catch {
        continue; // locked or failing right now: look again at the next tick
      }
      if (requested) this.#notify(watcher);
    }
  }

  #notify(watcher: Watcher): void {
    this.#unwatch(watcher);
    try {
      watcher.onCancel();
    } catch {
      // a listener's failure is its own; the store keeps going
    }
  }

  #unwatch(watcher: Watcher): void {
    this.#watchers.delete(watcher);
    if (this.#watchers.size === 0 && this.#timer !== null) {
      clearInterval(this.#timer);
      this.#timer = null;
    }
  }
}
