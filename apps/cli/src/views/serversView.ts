import type { ServerHealth } from '@runledger/trace';
import { Html, html } from '../html/Html.js';
import { NONE, textBadge } from './badges.js';
import { failureCauseLabel } from './failureCauseLabel.js';
import { layout } from './layout.js';
import type { ViewContext } from './ViewContext.js';

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
export const DEFAULT_SERVERS_QUERY: ServersQuery = { sort: 'failure_rate', dir: 'desc', window: 'all' };

/** The start of a window relative to now, or undefined for all time. @internal */
export function windowSince(window: ServerWindow, now: number): number | undefined {
  if (window === '24h') return now - 24 * 3_600_000;
  if (window === '7d') return now - 7 * 24 * 3_600_000;
  return undefined;
}

/**
 * Sorts server health rows; a server without answered calls (failure rate null) always sorts last.
 *
 * @internal
 */
export function sortServers(rows: readonly ServerHealth[], sort: ServerSortKey, dir: 'asc' | 'desc'): ServerHealth[] {
  const sign = dir === 'asc' ? 1 : -1;
  const value = (row: ServerHealth): number | string | null =>
    sort === 'server' ? row.server : sort === 'calls' ? row.calls : sort === 'p95' ? row.p95DurationMs : row.failureRate;
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

/**
 * The MCP servers page: per server calls, ok, failed, cancelled, failure rate without the
 * cancellations and invalid-argument calls (shown beside it), failures by cause, last failure,
 * p95 over answered calls and a health badge (flaky, too few calls, healthy); sortable.
 *
 * @internal
 */
export function renderServersView(ctx: ViewContext, rows: readonly ServerHealth[], query: ServersQuery): Html {
  const { t } = ctx;
  const sorted = sortServers(rows, query.sort, query.dir);
  const header = (key: ServerSortKey, label: string, numeric: boolean) => {
    const active = query.sort === key;
    const nextDir = active && query.dir === 'desc' ? 'asc' : 'desc';
    const ariaSort = active ? (query.dir === 'asc' ? 'ascending' : 'descending') : 'none';
    const arrow = active ? (query.dir === 'asc' ? ' ▲' : ' ▼') : '';
    return html`<th scope="col" class="${numeric ? 'num' : ''}" aria-sort="${ariaSort}"><a class="sort" href="${ctx.href('/servers', {
      sort: key,
      dir: nextDir,
      window: query.window,
    })}" title="${t.t(nextDir === 'asc' ? 'servers.sort.asc' : 'servers.sort.desc')}">${label}${arrow}</a></th>`;
  };
  const windows = (['24h', '7d', 'all'] as const).map(
    (window) =>
      html`<a class="button" href="${ctx.href('/servers', { sort: query.sort, dir: query.dir, window })}"${
        window === query.window ? Html.trusted(' aria-current="true" style="font-weight:700;border-color:#24292f"') : ''
      }>${t.t(`servers.window.${window}`)}</a>`,
  );
  const body = sorted.map((row) => {
    const verdict = healthVerdict(row);
    const health =
      verdict === 'flaky'
        ? textBadge('flaky', '⚠', t.t('servers.flaky'))
        : verdict === 'noAnswers'
          ? textBadge('neutral', '–', t.t('servers.noAnswers'))
          : verdict === 'tooFew'
            ? textBadge('neutral', '…', t.t('servers.tooFew'))
            : textBadge('ok', '✓', t.t('servers.healthy'));
    const causes =
      row.failureCauses.length === 0
        ? NONE
        : html`<ul class="causes">${row.failureCauses.map(
            (c) => html`<li data-cause="${c.cause}">${failureCauseLabel(t, c.cause)}: ${t.number(c.calls)}</li>`,
          )}</ul>`;
    return html`<tr data-server="${row.server}" data-flaky="${row.flaky ? 'true' : 'false'}" data-health="${verdict}">
<th scope="row" class="mono">${row.server}</th>
<td class="num">${t.number(row.calls)}</td>
<td class="num">${t.number(row.ok)}</td>
<td class="num">${t.number(row.failed)}</td>
<td class="num">${t.number(row.cancelled)}</td>
<td class="num"><span class="rate" data-failure-rate="${row.failureRate ?? ''}">${row.failureRate === null ? NONE : t.ratio(row.failureRate)}</span>${
      row.cancelled > 0 ? html`<br><small class="muted">${t.t('servers.cancelledBeside', { count: row.cancelled })}</small>` : ''
    }${row.invalidArguments > 0 ? html`<br><small class="muted" data-invalid-arguments="${row.invalidArguments}">${t.t('servers.invalidBeside', { count: row.invalidArguments })}</small>` : ''}</td>
<td>${causes}</td>
<td>${row.lastFailureAt === null ? html`<span class="muted">${t.t('common.never')}</span>` : html`<time datetime="${t.iso(row.lastFailureAt)}">${t.date(row.lastFailureAt)}</time>`}</td>
<td class="num">${row.p95DurationMs === null ? NONE : t.number(row.p95DurationMs)}${
      row.answered > 0 ? html`<br><small class="muted">${t.t('servers.answeredBeside', { count: row.answered })}</small>` : ''
    }</td>
<td>${health}</td>
</tr>`;
  });
  const table =
    sorted.length === 0
      ? html`<p class="card">${t.t('servers.empty')}</p>`
      : html`<div class="table-wrap"><table>
<caption class="visually-hidden">${t.t('servers.title')}</caption>
<thead><tr>${header('server', t.t('servers.col.server'), false)}${header('calls', t.t('servers.col.calls'), true)}<th scope="col" class="num">${t.t(
          'servers.col.ok',
        )}</th><th scope="col" class="num">${t.t('servers.col.failed')}</th><th scope="col" class="num">${t.t('servers.col.cancelled')}</th>${header(
          'failure_rate',
          t.t('servers.col.failureRate'),
          true,
        )}<th scope="col">${t.t('servers.col.causes')}</th><th scope="col">${t.t('servers.col.lastFailure')}</th>${header('p95', t.t('servers.col.p95'), true)}<th scope="col">${t.t('servers.col.health')}</th></tr></thead>
<tbody>${body}</tbody>
</table></div>`;
  return layout(ctx, {
    title: t.t('servers.title'),
    section: 'servers',
    body: html`<h1>${t.t('servers.title')}</h1>
<p class="note">${t.t('servers.intro')}</p>
<nav class="pager" aria-label="${t.t('servers.window')}"><span>${t.t('servers.window')}:</span>${windows}</nav>
${table}`,
  });
}
