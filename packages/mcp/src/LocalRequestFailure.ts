/**
 * A request that this package's own transport layer ended without the server's answer: the answer
 * was larger than the limit, or the HTTP stream that was to carry it closed first.
 *
 * @remarks
 * It reaches the MCP client as the `data` of a JSON-RPC error response made here (never sent by a
 * server), so the client settles exactly that request, clears its timer and leaves every other
 * request alone. The classification recognises it by `instanceof`, an object made in this
 * process, never by a code or a message a server could also send.
 *
 * @internal
 */
export class LocalRequestFailure {
  readonly kind: 'too-large' | 'stream-closed';
  readonly detail: string;
  /** For `too-large`: the bytes counted (at least) and the limit. */
  readonly bytes: number;
  readonly limit: number;

  private constructor(kind: 'too-large' | 'stream-closed', detail: string, bytes: number, limit: number) {
    this.kind = kind;
    this.detail = detail;
    this.bytes = bytes;
    this.limit = limit;
  }

  /** The answer has `bytes` bytes (or more: counting stopped at the limit), more than `limit`. */
  static tooLarge(bytes: number, limit: number, counted: 'exact' | 'at-least'): LocalRequestFailure {
    const size = counted === 'exact' ? `${bytes} bytes` : `more than ${limit} bytes`;
    return new LocalRequestFailure('too-large', `the answer has ${size}, over the limit of ${limit} bytes for one answer`, bytes, limit);
  }

  /** The stream that was to carry the answer closed (reset, ended) before the answer came. */
  static streamClosed(detail: string): LocalRequestFailure {
    return new LocalRequestFailure('stream-closed', detail, 0, 0);
  }

  /**
   * The failure made here that the error carries: the error itself, a cause of it, or the `data` of
   * the JSON-RPC error the client rejected with; else undefined. Recognised by `instanceof` only.
   */
  static in(error: unknown): LocalRequestFailure | undefined {
    let current: unknown = error;
    for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
      if (current instanceof LocalRequestFailure) return current;
      const data = (current as { data?: unknown }).data;
      if (data instanceof LocalRequestFailure) return data;
      current = (current as { cause?: unknown }).cause;
    }
    return undefined;
  }

  /** The JSON-RPC error response that settles request `id` with this failure. */
  toResponse(id: string | number): {
    jsonrpc: '2.0';
    id: string | number;
    error: { code: number; message: string; data: LocalRequestFailure };
  } {
    return { jsonrpc: '2.0', id, error: { code: LOCAL_FAILURE_CODE, message: this.detail, data: this } };
  }
}

/** The JSON-RPC code of the responses made here; never read back (the data object decides). */
const LOCAL_FAILURE_CODE = -32000;

/** The default limit of one answer: the MCP SDK's own stdio buffer, 10 MiB. */
export const DEFAULT_MAX_ANSWER_BYTES = 10 * 1024 * 1024;
