import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** The cookie that carries the access token after a `?token=` visit. @internal */
export const TOKEN_COOKIE = 'runledger_token';

/** Tells whether a host address is a loopback address (the only ones served without a token). @internal */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127(?:\.\d{1,3}){3}$/.test(bare);
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Reads one cookie from a request. @internal */
export function readCookie(req: IncomingMessage, name: string): string | null {
  const header = req.headers.cookie;
  if (header === undefined) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return null;
      }
    }
  }
  return null;
}

/**
 * Tells whether a request carries the access token: `Authorization: Bearer`, the token cookie or
 * a `?token=` query parameter.
 *
 * @internal
 */
export function carriesToken(req: IncomingMessage, url: URL, token: string): boolean {
  const auth = req.headers.authorization;
  if (auth !== undefined) {
    const match = /^Bearer\s+(.+)$/i.exec(auth.trim());
    if (match?.[1] !== undefined && sameSecret(match[1], token)) return true;
  }
  const cookie = readCookie(req, TOKEN_COOKIE);
  if (cookie !== null && sameSecret(cookie, token)) return true;
  const query = url.searchParams.get('token');
  return query !== null && sameSecret(query, token);
}

/**
 * Tells whether the Host header names a loopback host, which a loopback server without a token
 * insists on so that a DNS-rebinding page cannot read it.
 *
 * @internal
 */
export function hostIsLoopback(req: IncomingMessage): boolean {
  const host = req.headers.host;
  if (host === undefined) return false;
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : (host.split(':')[0] ?? '');
  return isLoopbackHost(name) || name.toLowerCase().endsWith('.localhost');
}

/**
 * Tells whether a state-changing request came from a page of this app: its `Origin` (or, when a
 * browser sends none, its `Referer`) must name the request's own `Host`.
 *
 * @internal
 */
export function isSameOrigin(req: IncomingMessage): boolean {
  const host = req.headers.host;
  if (host === undefined || host === '') return false;
  const site = req.headers['sec-fetch-site'];
  if (typeof site === 'string' && site !== 'same-origin') return false;
  const origin = req.headers.origin;
  const source = origin !== undefined ? origin : req.headers.referer;
  if (source === undefined || source === 'null') return false;
  try {
    const parsed = new URL(source);
    return (parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.host.toLowerCase() === host.toLowerCase();
  } catch {
    return false;
  }
}
