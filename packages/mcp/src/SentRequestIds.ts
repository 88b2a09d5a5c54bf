/** A JSON-RPC request id as it goes on the wire. */
export type WireRequestId = string | number;

/** The part of a transport this module needs: its `send`. */
interface Sending {
  send(message: unknown, options?: unknown): Promise<void>;
}

/**
 * Tells a caller which JSON-RPC id the SDK gave its request, which the SDK does not expose.
 *
 * @remarks
 * The SDK numbers each request itself and copies the request's `params` on its way out, but keeps
 * `params.arguments` by reference. So a caller passes a fresh arguments object, watches it, and
 * hears the id once the transport sends the request holding it (again for a retried request).
 *
 * @internal
 */
export class SentRequestIds {
  readonly #waiting = new WeakMap<object, (id: WireRequestId) => void>();

  /** Starts watching what the transport sends: wraps its `send`, which the client looks up per message. */
  static on(transport: Sending): SentRequestIds {
    const ids = new SentRequestIds();
    ids.#attach(transport);
    return ids;
  }

  #attach(transport: Sending): void {
    const send = transport.send.bind(transport);
    transport.send = (message: unknown, options?: unknown) => {
      const m = message as { id?: unknown; params?: { arguments?: unknown } } | null;
      const key = m?.params?.arguments;
      if (typeof key === 'object' && key !== null && (typeof m?.id === 'number' || typeof m?.id === 'string')) {
        const heard = this.#waiting.get(key);
        if (heard !== undefined) {
          try {
            heard(m.id);
          } catch {
            // A listener's fault never stops a send.
          }
        }
      }
      return send(message, options);
    };
  }

  /** Calls `heard` with the id of every request sent with `key` as its arguments, until `forget`. */
  watch(key: object, heard: (id: WireRequestId) => void): void {
    this.#waiting.set(key, heard);
  }

  forget(key: object): void {
    this.#waiting.delete(key);
  }
}
