import type { ServerHealth } from '@runledger/trace';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SERVERS_QUERY,
  fittingWindow,
  readServersQuery,
  SERVER_SORT_KEYS,
  SERVER_WINDOWS,
  ServerSortKey,
  ServerWindow,
  sortServers,
  windowGiven,
  windowSince,
  worstFirst,
} from './serversQuery.js';

describe('the servers page: windows and sort keys spelled once', () => {
  it('offers every window and sort key of their vocabularies', () => {
    expect(SERVER_WINDOWS).toEqual(['24h', '7d', 'all']);
    expect(SERVER_SORT_KEYS).toEqual(['server', 'calls', 'failure_rate', 'p95']);
    expect(SERVER_WINDOWS).toEqual(Object.values(ServerWindow));
    expect(SERVER_SORT_KEYS).toEqual(Object.values(ServerSortKey));
  });

  it('reads a query from the URL; what it does not know reads as the default', () => {
    expect(readServersQuery(new URLSearchParams('sort=p95&dir=asc&window=7d'))).toEqual({ sort: 'p95', dir: 'asc', window: '7d' });
    expect(readServersQuery(new URLSearchParams('sort=nope&dir=up&window=1y'))).toEqual(DEFAULT_SERVERS_QUERY);
    expect(readServersQuery(new URLSearchParams(''))).toEqual(DEFAULT_SERVERS_QUERY);
    for (const window of SERVER_WINDOWS) expect(readServersQuery(new URLSearchParams({ window })).window).toBe(window);
    for (const sort of SERVER_SORT_KEYS) expect(readServersQuery(new URLSearchParams({ sort })).sort).toBe(sort);
  });

  it('gives each window its start', () => {
    const now = 10 * 24 * 3_600_000;
    expect(windowSince('24h', now)).toBe(now - 24 * 3_600_000);
    expect(windowSince('7d', now)).toBe(now - 7 * 24 * 3_600_000);
    expect(windowSince('all', now)).toBeUndefined();
  });
});

/** A server's health with the fields the order reads. */
function health(server: string, fields: { flaky?: boolean; failureRate: number | null; failed?: number }): ServerHealth {
  return {
    server,
    calls: 10,
    ok: 0,
    failed: fields.failed ?? 0,
    cancelled: 0,
    invalidArguments: 0,
    notCharged: 0,
    failureCauses: [],
    answered: fields.failureRate === null ? 0 : 10,
    failureRate: fields.failureRate,
    lastFailureAt: null,
    p50DurationMs: null,
    p95DurationMs: null,
    flaky: fields.flaky ?? false,
    tooFewCalls: !(fields.flaky ?? false),
  } as ServerHealth;
}

const anyHealth = fc
  .record({
    server: fc.string({ minLength: 1, maxLength: 4 }),
    flaky: fc.boolean(),
    failureRate: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: null }),
    failed: fc.nat(20),
  })
  .map((row) => health(row.server, row.flaky && row.failureRate === null ? { ...row, flaky: false } : row));

describe('worst first: the one order of runledger servers and the servers page', () => {
  it('puts a flaky server before a worse rate that is too thin for a verdict (1 failed call of 1)', () => {
    const rows = [
      health('healthy', { failureRate: 0 }),
      health('silent', { failureRate: null }),
      health('thin', { failureRate: 1, failed: 1 }),
      health('flaky', { flaky: true, failureRate: 0.3, failed: 6 }),
      health('flakier', { flaky: true, failureRate: 0.5, failed: 5 }),
    ];
    expect(worstFirst(rows).map((row) => row.server)).toEqual(['flakier', 'flaky', 'thin', 'healthy', 'silent']);
    // the page's default sort is the same order; ascending is its reverse, servers without a rate still last
    expect(sortServers(rows, DEFAULT_SERVERS_QUERY.sort, DEFAULT_SERVERS_QUERY.dir)).toEqual(worstFirst(rows));
    expect(sortServers(rows, 'failure_rate', 'asc').map((row) => row.server)).toEqual(['healthy', 'thin', 'flaky', 'flakier', 'silent']);
  });

  it('for any rows: flaky first, then the failure rate falling, servers without one last, none lost', () => {
    fc.assert(
      fc.property(fc.array(anyHealth, { maxLength: 12 }), (rows) => {
        const sorted = worstFirst(rows);
        expect(sorted).toHaveLength(rows.length);
        expect(new Set(sorted)).toEqual(new Set(rows));
        for (let i = 1; i < sorted.length; i++) {
          const [a, b] = [sorted[i - 1]!, sorted[i]!];
          if (a.flaky !== b.flaky) expect(a.flaky).toBe(true);
          else if (a.failureRate === null) expect(b.failureRate).toBeNull();
          else if (b.failureRate !== null) expect(a.failureRate).toBeGreaterThanOrEqual(b.failureRate);
        }
        // the order does not depend on the order the store gave
        expect(worstFirst([...rows].reverse())).toEqual(sorted);
      }),
    );
  });
});

describe('the window the servers pages open with when the URL names none (issue 40 item 5)', () => {
  // calls counted since each window's start: the last day's within the week's within all time's
  const counts = fc
    .tuple(fc.nat(500), fc.nat(500), fc.nat(500))
    .map(([day, moreInWeek, older]) => ({ '24h': day, '7d': day + moreInWeek, all: day + moreInWeek + older }));

  it('is the shortest window that holds every call', () => {
    fc.assert(
      fc.property(counts, (calls) => {
        const window = fittingWindow(calls);
        if (calls.all === 0) return expect(window).toBe(DEFAULT_SERVERS_QUERY.window);
        // it holds every call …
        expect(calls[window]).toBe(calls.all);
        // … and no shorter window does
        for (const shorter of SERVER_WINDOWS.slice(0, SERVER_WINDOWS.indexOf(window))) expect(calls[shorter]).toBeLessThan(calls.all);
      }),
    );
  });

  it('shows a day of calls by the hour, a week of history by the day, older calls over all time', () => {
    expect(fittingWindow({ '24h': 12, '7d': 12, all: 12 })).toBe('24h');
    expect(fittingWindow({ '24h': 12, '7d': 400, all: 400 })).toBe('7d');
    expect(fittingWindow({ '24h': 12, '7d': 400, all: 401 })).toBe('all');
    expect(fittingWindow({ '24h': 0, '7d': 0, all: 0 })).toBe('all');
  });

  it('applies only when the URL names no window it knows', () => {
    expect(windowGiven(new URLSearchParams('window=7d'))).toBe(true);
    expect(windowGiven(new URLSearchParams('window=all'))).toBe(true);
    expect(windowGiven(new URLSearchParams('window=1y'))).toBe(false);
    expect(windowGiven(new URLSearchParams('sort=p95'))).toBe(false);
  });
});
