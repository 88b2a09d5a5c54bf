import type { Client } from 'pg';

/**
 * What a {@link PostgresCancelWatch} needs from its store.
 *
 * @internal
 */
export interface PostgresCancelWatchOptions {
  /** The NOTIFY channel (already unique per schema). */
  readonly channel: string;
  /** Opens and connects a dedicated client for LISTEN. */
  connect(): Promise<Client>;
  /** The ids among `runIds` whose cancel has been requested. */
  cancelled(runIds: readonly string[]): Promise<ReadonlySet<string>>;
  /** How often to poll while no listener is connected, in ms. */
  readonly pollMs: number;
  /** How long to wait before connecting a dropped listener again, in ms. */
  readonly reconnectMs: number;
}

/** How cancel requests currently reach the watcher. */
export type CancelWatchMode = 'idle' | 'push' | 'poll';

/**
 * Delivers cancel requests of watched runs: pushed by LISTEN/NOTIFY on one dedicated
 * connection, with polling while that connection is not (yet, or any more) listening.
 *
 * @remarks
 * Each callback fires at most once. After (re)connecting the listener, every watched run is
 * checked once, so a request made while nobody listened is not lost. A run whose cancel was
 * requested before it was watched fires right away. Timers are unref'd.
 *
 * @internal
 */
export class PostgresCancelWatch {
  readonly #options: PostgresCancelWatchOptions;
  readonly #watchers = new Map<string, Set<() => void>>();
  #listener: Client | null = null;
  #connecting: Promise<void> | null = null;
  #pollTimer: NodeJS.Timeout | null = null;
  #reconnectTimer: NodeJS.Timeout | null = null;
  #polling = false;
  #closed = false;

  constructor(options: PostgresCancelWatchOptions) {
    this.#options = options;
  }

  /** How requests currently arrive (for tests and diagnostics). */
  get mode(): CancelWatchMode {
    if (this.#listener !== null) return 'push';
    return this.#pollTimer !== null ? 'poll' : 'idle';
  }

  /** The backend process id of the listening connection, or null. */
  get listenerPid(): number | null {
    const pid = (this.#listener as unknown as { processID?: number } | null)?.processID;
    return typeof pid === 'number' ? pid : null;
  }

  watch(runId: string, onCancel: () => void): () => void {
    if (this.#closed) throw new Error('PostgresCancelWatch is closed');
    let done = false;
    const fire = (): void => {
      if (done) return;
      stop();
      try {
        onCancel();
      } catch {
        // a watcher's own failure must not stop the others
      }
    };
    const stop = (): void => {
      done = true;
      const set = this.#watchers.get(runId);
      if (set === undefined) return;
      set.delete(fire);
      if (set.size === 0) this.#watchers.delete(runId);
    };
    let set = this.#watchers.get(runId);
    if (set === undefined) {
      set = new Set();
      this.#watchers.set(runId, set);
    }
    set.add(fire);
    this.#ensureListener();
    if (this.#listener === null) this.#startPolling();
    void this.#check([runId]);
    return stop;
  }

  /** Fires the watchers of a run (a notification arrived). */
  #deliver(runId: string): void {
    const set = this.#watchers.get(runId);
    if (set === undefined) return;
    for (const fire of [...set]) fire();
  }

  async #check(runIds: readonly string[]): Promise<void> {
    if (runIds.length === 0 || this.#closed) return;
    try {
      const cancelled = await this.#options.cancelled(runIds);
      for (const id of cancelled) this.#deliver(id);
    } catch {
      // the next poll or notification tries again
    }
  }

  #ensureListener(): void {
    if (this.#listener !== null || this.#connecting !== null || this.#closed || this.#reconnectTimer !== null) return;
    this.#connecting = this.#connectListener().finally(() => {
      this.#connecting = null;
    });
  }

  async #connectListener(): Promise<void> {
    let client: Client | null = null;
    try {
      client = await this.#options.connect();
      if (this.#closed) {
        await client.end().catch(() => undefined);
        return;
      }
      const listening = client;
      listening.on('notification', (message) => {
        if (message.channel === this.#options.channel && typeof message.payload === 'string') this.#deliver(message.payload);
      });
      listening.on('error', () => this.#dropListener(listening));
      listening.on('end', () => this.#dropListener(listening));
      await listening.query(`LISTEN "${this.#options.channel.replaceAll('"', '""')}"`);
      this.#listener = listening;
      this.#stopPolling();
      await this.#check([...this.#watchers.keys()]);
    } catch {
      if (client !== null) await client.end().catch(() => undefined);
      this.#scheduleReconnect();
      if (this.#watchers.size > 0) this.#startPolling();
    }
  }

  #dropListener(client: Client): void {
    if (this.#listener === client) this.#listener = null;
    client.removeAllListeners('notification');
    client.on('error', () => undefined);
    void client.end().catch(() => undefined);
    if (this.#closed) return;
    if (this.#watchers.size > 0) this.#startPolling();
    this.#scheduleReconnect();
  }

  #scheduleReconnect(): void {
    if (this.#closed || this.#reconnectTimer !== null) return;
    this.#reconnectTimer = setTimeout(() => {
      this.#reconnectTimer = null;
      this.#ensureListener();
    }, this.#options.reconnectMs);
    this.#reconnectTimer.unref();
  }

  #startPolling(): void {
    if (this.#pollTimer !== null || this.#closed) return;
    this.#pollTimer = setInterval(() => {
      if (this.#polling || this.#watchers.size === 0) return;
      this.#polling = true;
      void this.#check([...this.#watchers.keys()]).finally(() => {
        this.#polling = false;
      });
    }, this.#options.pollMs);
    this.#pollTimer.unref();
  }

  #stopPolling(): void {
    if (this.#pollTimer !== null) clearInterval(this.#pollTimer);
    this.#pollTimer = null;
  }

  /** Stops every watch, the timers and the listener connection. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#watchers.clear();
    this.#stopPolling();
    if (this.#reconnectTimer !== null) clearTimeout(this.#reconnectTimer);
    this.#reconnectTimer = null;
    await this.#connecting?.catch(() => undefined);
    const listener = this.#listener;
    this.#listener = null;
    if (listener !== null) {
      listener.removeAllListeners('end');
      listener.on('error', () => undefined);
      await listener.end().catch(() => undefined);
    }
  }
}
