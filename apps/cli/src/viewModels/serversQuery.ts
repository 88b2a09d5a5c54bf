/**
 * What the servers page and `runledger servers` ask of the stores' server health, in one place:
 * the windows, the sort keys, reading them from a URL, sorting rows and a row's health verdict.
 */
import type { ServerHealth } from '@runledger/trace';
import type { MessageKey } from '../i18n/messagesEn.js';
import type { Translator } from '../i18n/Translator.js';

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

/** The default query: all time, worst first (flaky first, then the worst failure rate). @internal */
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

/** What {@link compareWorstFirst} orders servers by: a row of server health, or a cursor's position. @internal */
export type WorstFirstKey = Pick<ServerHealth, 'flaky' | 'failureRate' | 'failed' | 'server'>;

/**
 * Worst first, the one order of `runledger servers` and of the servers page by default: flaky
 * servers first, then the higher failure rate over answered calls (a server without one last),
 * then more failed calls, then by name.
 *
 * @internal
 */
export function compareWorstFirst(a: WorstFirstKey, b: WorstFirstKey): number {
  if (a.flaky !== b.flaky) return a.flaky ? -1 : 1;
  if (a.failureRate !== b.failureRate) {
    if (a.failureRate === null) return 1;
    if (b.failureRate === null) return -1;
    return b.failureRate - a.failureRate;
  }
  if (a.failed !== b.failed) return b.failed - a.failed;
  // two names the locale reads alike still differ: every server has one place, so a cursor finds it
  return a.server.localeCompare(b.server) || (a.server < b.server ? -1 : a.server > b.server ? 1 : 0);
}

/**
 * Sorts server health rows; a server without a value of the column (a failure rate or p95 that is
 * null) always sorts last. By failure rate, descending is {@link compareWorstFirst} (flaky first)
 * and ascending its reverse.
 *
 * @internal
 */
export function sortServers(rows: readonly ServerHealth[], sort: ServerSortKey, dir: 'asc' | 'desc'): ServerHealth[] {
  const sign = dir === 'asc' ? 1 : -1;
  if (sort === ServerSortKey.FAILURE_RATE) {
    const answered = rows.filter((row) => row.failureRate !== null).sort((a, b) => -sign * compareWorstFirst(a, b));
    const unanswered = rows.filter((row) => row.failureRate === null).sort(compareWorstFirst);
    return [...answered, ...unanswered];
  }
  const value = (row: ServerHealth): number | string | null =>
    sort === ServerSortKey.SERVER ? row.server : sort === ServerSortKey.CALLS ? row.calls : row.p95DurationMs;
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

/** The servers worst first (see {@link compareWorstFirst}). @internal */
export function worstFirst(rows: readonly ServerHealth[]): ServerHealth[] {
  return sortServers(rows, DEFAULT_SERVERS_QUERY.sort, DEFAULT_SERVERS_QUERY.dir);
}

/** The words of each health verdict. */
const VERDICT_KEYS = {
  flaky: 'servers.flaky',
  noAnswers: 'servers.noAnswers',
  tooFew: 'servers.tooFew',
  healthy: 'servers.healthy',
} as const satisfies Record<ReturnType<typeof healthVerdict>, MessageKey>;

/**
 * A server's health verdict in words (`flaky`, `no answers`, `too few calls`, `healthy`): the
 * servers page's badge and `runledger servers`' HEALTH column say it alike.
 *
 * @internal
 */
export function healthText(t: Translator, row: ServerHealth): string {
  return t.t(VERDICT_KEYS[healthVerdict(row)]);
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
