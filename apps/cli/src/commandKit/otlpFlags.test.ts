import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseHeaders, parseSince } from './otlpFlags.js';

const NOW = Date.parse('2026-12-01T12:00:00Z');

describe('export otlp flags', () => {
  it('--since reads spans back from now and dates or times', () => {
    expect(parseSince('90m', NOW)).toBe(NOW - 90 * 60_000);
    expect(parseSince('24h', NOW)).toBe(NOW - 86_400_000);
    expect(parseSince('7d', NOW)).toBe(NOW - 7 * 86_400_000);
    expect(parseSince('2026-11-30', NOW)).toBe(Date.parse('2026-11-30T00:00:00Z'));
    expect(parseSince('2026-11-30T08:00:00Z', NOW)).toBe(Date.parse('2026-11-30T08:00:00Z'));
  });

  it('--since refuses anything else, naming the flag and what it takes', () => {
    for (const bad of ['yesterday', '24', '1w', '-3h', '2026-13-45', '']) {
      expect(() => parseSince(bad, NOW), bad).toThrow(/^runledger export otlp: --since must be a date or time .* got /);
    }
  });

  it('--headers reads key=value pairs, percent-decoded', () => {
    expect(parseHeaders('Authorization=Bearer%20abc,x-tenant=acme')).toEqual({ authorization: 'Bearer abc', 'x-tenant': 'acme' });
    fc.assert(
      fc.property(fc.dictionary(fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/), fc.string()), (headers) => {
        const text = Object.entries(headers)
          .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
          .join(',');
        expect(parseHeaders(text)).toEqual(headers);
      }),
    );
  });

  it('--headers refuses a pair without a header name', () => {
    for (const bad of ['novalue', '=x', 'a b=c', 'k=%zz'])
      expect(() => parseHeaders(bad), bad).toThrow(/^runledger export otlp: --headers /);
  });
});
