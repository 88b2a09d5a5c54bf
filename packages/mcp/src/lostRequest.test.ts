import { describe, expect, it } from 'vitest';
import { LocalRequestFailure } from './LocalRequestFailure.js';
import { isLostRequest, lostOnEverySend } from './lostRequest.js';

function socketError(code: string): Error {
  return Object.assign(new Error(code === 'ECONNRESET' ? 'socket hang up' : `connect ${code}`), { code });
}

describe('isLostRequest', () => {
  it('is true for a stream that closed before the answer, as the client rejects with it', () => {
    const failure = LocalRequestFailure.streamClosed('the HTTP response stream closed before the server answered');
    expect(isLostRequest(failure)).toBe(true);
    expect(isLostRequest(Object.assign(new Error(failure.detail), { data: failure }))).toBe(true);
  });

  it('is true for a POST whose socket was reset or broke before the response', () => {
    expect(isLostRequest(socketError('ECONNRESET'))).toBe(true);
    expect(isLostRequest(new TypeError('fetch failed', { cause: socketError('EPIPE') }))).toBe(true);
  });

  it('is false for what loses nothing: a refused connection, a too-large answer, a timeout, an abort', () => {
    expect(isLostRequest(socketError('ECONNREFUSED'))).toBe(false);
    expect(isLostRequest(LocalRequestFailure.tooLarge(11, 10, 'exact'))).toBe(false);
    expect(isLostRequest(new Error('Request timed out'))).toBe(false);
    expect(isLostRequest(new DOMException('This operation was aborted', 'AbortError'))).toBe(false);
    expect(isLostRequest(undefined)).toBe(false);
  });
});

describe('lostOnEverySend', () => {
  it('keeps what broke and says how often the request was sent', () => {
    const last = LocalRequestFailure.streamClosed('the HTTP response stream closed before the server answered');
    const failure = lostOnEverySend(last, 3);
    expect(failure.kind).toBe('stream-closed');
    expect(failure.detail).toBe(
      'the HTTP response stream closed before the server answered; the request was lost on each of 3 sends, each under a new id',
    );
    expect(lostOnEverySend(socketError('ECONNRESET'), 2).detail).toBe(
      'the HTTP request broke before the server answered (socket hang up (ECONNRESET)); the request was lost on each of 2 sends, each under a new id',
    );
  });
});
