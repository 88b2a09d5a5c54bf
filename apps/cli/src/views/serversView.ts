import type { ServerHealth } from '@runledger/trace';
import { Html, html } from '../html/Html.js';
import type { Translator } from '../i18n/Translator.js';
import { NONE, textBadge } from './badges.js';
import { failureCauseLabel } from '../i18n/failureCauseLabel.js';
import { type AlertsSection, renderAlertsSection } from './alertsSection.js';
import { layout } from './layout.js';
import { serverLink } from './serverLink.js';
import { renderSparkline } from './trendChartView.js';
import type { ViewContext } from './ViewContext.js';
import {
  healthText,
  healthVerdict,
  SERVER_WINDOWS,
  type ServerSortKey,
  sortServers,
  type ServersQuery,
} from '../viewModels/serversQuery.js';
import { type ServerTrends, trendOf } from '../viewModels/serverTrends.js';

/** A server's health verdict as a badge: flaky, no answers, too few calls or healthy. @internal */
export function healthBadge(t: Translator, row: ServerHealth): Html {
  const verdict = healthVerdict(row);
  const text = healthText(t, row);
  return verdict === 'flaky'
    ? textBadge('flaky', '⚠', text)
    : verdict === 'noAnswers'
      ? textBadge('neutral', '–', text)
      : verdict === 'tooFew'
        ? textBadge('neutral', '…', text)
        : textBadge('ok', '✓', text);
}

/**
 * The MCP servers page: per server its health badge (flaky, no answers, too few calls, healthy)
 * right after its name, so that no width cuts it, then calls, ok, failed, cancelled, failure rate without the
 * cancellations and calls not charged to the server (shown beside it), failures by cause, last failure,
 * p95 over answered calls and a health badge (flaky, too few calls, healthy); sortable. Beside the
 * failure rate and the p95, a small chart of each per hour or day over the window (`trends`); the
 * name links to the server's page. Below the table, the alerts section (firing now, recent changes).
 *
 * @internal
 */
export function renderServersView(
  ctx: ViewContext,
  rows: readonly ServerHealth[],
  query: ServersQuery,
  trends: ServerTrends,
  alerts: AlertsSection = { kind: 'off' },
): Html {
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
  const windows = SERVER_WINDOWS.map(
    (window) =>
      html`<a class="button" href="${ctx.href('/servers', { sort: query.sort, dir: query.dir, window })}"${
        window === query.window ? Html.trusted(' aria-current="true" style="font-weight:700;border-color:#24292f"') : ''
      }>${t.t(`servers.window.${window}`)}</a>`,
  );
  const body = sorted.map((row) => {
    const verdict = healthVerdict(row);
    const points = trendOf(trends, row.server);
    const causes =
      row.failureCauses.length === 0
        ? NONE
        : html`<ul class="causes">${row.failureCauses.map(
            (c) => html`<li data-cause="${c.cause}">${failureCauseLabel(t, c.cause)}: ${t.number(c.calls)}</li>`,
          )}</ul>`;
    return html`<tr data-server="${row.server}" data-flaky="${row.flaky ? 'true' : 'false'}" data-health="${verdict}">
<th scope="row" class="mono">${serverLink(ctx, row.server, { window: query.window })}</th>
<td class="health">${healthBadge(t, row)}</td>
<td class="num" data-label="${t.t('servers.col.calls')}">${t.number(row.calls)}</td>
<td class="num" data-label="${t.t('servers.col.ok')}">${t.number(row.ok)}</td>
<td class="num" data-label="${t.t('servers.col.failed')}">${t.number(row.failed)}</td>
<td class="num" data-label="${t.t('servers.col.cancelled')}">${t.number(row.cancelled)}</td>
<td class="num rate-cell" data-label="${t.t('servers.col.failureRate')}"><span class="rate" data-failure-rate="${row.failureRate ?? ''}">${row.failureRate === null ? NONE : t.ratio(row.failureRate)}</span>${
      row.cancelled > 0 ? html`<br><small class="muted">${t.t('servers.cancelledBeside', { count: row.cancelled })}</small>` : ''
    }${row.notCharged > 0 ? html`<br><small class="muted" data-not-charged="${row.notCharged}">${t.t('servers.notChargedBeside', { count: row.notCharged })}</small>` : ''}${renderSparkline(
      t,
      'failureRate',
      trends.unit,
      points,
    )}</td>
<td class="failure-causes" data-label="${t.t('servers.col.causes')}">${causes}</td>
<td class="last-failure" data-label="${t.t('servers.col.lastFailure')}">${row.lastFailureAt === null ? html`<span class="muted">${t.t('common.never')}</span>` : html`<time datetime="${t.iso(row.lastFailureAt)}">${t.date(row.lastFailureAt)}</time>`}</td>
<td class="num p95" data-label="${t.t('servers.col.p95')}">${row.p95DurationMs === null ? NONE : t.duration(row.p95DurationMs)}${
      row.answered > 0 ? html`<br><small class="muted">${t.t('servers.answeredBeside', { count: row.answered })}</small>` : ''
    }${renderSparkline(t, 'p95', trends.unit, points)}</td>
</tr>`;
  });
  const table =
    sorted.length === 0
      ? html`<p class="card">${t.t('servers.empty')}</p>`
      : html`<div class="table-wrap"><table class="servers">
<caption class="visually-hidden">${t.t('servers.title')}</caption>
<thead><tr>${header('server', t.t('servers.col.server'), false)}<th scope="col">${t.t('servers.col.health')}</th>${header('calls', t.t('servers.col.calls'), true)}<th scope="col" class="num">${t.t(
          'servers.col.ok',
        )}</th><th scope="col" class="num">${t.t('servers.col.failed')}</th><th scope="col" class="num">${t.t('servers.col.cancelled')}</th>${header(
          'failure_rate',
          t.t('servers.col.failureRate'),
          true,
        )}<th scope="col">${t.t('servers.col.causes')}</th><th scope="col">${t.t('servers.col.lastFailure')}</th>${header('p95', t.t('servers.col.p95'), true)}</tr></thead>
<tbody>${body}</tbody>
</table></div>`;
  return layout(ctx, {
    title: t.t('servers.title'),
    section: 'servers',
    body: html`<h1>${t.t('servers.title')}</h1>
<p class="note">${t.t('servers.intro')}</p>
<p class="muted" data-note="trends">${t.t(`servers.trends.${query.window}`)}</p>
<nav class="pager" aria-label="${t.t('servers.window')}"><span>${t.t('servers.window')}:</span>${windows}</nav>
${table}
${renderAlertsSection(ctx, alerts)}`,
  });
}
