import type { ServerHealth, StoredToolCall, ToolCallPage } from '@runledger/trace';
import { Html, html } from '../html/Html.js';
import { NONE } from './badges.js';
import { failureCauseLabel, failureWhyText } from '../i18n/failureCauseLabel.js';
import { layout } from './layout.js';
import { shortId } from './runsView.js';
import { healthBadge } from './serversView.js';
import { renderTrendChart, renderTrendFigures, TREND_METRICS } from './trendChartView.js';
import { TIMELINE_PAGE_SIZE } from './runView.js';
import type { ViewContext } from './ViewContext.js';
import { SERVER_WINDOWS, type ServerWindow } from '../viewModels/serversQuery.js';
import { type ServerTrends, trendOf } from '../viewModels/serverTrends.js';
import { uriComponent } from '../viewModels/uriComponent.js';

/** What a server's page shows. @internal */
export interface ServerPage {
  readonly server: string;
  /** The page's address (`/servers/<encoded id>`). */
  readonly path: string;
  readonly window: ServerWindow;
  /** The server's health in the window, or null when it had no call in it. */
  readonly health: ServerHealth | null;
  readonly trends: ServerTrends;
  /** One page of its failed calls in the window, newest first; null when the store cannot list calls. */
  readonly failing: ToolCallPage | null;
  /** The cursor this page of failed calls was read from (null: the newest). */
  readonly cursor: string | null;
  readonly now: number;
}

/** The link to a call's step on its run's page: the timeline page that holds the step, at its row. @internal */
export function stepHref(ctx: ViewContext, call: Pick<StoredToolCall, 'runId' | 'sequence'>): string {
  const from = Math.floor(call.sequence / TIMELINE_PAGE_SIZE) * TIMELINE_PAGE_SIZE;
  return `${ctx.href(`/runs/${uriComponent(call.runId)}`, { from: from === 0 ? null : from })}#step-${call.sequence}`;
}

function healthCard(ctx: ViewContext, health: ServerHealth | null): Html {
  const { t } = ctx;
  if (health === null) return html`<p class="card" data-note="no-calls">${t.t('server.noCalls')}</p>`;
  const causes =
    health.failureCauses.length === 0
      ? NONE
      : html`<ul class="causes">${health.failureCauses.map(
          (c) => html`<li data-cause="${c.cause}">${failureCauseLabel(t, c.cause)}: ${t.number(c.calls)}</li>`,
        )}</ul>`;
  const notCounted = [
    health.cancelled > 0 ? t.t('servers.cancelledBeside', { count: health.cancelled }) : null,
    health.notCharged > 0 ? t.t('servers.notChargedBeside', { count: health.notCharged }) : null,
  ].filter((text) => text !== null);
  return html`<section class="card" aria-labelledby="health-h" data-section="health">
<h2 id="health-h">${t.t('server.health')}</h2>
<dl class="summary">
<dt>${t.t('servers.col.health')}</dt><dd class="health">${healthBadge(t, health)}</dd>
<dt>${t.t('servers.col.failureRate')}</dt><dd><span class="rate" data-failure-rate="${health.failureRate ?? ''}">${health.failureRate === null ? NONE : t.ratio(health.failureRate)}</span>${
    notCounted.length === 0 ? '' : html` <small class="muted">(${notCounted.join('; ')})</small>`
  }</dd>
<dt>${t.t('servers.col.calls')}</dt><dd><span class="counts"><span class="badge badge-ok count">${t.number(health.ok)} ${t.t('runs.detail.outcome.ok')}</span><span class="badge badge-failed count">${t.number(health.failed)} ${t.t('runs.detail.outcome.failed')}</span><span class="badge badge-cancelled count">${t.number(health.cancelled)} ${t.t('runs.detail.outcome.cancelled')}</span><span class="muted" data-calls="${health.calls}">(${t.number(health.calls)})</span></span></dd>
<dt>${t.t('servers.col.causes')}</dt><dd>${causes}</dd>
<dt>${t.t('servers.col.lastFailure')}</dt><dd>${health.lastFailureAt === null ? html`<span class="muted">${t.t('common.never')}</span>` : html`<time datetime="${t.iso(health.lastFailureAt)}">${t.date(health.lastFailureAt)}</time>`}</dd>
<dt>${t.t('servers.col.p95')}</dt><dd class="p95">${health.p95DurationMs === null ? NONE : t.duration(health.p95DurationMs)}${
    health.answered > 0 ? html` <small class="muted">${t.t('servers.answeredBeside', { count: health.answered })}</small>` : ''
  }</dd>
</dl>
</section>`;
}

/** The why of a failed call under its cause (`answered 503`), when the transport knew it. */
function whyHtml(why: string | null): Html | string {
  return why === null ? '' : html`<br><span class="why muted" data-why>${why}</span>`;
}

function failingSection(ctx: ViewContext, page: ServerPage): Html {
  const { t } = ctx;
  const heading = html`<h2 id="failing-h">${t.t('server.failing')}</h2>`;
  if (page.failing === null) {
    return html`<section aria-labelledby="failing-h" data-section="failing">${heading}<p class="note" role="note" data-note="cannot-list">${t.t('server.failing.unsupported')}</p></section>`;
  }
  const { calls, nextCursor } = page.failing;
  const rows = calls.map(
    (call) => html`<tr data-run-id="${call.runId}" data-sequence="${call.sequence}">
<td class="time"><time datetime="${t.iso(call.createdAt)}">${t.date(call.createdAt)}</time></td>
<td class="tool mono">${call.tool ?? NONE}</td>
<td class="cause" data-cause="${call.cause ?? ''}">${failureCauseLabel(t, call.cause ?? 'unknown')}${whyHtml(failureWhyText(t, call.failureFacts))}</td>
<td class="num duration">${t.duration(call.durationMs)}</td>
<td class="run"><a class="mono" href="${stepHref(ctx, call)}" title="${call.runId}">${shortId(call.runId)}</a> <span class="muted">${t.t('server.failing.step', { step: call.sequence + 1 })}</span></td>
</tr>`,
  );
  const windowParam = { window: page.window };
  const pager = html`<nav class="pager" aria-label="${t.t('server.failing')}">
<span>${t.t('server.failing.shown', { count: calls.length })}</span>
${page.cursor !== null ? html`<a class="button" href="${ctx.href(page.path, windowParam)}">${t.t('server.failing.first')}</a>` : ''}
${nextCursor !== null ? html`<a class="button" rel="next" href="${ctx.href(page.path, { ...windowParam, cursor: nextCursor })}">${t.t('server.failing.next')} →</a>` : ''}
</nav>`;
  const table =
    calls.length === 0
      ? html`<p class="card" data-note="no-failing">${t.t('server.failing.none')}</p>`
      : html`<div class="table-wrap"><table class="failing-calls">
<caption class="visually-hidden">${t.t('server.failing')}</caption>
<thead><tr><th scope="col">${t.t('server.failing.col.time')}</th><th scope="col">${t.t('server.failing.col.tool')}</th><th scope="col">${t.t(
          'server.failing.col.cause',
        )}</th><th scope="col" class="num">${t.t('server.failing.col.duration')}</th><th scope="col">${t.t('server.failing.col.run')}</th></tr></thead>
<tbody>${rows}</tbody>
</table></div>`;
  return html`<section aria-labelledby="failing-h" data-section="failing">${heading}
<p class="muted">${t.t('server.failing.intro')}</p>
${table}
${calls.length > 0 || page.cursor !== null ? pager : ''}
</section>`;
}

/**
 * A server's page: its health in the window, its failure rate and p95 per hour or day as charts
 * (with the figures as a table), and its failed calls in the window, newest first, each linking to
 * its step in its run; keyset paging.
 *
 * @internal
 */
export function renderServerView(ctx: ViewContext, page: ServerPage): Html {
  const { t } = ctx;
  const points = trendOf(page.trends, page.server);
  const windows = SERVER_WINDOWS.map(
    (window) =>
      html`<a class="button" href="${ctx.href(page.path, { window })}"${
        window === page.window ? Html.trusted(' aria-current="true" style="font-weight:700;border-color:#24292f"') : ''
      }>${t.t(`servers.window.${window}`)}</a>`,
  );
  const title = t.t('server.title', { server: page.server });
  return layout(ctx, {
    title,
    section: 'servers',
    body: html`<p><a href="${ctx.href('/servers', { window: page.window })}">← ${t.t('server.back')}</a></p>
<h1 data-server="${page.server}">${title}</h1>
<nav class="pager" aria-label="${t.t('servers.window')}"><span>${t.t('servers.window')}:</span>${windows}</nav>
${healthCard(ctx, page.health)}
<section class="card trends" aria-labelledby="trends-h" data-section="trends">
<h2 id="trends-h">${t.t('server.trends')}</h2>
<p class="muted">${t.t(`servers.trends.${page.window}`)}</p>
<div class="trend-charts">${TREND_METRICS.map((metric) => renderTrendChart(t, metric, page.trends.unit, points, page.trends.buckets, page.now))}</div>
${renderTrendFigures(t, page.trends.unit, points)}
</section>
${failingSection(ctx, page)}`,
  });
}
