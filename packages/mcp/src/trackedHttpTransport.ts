// The SDK's Streamable HTTP transport with each request's POST owned by us: part of the one door
// to the MCP SDK (sdk.ts), split out as the HTTP transport it builds.
import { StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client';
import { describeError } from './describeError.js';
import { HttpConnectionPool, type RequestDelivery } from './HttpConnectionPool.js';
import { LocalRequestFailure } from './LocalRequestFailure.js';
import { ON_WRITTEN, REPORTS_WRITES } from './RequestSends.js';

/** The header that ties a fetch to the request it carries; taken off again before sending. */
const REQUEST_TAG_HEADER = 'x-runledger-request-tag';

/** One request on the wire over HTTP, from its POST to its answer (or its end). */
interface HttpRequest {
  readonly id: string | number;
  /** Aborts the POST, and the response stream it opened. */
  readonly controller: AbortController;
  settled: boolean;
  /** How its POST is delivered: sent again on another connection only when that cannot run it twice. */
  readonly delivery: RequestDelivery;
}

/** A notice, or a send the transport does not tie to a request: repeating it runs nothing twice. */
const REPEATABLE: RequestDelivery = Object.freeze({ repeatable: true });
/** A second fetch of a request already sent (the SDK's own retry): never repeated once written. */
const ONCE: RequestDelivery = Object.freeze({ repeatable: false });

/**
 * Whether a request may be sent again after it may have reached the server: everything but a
 * tool call, which may write; a tool call's sends are the caller's to decide (sdk.ts).
 */
function repeatableMethod(method: string): boolean {
  return method !== 'tools/call';
}

/**
 * The SDK's Streamable HTTP transport, with each request's POST owned by us.
 *
 * @remarks
 * The SDK (legacy protocol era) opens one POST per request and reads the answer from its response
 * stream, but does not tie that POST to the request: when the request times out or is aborted it
 * sends `notifications/cancelled` and stops waiting, while the POST and its socket stay open until
 * the server answers — a server that never does keeps one socket per call forever. And when that
 * stream ends or breaks before the answer, nothing settles the request: it waits for its deadline
 * (typescript-sdk issue 2739). So every request gets a signal of ours (the transport's
 * `requestSignal`), aborted when the SDK gives the request up (`notifications/cancelled`), and a
 * stream end of ours (`onRequestStreamEnd`), which fails the request at once. A fetch of ours
 * counts the bytes of each answer and fails the request whose answer goes over the limit. Its
 * connections are the session's own ({@link HttpConnectionPool}): closing the transport closes them.
 * A notice (a notification, or our answer to a server's request) waits at most the server's
 * deadline for its `202`: a server that stalls them would otherwise hold a socket per notice — one
 * per cancelled call — until the session closes.
 */
export function trackedHttpTransport(
  url: URL,
  headers: Record<string, string>,
  maxAnswerBytes: number,
  state: { readonly lastError: Error | undefined },
  noticeDeadlineMs: number,
): Transport {
  const byId = new Map<string | number, HttpRequest>();
  const byTag = new Map<string, HttpRequest>();
  let nextTag = 0;
  const pool = new HttpConnectionPool();
  // The client's handler, which the settling below must reach like a real answer.
  let deliver: ((message: unknown) => void) | undefined;

  const settle = (request: HttpRequest, failure: LocalRequestFailure | undefined, abort: boolean) => {
    if (request.settled) return;
    request.settled = true;
    byId.delete(request.id);
    if (failure !== undefined) deliver?.(failure.toResponse(request.id));
    if (abort) request.controller.abort();
  };

  const countingFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const initHeaders = init?.headers instanceof Headers ? init.headers : undefined;
    const tag = initHeaders?.get(REQUEST_TAG_HEADER) ?? null;
    if (tag !== null) initHeaders?.delete(REQUEST_TAG_HEADER);
    const request = tag === null ? undefined : byTag.get(tag);
    if (tag !== null) byTag.delete(tag);
    const response = await pool.fetch(input, init, request?.delivery ?? (tag === null ? REPEATABLE : ONCE));
    if (request === undefined || response.body === null) return response;
    const declared = Number(response.headers.get('content-length') ?? Number.NaN);
    if (declared > maxAnswerBytes) {
      void response.body.cancel().catch(() => undefined);
      settle(request, LocalRequestFailure.tooLarge(declared, maxAnswerBytes, 'exact'), true);
      return new Response(null, { status: 202 });
    }
    let bytes = 0;
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          bytes += chunk.byteLength;
          if (bytes > maxAnswerBytes) {
            const failure = LocalRequestFailure.tooLarge(bytes, maxAnswerBytes, 'at-least');
            // Settle first: the abort that follows makes the SDK stop reading without a word.
            settle(request, failure, true);
            controller.error(failure);
            return;
          }
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, { status: response.status, statusText: response.statusText, headers: response.headers });
  };

  const transport: StreamableHTTPClientTransport & { [REPORTS_WRITES]?: true } = new StreamableHTTPClientTransport(url, {
    fetch: countingFetch,
    requestInit: { headers },
    reconnectionOptions: {
      initialReconnectionDelay: 100,
      maxReconnectionDelay: 1000,
      reconnectionDelayGrowFactor: 2,
      maxRetries: 2,
    },
  });

  // Its POSTs tell when they were written (our pool's connections): RequestSends counts those.
  Object.defineProperty(transport, REPORTS_WRITES, { value: true });

  // Every message the transport reads passes here first: an answer settles its request.
  let clientOnMessage: Transport['onmessage'];
  deliver = (message) => clientOnMessage?.(message as never);
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    get: () => (clientOnMessage === undefined ? undefined : onMessage),
    set: (handler: Transport['onmessage']) => {
      clientOnMessage = handler;
    },
  });
  const onMessage: NonNullable<Transport['onmessage']> = (message, extra) => {
    const id = (message as { id?: unknown; method?: unknown }).id;
    if ((typeof id === 'number' || typeof id === 'string') && (message as { method?: unknown }).method === undefined) {
      const request = byId.get(id);
      if (request !== undefined) settle(request, undefined, false);
    }
    clientOnMessage?.(message, extra);
  };

  // Every way the session ends (closed by us, a failed connect, a dead server) closes the transport.
  const close = transport.close.bind(transport);
  transport.close = async () => {
    try {
      await close();
    } finally {
      await pool.close();
    }
  };

  const send = transport.send.bind(transport);
  const asNotice = (options: Parameters<Transport['send']>[1]): Parameters<Transport['send']>[1] =>
    options?.requestSignal !== undefined || options?.resumptionToken !== undefined
      ? options
      : { ...options, requestSignal: AbortSignal.timeout(noticeDeadlineMs) };
  transport.send = (message, options) => {
    const m = message as { id?: unknown; method?: unknown; params?: { requestId?: unknown } };
    if (m.method === 'notifications/cancelled') {
      // The SDK gave the request up (its deadline, or our abort): release its POST too.
      const requestId = m.params?.requestId;
      const request = typeof requestId === 'number' || typeof requestId === 'string' ? byId.get(requestId) : undefined;
      const sent = send(message, asNotice(options));
      if (request !== undefined) settle(request, undefined, true);
      return sent;
    }
    if (options?.resumptionToken !== undefined) return send(message, options);
    if ((typeof m.id !== 'number' && typeof m.id !== 'string') || typeof m.method !== 'string') return send(message, asNotice(options));
    const onWritten = (options as { [ON_WRITTEN]?: () => void } | undefined)?.[ON_WRITTEN];
    const request: HttpRequest = {
      id: m.id,
      controller: new AbortController(),
      settled: false,
      delivery: { repeatable: repeatableMethod(m.method), onWritten },
    };
    byId.set(m.id, request);
    const tag = String(nextTag++);
    byTag.set(tag, request);
    const given = options?.requestSignal;
    // A newer protocol era aborts the request's own signal instead of sending notifications/cancelled.
    given?.addEventListener('abort', () => settle(request, undefined, true), { once: true });
    const onStreamEnd = options?.onRequestStreamEnd;
    return send(message, {
      ...options,
      headers: { ...options?.headers, [REQUEST_TAG_HEADER]: tag },
      requestSignal: given === undefined ? request.controller.signal : AbortSignal.any([given, request.controller.signal]),
      onRequestStreamEnd: () => {
        // The stream ended without the answer (a reset, or the server closed it): fail now, not at
        // the deadline.
        const why = state.lastError === undefined ? '' : ` (${describeError(state.lastError)})`;
        settle(request, LocalRequestFailure.streamClosed(`the HTTP response stream closed before the server answered${why}`), true);
        onStreamEnd?.();
      },
    }).catch((error: unknown) => {
      byTag.delete(tag);
      settle(request, undefined, false);
      throw error;
    });
  };
  return transport;
}
