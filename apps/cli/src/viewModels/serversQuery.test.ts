import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SERVERS_QUERY,
  readServersQuery,
  SERVER_SORT_KEYS,
  SERVER_WINDOWS,
  ServerSortKey,
  ServerWindow,
  windowSince,
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
