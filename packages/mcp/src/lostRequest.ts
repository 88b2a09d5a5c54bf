// The rule of MCP 2026-07-28 over Streamable HTTP for a request whose stream broke: the request is
// lost (the server treats the disconnect as its cancellation), and the client sends it again under
// a new id. What counts as lost, and how often it is sent again.
import { describeError, errorCode } from './describeError.js';
import { LocalRequestFailure } from './LocalRequestFailure.js';

/** The most times one call is sent again after its request was lost: at most three sends in all. */
export const MAX_LOST_REQUEST_REISSUES = 2;

/** Socket errors of a POST that broke before its answer: the server lost the request with it. */
const BROKEN_SOCKET_CODES = new Set(['ECONNRESET', 'EPIPE']);

/**
 * True when the request was lost on a broken stream: its HTTP response stream ended or broke before
 * the answer (our transport's {@link LocalRequestFailure} `stream-closed`), or its POST's socket was
 * reset before the response came.
 *
 * @remarks
 * Only the caller knows whether the connection speaks a revision under which such a request is lost
 * (2026-07-28 and later, over Streamable HTTP): under the older revisions the server may still be
 * working on it, and sending it again could run it twice. A refused connection is not a loss (the
 * request never reached a server), nor is a timeout, an abort or a closed session.
 */
export function isLostRequest(error: unknown): boolean {
  const local = LocalRequestFailure.in(error);
  if (local !== undefined) return local.kind === 'stream-closed';
  const code = errorCode(error);
  return code !== undefined && BROKEN_SOCKET_CODES.has(code);
}

/**
 * What a call ends with when it was lost on every one of its `sends`: a stream-closed failure that
 * says so (the classification reads it as a transport failure).
 */
export function lostOnEverySend(error: unknown, sends: number): LocalRequestFailure {
  const local = LocalRequestFailure.in(error);
  const detail = local?.detail ?? `the HTTP request broke before the server answered (${describeError(error)})`;
  return LocalRequestFailure.streamClosed(`${detail}; the request was lost on each of ${sends} sends, each under a new id`);
}
