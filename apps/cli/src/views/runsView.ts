import type { ToolOutcome } from '@runledger/core';
import { RUN_STATUSES, type RunPage, type RunStatus, type StoredRun } from '@runledger/trace';
import { Html, html } from '../html/Html.js';
import type { Translator } from '../i18n/Translator.js';
import { NONE, statusBadge } from './badges.js';
import { layout } from './layout.js';
import type { ViewContext } from './ViewContext.js';

/** The filters of the runs list as the query string carries them. @internal */
export interface RunsFilter {
  readonly status: RunStatus | null;
  /** `failed` or `cancelled`: only runs with at least one such tool call. */
  readonly has: typeof ToolOutcome.FAILED | typeof ToolOutcome.CANCELLED | null;
  readonly cursor: string | null;
}

/** The time from start to finish (or to now while running), or null. @internal */
export function runDurationMs(run: StoredRun, now: number): number | null {
  const start = run.startedAt ?? run.createdAt;
  const end = run.finishedAt ?? (run.status === 'running' ? now : null);
  return end === null ? null : Math.max(0, end - start);
}

/** The first block of a run id, enough to tell runs apart on screen. @internal */
export function shortId(id: string): string {
  return id.length > 8 ? id.slice(0, 8) : id;
}

/** A run's tool calls by outcome as three badges ("2 ok", "1 failed", "0 cancelled"). @internal */
export function outcomeCounts(t: Translator, run: StoredRun): Html {
  const cell = (outcome: ToolOutcome, n: number) =>
    html`<span class="badge badge-${outcome} count${n === 0 ? ' count-zero' : ''}" title="${t.t(`runs.detail.outcome.${outcome}`)}">${t.number(n)} ${t.t(`runs.detail.outcome.${outcome}`)}</span>`;
  return html`<span class="counts">${cell('ok', run.outcomeCounts.ok)}${cell('failed', run.outcomeCounts.failed)}${cell('cancelled', run.outcomeCounts.cancelled)}</span>`;
}

/**
 * The runs list: newest first, filters by status and by "has failed / has cancelled" calls,
 * keyset paging.
 *
 * @internal
 */
export function renderRunsView(ctx: ViewContext, page: RunPage, filter: RunsFilter, now: number): Html {
  const { t } = ctx;
  const filterParams = { status: filter.status, has: filter.has };
  const option = (value: string, label: string, selected: boolean) =>
    html`<option value="${value}"${selected ? Html.trusted(' selected') : ''}>${label}</option>`;
  const form = html`<form class="card filters" method="get" action="/" role="search" aria-label="${t.t('runs.filter.legend')}">
${ctx.explicitLang !== null ? html`<input type="hidden" name="lang" value="${ctx.explicitLang}">` : ''}
<label>${t.t('runs.filter.status')}<select name="status">${option('', t.t('runs.filter.status.any'), filter.status === null)}${RUN_STATUSES.map(
    (status) => option(status, t.t(`runs.status.${status}`), filter.status === status),
  )}</select></label>
<label>${t.t('runs.filter.outcome')}<select name="has">${option('', t.t('runs.filter.outcome.any'), filter.has === null)}${option(
    'failed',
    t.t('runs.filter.outcome.failed'),
    filter.has === 'failed',
  )}${option('cancelled', t.t('runs.filter.outcome.cancelled'), filter.has === 'cancelled')}</select></label>
<button type="submit" class="primary">${t.t('runs.filter.apply')}</button>
<a class="button" href="${ctx.href('/')}">${t.t('runs.filter.reset')}</a>
</form>`;

  const rows = page.runs.map((run) => {
    const duration = runDurationMs(run, now);
    return html`<tr data-run-id="${run.id}" data-status="${run.status}">
<td class="status">${statusBadge(t, run.status)}</td>
<td class="run"><a class="mono" href="${ctx.href(`/runs/${encodeURIComponent(run.id)}`)}" title="${run.id}">${shortId(run.id)}</a>${run.title != null ? html` <span class="run-title" data-run-title>${run.title}</span>` : ''}</td>
<td class="configuration">${run.configuration}</td>
<td class="started"><time datetime="${t.iso(run.startedAt ?? run.createdAt)}">${t.date(run.startedAt ?? run.createdAt)}</time></td>
<td class="hide-narrow">${run.finishedAt === null ? NONE : html`<time datetime="${t.iso(run.finishedAt)}">${t.date(run.finishedAt)}</time>`}</td>
<td class="num duration">${duration === null ? NONE : t.duration(duration)}</td>
<td class="calls">${outcomeCounts(t, run)}</td>
</tr>`;
  });

  const table =
    page.runs.length === 0
      ? html`<p class="card">${t.t('runs.empty')}</p>`
      : html`<div class="table-wrap"><table class="runs">
<caption class="visually-hidden">${t.t('runs.title')}</caption>
<thead><tr><th scope="col">${t.t('runs.col.status')}</th><th scope="col">${t.t('runs.col.run')}</th><th scope="col">${t.t('runs.col.configuration')}</th><th scope="col">${t.t('runs.col.started')}</th><th scope="col" class="hide-narrow">${t.t('runs.col.finished')}</th><th scope="col" class="num">${t.t('runs.col.duration')}</th><th scope="col">${t.t('runs.col.calls')}</th></tr></thead>
<tbody>${rows}</tbody>
</table></div>`;

  const pager = html`<nav class="pager" aria-label="${t.t('runs.title')}">
<span>${t.t('runs.page.shown', { count: page.runs.length })}</span>
${filter.cursor !== null ? html`<a class="button" href="${ctx.href('/', filterParams)}">${t.t('runs.page.first')}</a>` : ''}
${page.nextCursor !== null ? html`<a class="button" rel="next" href="${ctx.href('/', { ...filterParams, cursor: page.nextCursor })}">${t.t('runs.page.next')} →</a>` : ''}
</nav>`;

  return layout(ctx, {
    title: t.t('runs.title'),
    section: 'runs',
    body: html`<h1>${t.t('runs.title')}</h1>${form}${table}${pager}`,
  });
}
