/**
 * What the servers page and `runledger servers` ask of the stores' server health, in one place:
 * the windows, the sort keys, reading them from a URL, sorting rows and a row's health verdict.
 */
import type { ServerHealth } from '@runledger/trace';

/** The columns the servers table sorts by. @internal */
export const ServerSortKey = { SERVER: 'server', CALLS: 'calls', FAILURE_RATE: 'failure_rate', P95: 'p95' } as const;
/** One of the sort keys of {@link (ServerSortKey:variable)}. @internal */
export type ServerSortKey = (typeof ServerSortKey)[keyof typeof ServerSortKey];

/** The time windows the servers page offers. @internal */
export const ServerWindow = { DAY: '24h', WEEK: '7d', ALL: 'all' } as const;
/** One of the windows of {@link (ServerWindow:variable)}. @internal */
export type ServerWindow = (typeof ServerWindow)[keyof typeof ServerWindow];

/** The servers view's query (from the URL): how the table is sorted and which window it covers. @internal */
export interface ServersQuery {
  readonly sort: ServerSortKey;
  readonly dir: 'asc' | 'desc';
  readonly window: ServerWindow;
}

/** The default query: all time, worst failure rate first. @internal */
export const DEFAULT_SERVERS_QUERY: ServersQuery = { sort: ServerSortKey.FAILURE_RATE, dir: 'desc', window: ServerWindow.ALL };

/** Every sort key of the servers table, in the order of its columns. @internal */
export const SERVER_SORT_KEYS: readonly ServerSortKey[] = Object.freeze(Object.values(ServerSortKey));

/** Every window the servers page and `runledger servers --window` offer, shortest first. @internal */
export const SERVER_WINDOWS: readonly ServerWindow[] = Object.freeze(Object.values(ServerWindow));

/** How far back each window reaches, in ms; null for all time. */
const WINDOW_SPAN_MS: Readonly<Record<ServerWindow, number | null>> = Object.freeze({
  [ServerWindow.DAY]: 24 * 3_600_000,
  [ServerWindow.WEEK]: 7 * 24 * 3_600_000,
  [ServerWindow.ALL]: null,
});

/** The start of a window relative to now, or undefined for all time. @internal */
export function windowSince(window: ServerWindow, now: number): number | undefined {
  const span = WINDOW_SPAN_MS[window];
  return span === null ? undefined : now - span;
}

/**
 * The servers view's query from a URL's parameters: a sort key, direction or window it does not
 * know reads as the default's.
 *
 * @internal
 */
export function readServersQuery(params: URLSearchParams): ServersQuery {
  const sort = params.get('sort');
  const dir = params.get('dir');
  const window = params.get('window');
  return {
    sort: SERVER_SORT_KEYS.find((key) => key === sort) ?? DEFAULT_SERVERS_QUERY.sort,
    dir: dir === 'asc' || dir === 'desc' ? dir : DEFAULT_SERVERS_QUERY.dir,
    window: SERVER_WINDOWS.find((key) => key === window) ?? DEFAULT_SERVERS_QUERY.window,
  };
}

/**
 * Sorts server health rows; a server without answered calls (failure rate null) always sorts last.
 *
 * @internal
 */
export function sortServers(rows: readonly ServerHealth[], sort: ServerSortKey, dir: 'asc' | 'desc'): ServerHealth[] {
  const sign = dir === 'asc' ? 1 : -1;
  const value = (row: ServerHealth): number | string | null =>
    sort === ServerSortKey.SERVER
      ? row.server
      : sort === ServerSortKey.CALLS
        ? row.calls
        : sort === ServerSortKey.P95
          ? row.p95DurationMs
          : row.failureRate;
  return [...rows].sort((a, b) => {
    const va = value(a);
    const vb = value(b);
    if (va === null && vb === null) return a.server.localeCompare(b.server);
    if (va === null) return 1;
    if (vb === null) return -1;
    const cmp = typeof va === 'string' ? va.localeCompare(String(vb)) : va - (vb as number);
    return cmp !== 0 ? sign * cmp : a.server.localeCompare(b.server);
  });
}

/**
 * The health verdict of a server: flaky, no counted calls, too few calls for a verdict, healthy.
 *
 * @internal
 */
export function healthVerdict(row: ServerHealth): 'flaky' | 'noAnswers' | 'tooFew' | 'healthy' {
  if (row.flaky) return 'flaky';
  if (row.failureRate === null) return 'noAnswers';
  if (row.tooFewCalls) return 'tooFew';
  return 'healthy';
}

/** Whether a URL names a window the servers pages know (else they open with {@link fittingWindow}'s). @internal */
export function windowGiven(params: URLSearchParams): boolean {
  const window = params.get('window');
  return SERVER_WINDOWS.some((key) => key === window);
}

/**
 * The window the servers pages open with when their URL names none: the shortest that holds every
 * call there is (`calls[window]`: the calls counted since the window's start), so a store whose
 * calls all fall within the last day shows that day by the hour, not 30 days with one dot, and a
 * week of history shows the week. No call at all: the default window (all time).
 *
 * @internal
 */
export function fittingWindow(calls: Readonly<Record<ServerWindow, number>>): ServerWindow {
  const all = calls[ServerWindow.ALL];
  if (all === 0) return DEFAULT_SERVERS_QUERY.window;
  return SERVER_WINDOWS.find((window) => calls[window] >= all) ?? ServerWindow.ALL;
}
