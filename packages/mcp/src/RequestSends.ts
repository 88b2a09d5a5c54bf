/** A JSON-RPC request id as it goes on the wire. */
export type WireRequestId = string | number;

/**
 * The key of a transport `send` option: a function a transport calls once the request it sends
 * was written to a connection (our HTTP transport, whose connections are ours). A transport that
 * writes at once (stdio, in memory) does not read it.
 */
export const ON_WRITTEN: unique symbol = Symbol('runledger.onWritten');

/** Marks a transport that calls {@link ON_WRITTEN} itself. */
export const REPORTS_WRITES: unique symbol = Symbol('runledger.reportsWrites');

/** The part of a transport this module needs: its `send`. */
interface Sending {
  send(message: unknown, options?: unknown): Promise<void>;
  readonly [REPORTS_WRITES]?: true;
}

/** What one call hears of the requests sent for it. */
export interface SendListener {
  /** The JSON-RPC id of a request sent with the watched arguments (again for one sent anew). */
  readonly sent?: ((id: WireRequestId) => void) | undefined;
  /** The request was written towards the server: from here on the server may have read it. */
  readonly written: () => void;
}

/**
 * Tells a call which requests the SDK sent for it, under which JSON-RPC ids, and which of them
 * were written towards the server — which the SDK does not expose.
 *
 * @remarks
 * The SDK numbers each request itself and copies the request's `params` on its way out, but keeps
 * `params.arguments` by reference. So a caller passes a fresh arguments object, watches it, and
 * hears of every request sent holding it. A request counts as written when a transport that
 * reports writes says so (HTTP: handed to a connected socket), else when it is handed to the
 * transport (stdio writes to the child's stdin at once).
 *
 * @internal
 */
export class RequestSends {
  readonly #waiting = new WeakMap<object, SendListener>();
  readonly #reportsWrites: boolean;

  private constructor(reportsWrites: boolean) {
    this.#reportsWrites = reportsWrites;
  }

  /** Starts watching what the transport sends: wraps its `send`, which the client looks up per message. */
  static on(transport: Sending): RequestSends {
    const sends = new RequestSends(transport[REPORTS_WRITES] === true);
    sends.#attach(transport);
    return sends;
  }

  #attach(transport: Sending): void {
    const send = transport.send.bind(transport);
    transport.send = (message: unknown, options?: unknown) => {
      const m = message as { id?: unknown; params?: { arguments?: unknown } } | null;
      const key = m?.params?.arguments;
      const listener = typeof key === 'object' && key !== null ? this.#waiting.get(key) : undefined;
      if (listener === undefined || (typeof m?.id !== 'number' && typeof m?.id !== 'string')) return send(message, options);
      if (listener.sent !== undefined) {
        try {
          listener.sent(m.id);
        } catch {
          // A listener's fault never stops a send.
        }
      }
      if (this.#reportsWrites) return send(message, { ...(options as object | undefined), [ON_WRITTEN]: listener.written });
      listener.written();
      return send(message, options);
    };
  }

  /** Tells `listener` of every request sent with `key` as its arguments, until `forget`. */
  watch(key: object, listener: SendListener): void {
    this.#waiting.set(key, listener);
  }

  forget(key: object): void {
    this.#waiting.delete(key);
  }
}
