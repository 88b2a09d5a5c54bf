import { ToolOutcome } from '@runledger/core';
import { RUN_STATUSES, type RunPage, type RunTotals, type StoredRun } from '@runledger/trace';
import { runDurationMs } from '../viewModels/runDurationMs.js';
import {
  RUNS_FILTER_MAX_TEXT,
  type RunsFilter,
  type RunsFilterField,
  type RunsFilterProblem,
  runsFilterParams,
} from '../viewModels/runsQuery.js';
import { Html, html } from '../html/Html.js';
import { runsTotalsText } from '../i18n/runsTotalsText.js';
import type { Translator } from '../i18n/Translator.js';
import { NONE, statusBadge } from './badges.js';
import { layout } from './layout.js';
import { liveNote, RUNS_LIVE } from './liveNote.js';
import type { ViewContext } from './ViewContext.js';
import { uriComponent } from '../viewModels/uriComponent.js';
import type { FilterSuggestions } from '../viewModels/filterSuggestions.js';

/** What the runs list shows. @internal */
export interface RunsListView {
  readonly filter: RunsFilter;
  /** The filters refused; the list is not read then (`page` is null). */
  readonly problems: readonly RunsFilterProblem[];
  readonly page: RunPage | null;
  /** What every page of the list adds up to; null from a store that cannot search. */
  readonly totals: RunTotals | null;
  /** Whether the store can search (server, tool and title filters are offered only then). */
  readonly searchable: boolean;
  /** The time zone the time filters are read in. */
  readonly timeZone: string;
  /** The names the configuration, server and tool boxes suggest (a `<datalist>` each); none when absent. */
  readonly suggestions?: FilterSuggestions;
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

/** The outcomes the list filters by, in the order the select offers them. */
const HAS_OUTCOMES = [ToolOutcome.FAILED, ToolOutcome.CANCELLED, ToolOutcome.OK] as const;

const FIELD_LABELS = {
  configuration: 'runs.filter.configuration',
  server: 'runs.filter.server',
  tool: 'runs.filter.tool',
  title: 'runs.filter.title',
  from: 'runs.filter.from',
  to: 'runs.filter.to',
} as const satisfies Record<RunsFilterField, string>;

/** The filter form, with its refusals above it, each linked to its field. */
function filterForm(ctx: ViewContext, view: RunsListView): Html {
  const { t } = ctx;
  const { filter, problems } = view;
  const option = (value: string, label: string, selected: boolean) =>
    html`<option value="${value}"${selected ? Html.trusted(' selected') : ''}>${label}</option>`;
  const refused = new Set(problems.map((problem) => problem.field));
  const input = (field: RunsFilterField, type: 'text' | 'search' | 'datetime-local', hint: string | null) => {
    const describedBy = [hint, refused.has(field) ? `filter-${field}-error` : null].filter((id) => id !== null).join(' ');
    // the names the store holds, suggested as the operator types (a datalist: no script needed)
    const names = field === 'configuration' || field === 'server' || field === 'tool' ? (view.suggestions?.[field] ?? []) : [];
    const listId = `filter-${field}-names`;
    return html`<label for="filter-${field}">${t.t(FIELD_LABELS[field])}<input id="filter-${field}" name="${field}" type="${type}"${
      type === 'datetime-local' ? '' : html` maxlength="${String(RUNS_FILTER_MAX_TEXT)}"`
    }${names.length === 0 ? '' : html` list="${listId}" autocomplete="off"`} value="${filter[field] ?? ''}"${
      refused.has(field) ? Html.trusted(' aria-invalid="true"') : ''
    }${describedBy === '' ? '' : html` aria-describedby="${describedBy}"`}></label>${
      names.length === 0 ? '' : html`<datalist id="${listId}">${names.map((name) => html`<option value="${name}"></option>`)}</datalist>`
    }`;
  };
  const errors =
    problems.length === 0
      ? ''
      : html`<div class="note note-error" role="alert" id="filter-errors" data-filter-errors>
<p>${t.t('runs.filter.errors')}</p>
<ul>${problems.map((problem) => {
          const text = t.t(problem.message, problem.params);
          return problem.field === null
            ? html`<li data-field="">${text}</li>`
            : html`<li id="filter-${problem.field}-error" data-field="${problem.field}"><a href="#filter-${problem.field}">${t.t(FIELD_LABELS[problem.field])}</a>: ${text}</li>`;
        })}</ul>
</div>`;
  return html`${errors}<form class="card filters" method="get" action="/" role="search" aria-label="${t.t('runs.filter.legend')}">
${ctx.explicitLang !== null ? html`<input type="hidden" name="lang" value="${ctx.explicitLang}">` : ''}
${filter.refresh ? '' : html`<input type="hidden" name="refresh" value="off">`}
<label>${t.t('runs.filter.status')}<select name="status">${option('', t.t('runs.filter.status.any'), filter.status === null)}${RUN_STATUSES.map(
    (status) => option(status, t.t(`runs.status.${status}`), filter.status === status),
  )}</select></label>
<label>${t.t('runs.filter.outcome')}<select name="has">${option('', t.t('runs.filter.outcome.any'), filter.has === null)}${HAS_OUTCOMES.map(
    (outcome) => option(outcome, t.t(`runs.filter.outcome.${outcome}`), filter.has === outcome),
  )}</select></label>
${input('configuration', 'text', 'filter-exact')}
${view.searchable ? html`${input('server', 'text', 'filter-exact')}${input('tool', 'text', 'filter-exact')}${input('title', 'search', null)}` : ''}
${input('from', 'datetime-local', 'filter-time-zone')}
${input('to', 'datetime-local', 'filter-time-zone')}
<span class="filter-actions"><button type="submit" class="primary">${t.t('runs.filter.apply')}</button>
<a class="button" href="${ctx.href('/')}">${t.t('runs.filter.reset')}</a></span>
<p class="hint muted"><span id="filter-exact">${t.t('runs.filter.exact')}</span> <span id="filter-time-zone">${t.t('runs.filter.timeZone', { zone: view.timeZone })}</span></p>
</form>`;
}

/**
 * While a run on the page runs: the live note (updates in place, a pause button; a reload link without
 * script), or, when the address turned updates off (`refresh=off`), the link that turns them on.
 */
function refreshNote(ctx: ViewContext, filter: RunsFilter, cursor: string | null): Html {
  const { t } = ctx;
  const here = { ...runsFilterParams(filter), cursor };
  return filter.refresh
    ? liveNote(ctx, RUNS_LIVE, { over: t.t('live.over.runs'), reloadHref: ctx.href('/', here) })
    : html`<p class="muted refresh" data-refresh="off">${t.t('runs.refresh.off')} <a href="${ctx.href('/', { ...here, refresh: null })}">${t.t('runs.refresh.start', { count: RUNS_LIVE.seconds })}</a></p>`;
}

function runRow(ctx: ViewContext, run: StoredRun, now: number): Html {
  const { t } = ctx;
  const duration = runDurationMs(run, now);
  return html`<tr data-run-id="${run.id}" data-status="${run.status}">
<td class="status">${statusBadge(t, run.status)}</td>
<td class="run"><a class="mono" href="${ctx.href(`/runs/${uriComponent(run.id)}`)}" title="${run.id}">${shortId(run.id)}</a>${run.title != null ? html` <span class="run-title" data-run-title>${run.title}</span>` : ''}</td>
<td class="configuration">${run.configuration}</td>
<td class="started"><time datetime="${t.iso(run.startedAt ?? run.createdAt)}">${t.date(run.startedAt ?? run.createdAt)}</time></td>
<td class="hide-narrow">${run.finishedAt === null ? NONE : html`<time datetime="${t.iso(run.finishedAt)}">${t.date(run.finishedAt)}</time>`}</td>
<td class="num duration">${duration === null ? NONE : t.duration(duration)}</td>
<td class="num tokens hide-narrow">${run.tokens === undefined ? NONE : t.number(run.tokens)}</td>
<td class="calls">${outcomeCounts(t, run)}</td>
</tr>`;
}

/**
 * The runs list: newest first, filtered by status, outcome, configuration, time range and (where
 * the store can search) server, tool and title; the totals of the filters, keyset paging, and a
 * update in place every few seconds while a run on the page runs.
 *
 * @internal
 */
export function renderRunsView(ctx: ViewContext, view: RunsListView, now: number): Html {
  const { t } = ctx;
  const { filter, page, totals } = view;
  const filterParams = runsFilterParams(filter);
  const running = page !== null && page.runs.some((run) => run.status === 'running');

  const totalsLine =
    totals === null
      ? ''
      : html`<p class="totals" data-totals data-runs="${String(totals.runs)}" data-tokens="${String(totals.tokens)}" data-complete="${String(totals.complete)}">${runsTotalsText(t, totals)}</p>`;

  const table =
    page === null
      ? ''
      : page.runs.length === 0
        ? html`<p class="card">${t.t('runs.empty')}</p>`
        : html`<div class="table-wrap"><table class="runs">
<caption class="visually-hidden">${t.t('runs.title')}</caption>
<thead><tr><th scope="col">${t.t('runs.col.status')}</th><th scope="col">${t.t('runs.col.run')}</th><th scope="col">${t.t('runs.col.configuration')}</th><th scope="col">${t.t('runs.col.started')}</th><th scope="col" class="hide-narrow">${t.t('runs.col.finished')}</th><th scope="col" class="num">${t.t('runs.col.duration')}</th><th scope="col" class="num hide-narrow">${t.t('runs.col.tokens')}</th><th scope="col">${t.t('runs.col.calls')}</th></tr></thead>
<tbody>${page.runs.map((run) => runRow(ctx, run, now))}</tbody>
</table></div>`;

  const pager =
    page === null
      ? ''
      : html`<nav class="pager" aria-label="${t.t('runs.title')}">
<span>${t.t('runs.page.shown', { count: page.runs.length })}</span>
${filter.cursor !== null ? html`<a class="button" href="${ctx.href('/', filterParams)}">${t.t('runs.page.first')}</a>` : ''}
${page.nextCursor !== null ? html`<a class="button" rel="next" href="${ctx.href('/', { ...filterParams, cursor: page.nextCursor })}">${t.t('runs.page.next')} →</a>` : ''}
</nav>`;

  return layout(ctx, {
    title: t.t('runs.title'),
    section: 'runs',
    ...(running && filter.refresh ? { live: RUNS_LIVE } : {}),
    body: html`<h1>${t.t('runs.title')}</h1>${filterForm(ctx, view)}${running ? refreshNote(ctx, filter, filter.cursor) : ''}<div data-live-region="list">${totalsLine}${table}${pager}</div>`,
  });
}
