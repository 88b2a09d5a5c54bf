// The HTTP connections of one MCP session: a fetch over Node's own http client with a connection
// pool of the session's own, so that an aborted request leaves no socket behind, idle sockets are
// few, and closing the session closes every socket it opened.
import http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';

/** Idle keep-alive connections kept per session; more are closed as soon as they are free. */
export const MAX_IDLE_CONNECTIONS = 4;
/** How long an idle keep-alive connection stays open. */
const IDLE_TIMEOUT_MS = 4000;
/** Statuses whose response has no body. */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * The connections of one session with an HTTP MCP server.
 *
 * @remarks
 * Built on `node:http` rather than fetch's undici, whose pool opens a fresh connection right after
 * a request is aborted (one per cancelled or timed-out call; undici 6 in Node 20 and 22 keeps it
 * for good, undici 7 for its keep-alive time) and keeps every connection of a burst idle. Here an
 * aborted request destroys its socket and nothing reconnects on its own; at most
 * {@link MAX_IDLE_CONNECTIONS} idle connections stay, for {@link IDLE_TIMEOUT_MS} at most. A
 * response is never followed to a redirect: the caller reads its status and Location header
 * (what `redirect: 'manual'` asks for).
 */
export class HttpConnectionPool {
  readonly #agents = {
    'http:': new http.Agent({ keepAlive: true, maxFreeSockets: MAX_IDLE_CONNECTIONS, timeout: IDLE_TIMEOUT_MS }),
    'https:': new https.Agent({ keepAlive: true, maxFreeSockets: MAX_IDLE_CONNECTIONS, timeout: IDLE_TIMEOUT_MS }),
  };
  #closed = false;

  /**
   * A fetch whose connections belong to this pool; after {@link close} it rejects.
   *
   * @remarks
   * `delivery` says whether the request may be sent again on another connection when a reused
   * keep-alive connection broke before the answer, and hears when the request was written to a
   * connection. See {@link RequestDelivery}.
   */
  readonly fetch = async (input: string | URL | Request, init?: RequestInit, delivery?: RequestDelivery): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : input);
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new TypeError(`url: only http: and https: are supported, not ${url.protocol}`);
    const method = (init?.method ?? 'GET').toUpperCase();
    const sent: Sent = {
      url,
      method,
      headers: Object.fromEntries(new Headers(init?.headers)),
      body: requestBody(init?.body),
      signal: init?.signal ?? undefined,
      repeatable: delivery?.repeatable ?? IDEMPOTENT_METHODS.has(method),
      onWritten: delivery?.onWritten,
    };
    // The server closed an idle connection as we reused it. A request that never reached the
    // connection, or one that may run twice without harm, is sent again on another (what Node's
    // docs and browsers do for idempotent requests); one that may have been written and must not
    // run twice fails with the connection's error. The failed socket is gone; the next try takes
    // another idle one, which may be stale too, so at most every idle one and then a fresh one.
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#send(sent);
      } catch (error) {
        if (!(error instanceof StaleConnectionError) || attempt === MAX_IDLE_CONNECTIONS) throw error;
        if (error.written && !sent.repeatable) throw error.cause;
      }
    }
  };

  #send(sent: Sent): Promise<Response> {
    return new Promise<Response>((resolve, reject) => {
      if (this.#closed) throw new Error('the HTTP connection pool of this session is closed');
      const { url, method, signal } = sent;
      const request = (url.protocol === 'https:' ? https : http).request(url, {
        method,
        headers: sent.headers,
        agent: this.#agents[url.protocol as 'http:' | 'https:'],
        ...(signal !== undefined && { signal }),
      });
      // Written: the request was handed to a connected socket (a reused one at once, a fresh one
      // once it connects). From then on the server may have read it, whatever happens next.
      let written = false;
      const wrote = () => {
        if (written) return;
        written = true;
        try {
          sent.onWritten?.();
        } catch {
          // A listener's fault never changes the request.
        }
      };
      request.once('socket', (socket) => {
        if (socket.connecting) socket.once('connect', wrote);
        else wrote();
      });
      request.once('error', (error: NodeJS.ErrnoException) => {
        const stale = request.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE') && signal?.aborted !== true;
        reject(stale ? new StaleConnectionError(error, written) : error);
      });
      request.once('response', (response) => {
        const status = response.statusCode ?? 0;
        const headers = new Headers();
        for (let i = 0; i + 1 < response.rawHeaders.length; i += 2) headers.append(response.rawHeaders[i]!, response.rawHeaders[i + 1]!);
        if (signal !== undefined) {
          // Like fetch: a body read after the abort fails with the signal's reason, not "aborted".
          const onAbort = () =>
            response.destroy(signal.reason instanceof Error ? signal.reason : new DOMException('This operation was aborted', 'AbortError'));
          signal.addEventListener('abort', onAbort, { once: true });
          response.once('close', () => signal.removeEventListener('abort', onAbort));
        }
        const noBody = method === 'HEAD' || NULL_BODY_STATUSES.has(status);
        if (noBody) response.resume();
        try {
          resolve(
            new Response(noBody ? null : (Readable.toWeb(response) as ReadableStream<Uint8Array>), {
              status,
              statusText: response.statusMessage ?? '',
              headers,
            }),
          );
        } catch (error) {
          // A status outside 200–599 has no Response.
          response.destroy();
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      });
      request.end(sent.body);
    });
  }

  /** Destroys every connection of the pool, busy or idle; requests in flight fail. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#agents['http:'].destroy();
    this.#agents['https:'].destroy();
  }
}

/** HTTP methods that may be sent twice without harm (RFC 9110, 9.2.2). */
const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE']);

/**
 * What the caller of {@link HttpConnectionPool.fetch} says about one request, and hears of it.
 */
export interface RequestDelivery {
  /**
   * True when the request may be sent again after it was written to a connection that then broke
   * unanswered (it runs nothing twice that matters); default: true for idempotent methods only.
   * A request that was never written is sent again whatever this says.
   */
  readonly repeatable?: boolean;
  /** Hears, once per send, that the request was written to a connection. */
  readonly onWritten?: (() => void) | undefined;
}

/** A request as it goes on the wire, kept to send it again. */
interface Sent {
  readonly url: URL;
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly body: string | Uint8Array | undefined;
  readonly signal: AbortSignal | undefined;
  readonly repeatable: boolean;
  readonly onWritten: (() => void) | undefined;
}

/** A reused keep-alive connection broke before the server answered. */
class StaleConnectionError extends Error {
  override readonly cause: Error;
  /** Whether the request had been written to the connection before it broke. */
  readonly written: boolean;

  constructor(cause: Error, written: boolean) {
    super(cause.message, { cause });
    this.cause = cause;
    this.written = written;
  }
}

function requestBody(body: RequestInit['body']): string | Uint8Array | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  throw new TypeError(`body: a string or bytes, not ${Object.prototype.toString.call(body)}`);
}
