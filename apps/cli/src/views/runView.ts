import { cancelRequestText } from './cancelRequestText.js';
import { isLateCancel, type RunTimelineDetail, type RunTimelineEntry, type StoredRun } from '@runledger/trace';
import { Html, html } from '../html/Html.js';
import { isMessageKey } from '../i18n/messagesEn.js';
import type { Translator } from '../i18n/Translator.js';
import { NONE, outcomeBadge, statusBadge } from './badges.js';
import { failureCauseLabel, failureWhyText } from '../i18n/failureCauseLabel.js';
import { approvalOfDetails, approvalText } from './approvalText.js';
import type { StepContent } from '../viewModels/stepContent.js';
import { kindText } from './kindText.js';
import { layout } from './layout.js';
import { liveNote, RUN_LIVE } from './liveNote.js';
import type { ViewContext } from './ViewContext.js';
import { renderWaterfallView } from './waterfallView.js';
import { serverLink, toolServerOf } from './serverLink.js';
import { reasonText, reasonWordsText } from './reasonText.js';
import { outcomeCounts } from './runsView.js';
import { runDurationMs } from '../viewModels/runDurationMs.js';
import { wireMs } from '../viewModels/wireMs.js';
import { writeUnknownNote } from '../viewModels/writeUnknownNote.js';
import { uriComponent } from '../viewModels/uriComponent.js';
import { stepSpan } from '../viewModels/stepSpan.js';
import { shiftRange, type StepRange } from '../viewModels/zoomRange.js';
import { renderZoomNav, zoomHref } from './zoomNav.js';

/** The most timeline rows (steps) one page shows. @internal */
export const TIMELINE_PAGE_SIZE = 200;

/** The slice of a run's timeline one view shows: one page of at most {@link TIMELINE_PAGE_SIZE} steps. @internal */
export interface TimelineSlice {
  /** The first sequence on the page. */
  readonly from: number;
  /** The page's steps and the lifecycle events that fall in its time span, in time order. */
  readonly entries: readonly RunTimelineEntry[];
  /** The number of steps shown (lifecycle rows not counted). */
  readonly stepsShown: number;
  /** For a running run: every call on the wire (sent, not answered yet), wherever its page. */
  readonly wire?: readonly RunTimelineEntry[];
  /** The content of the page's tool steps recorded at `redacted` or `full`, by sequence (none at `metadata`). */
  readonly contents?: ReadonlyMap<number, StepContent>;
}

/** The detail keys shown first, in this order; the rest follow as the factory gives them. */
const DETAIL_ORDER = ['toolName', 'approved', 'failureCause', 'model', 'writeKind', 'writeResource', 'writeId'];

/**
 * Details not shown: the server has its own column, `writes` becomes a note, the call id pairs rows,
 * the failure facts are said in words beside the cause, who decided a call and why beside its approval.
 */
const HIDDEN_DETAILS = new Set([
  'writes',
  'toolServer',
  'toolCallId',
  'httpStatus',
  'jsonRpcCode',
  'errorClass',
  'serverIsError',
  'approvedBy',
  'approvalReason',
]);

/**
 * The source of an entry in words: `agent` and `run` are translated; servers and models are names.
 *
 * @internal
 */
export function sourceText(t: Translator, entry: RunTimelineEntry): string {
  if (entry.event !== null) return t.t('runs.detail.source.run');
  if (entry.source === 'agent' && entry.kind !== 'tool' && entry.kind !== 'tool_start' && entry.kind !== 'llm')
    return t.t('runs.detail.source.agent');
  return entry.source;
}

function callStateBadge(t: Translator, entry: RunTimelineEntry, now: number): Html {
  if (entry.callState === 'on_the_wire') {
    return html`<span class="badge badge-running" data-call-state="on_the_wire" title="${t.t('runs.detail.callState.runningFor', { duration: t.duration(wireMs(entry, now) ?? 0) })}"><span aria-hidden="true">◔</span>${t.t('runs.detail.callState.on_the_wire')}</span>`;
  }
  return html`<span class="badge badge-interrupted" data-call-state="interrupted"><span aria-hidden="true">!</span>${t.t('runs.detail.callState.interrupted')}</span>`;
}

function detailLabel(t: Translator, key: string): string {
  const messageKey = `runs.detail.key.${key}`;
  return isMessageKey(messageKey) ? t.t(messageKey) : key;
}

function detailValue(t: Translator, key: string, value: RunTimelineDetail, entry?: RunTimelineEntry): string {
  if (key === 'failureCause') {
    const why = entry === undefined ? null : failureWhyText(t, entry.details);
    return why === null ? failureCauseLabel(t, String(value)) : `${failureCauseLabel(t, String(value))} (${why})`;
  }
  if (key === 'approved' && entry !== undefined) {
    const approval = approvalOfDetails(entry.details);
    if (approval !== null) return approvalText(t, approval);
  }
  return typeof value === 'number' ? t.decimal(value) : String(value);
}

/** The mark beside the outcome of a call that may have run on the server. */
function mayHaveExecutedMark(t: Translator): Html {
  return html` <span class="badge badge-may-have-executed" data-may-have-executed="true" title="${t.t('runs.detail.mayHaveExecutedTitle')}"><span aria-hidden="true">⚠</span>${t.t('runs.detail.mayHaveExecuted')}</span>`;
}

/** A failed call's error message on its row, and its arguments and result folded, when the step holds them. */
function contentHtml(t: Translator, content: StepContent | undefined): Html | string {
  if (content === undefined) return '';
  const message =
    content.errorMessage === null
      ? ''
      : html`<p class="error-message" data-error-message><span class="k">${t.t('runs.detail.errorMessage')}:</span> <span class="v">${content.errorMessage}</span></p>`;
  const parts: Html[] = [
    content.arguments === null
      ? html``
      : html`<p class="k">${t.t('runs.detail.arguments')}</p><pre data-content="arguments">${content.arguments}</pre>`,
    content.result === null
      ? html``
      : html`<p class="k">${t.t('runs.detail.result')}</p><pre data-content="result">${content.result}</pre>`,
  ];
  return html`${message}<details class="step-content" data-step-content><summary>${t.t('runs.detail.content')}</summary>${Html.join(parts)}</details>`;
}

function rowHtml(ctx: ViewContext, entry: RunTimelineEntry, now: number, content?: StepContent): Html {
  const { t } = ctx;
  const span = stepSpan(entry);
  const at = (ms: number | null) => (ms === null ? NONE : html`<time datetime="${t.iso(ms)}">${t.time(ms)}</time>`);
  const time = html`<td class="mono start">${at(span.start)}</td><td class="mono end">${at(span.end)}</td>`;
  if (entry.event !== null) {
    const reason = entry.details['reason'];
    return html`<tr class="lifecycle" data-lifecycle="${entry.event}">
${time}<td class="source">${t.t('runs.detail.source.run')}</td><td class="kind">${t.t('runs.detail.kind.lifecycle')}</td><td class="num round">${NONE}</td><td class="num duration">${NONE}</td><td class="outcome">${NONE}</td>
<td class="details"><strong>${t.t(`runs.detail.lifecycle.${entry.event}`)}</strong>${reason !== undefined ? html` — <span>${reasonWordsText(t, String(reason))}</span>` : ''}</td>
</tr>`;
  }
  const keys = Object.keys(entry.details).filter((key) => !HIDDEN_DETAILS.has(key));
  keys.sort((a, b) => {
    const ia = DETAIL_ORDER.indexOf(a);
    const ib = DETAIL_ORDER.indexOf(b);
    return (ia === -1 ? DETAIL_ORDER.length : ia) - (ib === -1 ? DETAIL_ORDER.length : ib);
  });
  const details = entry.unreadable
    ? html`<span class="muted">${t.t('runs.detail.unreadable')}${entry.unreadableReason !== null ? ` (${entry.unreadableReason})` : ''}</span>`
    : Html.join(
        keys.map(
          (key) =>
            html`<span class="kv"><span class="k">${detailLabel(t, key)}:</span> <span class="v${key === 'toolName' ? ' mono' : ''}">${key === 'toolName' ? serverLink(ctx, toolServerOf(entry), {}, detailValue(t, key, entry.details[key]!)) : detailValue(t, key, entry.details[key]!, entry)}</span></span>`,
        ),
      );
  const note = entry.callState === 'interrupted' ? t.t('runs.detail.callState.interruptedNote') : writeUnknownNote(t, entry);
  const source = sourceText(t, entry);
  const ms = entry.durationMs ?? wireMs(entry, now);
  const rowClass = entry.callState !== null ? `row-${entry.callState}` : entry.outcome === '' ? '' : `row-${entry.outcome}`;
  return html`<tr id="step-${entry.sequence ?? ''}" class="${rowClass}" data-sequence="${entry.sequence ?? ''}" data-outcome="${entry.outcome}"${entry.mayHaveExecuted ? html` data-may-have-executed="true"` : ''}${entry.callState === null ? '' : html` data-call-state="${entry.callState}"`}>
${time}
<td class="source">${source === '' ? NONE : serverLink(ctx, toolServerOf(entry), {}, source)}</td>
<td class="kind">${kindText(t, entry.kind)}</td>
<td class="num round">${entry.round === null ? NONE : t.number(entry.round)}</td>
<td class="num duration${ms === null ? '' : ' has-duration'}">${ms === null ? NONE : t.duration(ms)}</td>
<td class="outcome">${entry.callState !== null ? callStateBadge(t, entry, now) : entry.outcome === '' ? NONE : outcomeBadge(t, entry.outcome)}${entry.mayHaveExecuted ? mayHaveExecutedMark(t) : ''}</td>
<td class="details">${details}${contentHtml(t, content)}${note === null ? '' : html`<p class="note note-warn" role="note">⚠ ${note}</p>`}</td>
</tr>`;
}

/**
 * A run's view: summary, cancel button while running, and a slice of its timeline (metadata only):
 * a page, or with `zoomed` a range of steps asked for by the URL (the pager then keeps its width).
 *
 * @internal
 */
export function renderRunView(
  ctx: ViewContext,
  run: StoredRun,
  slice: TimelineSlice,
  now: number,
  options: { readonly zoomed?: boolean } = {},
): Html {
  const { t } = ctx;
  const running = run.status === 'running';
  const duration = runDurationMs(run, now);
  const unstored = run.unstoredSteps ?? 0;
  const reason = reasonText(t, run);
  const runHref = `/runs/${uriComponent(run.id)}`;
  const cancelForm = running
    ? run.cancelRequestedAt === null
      ? html`<form method="post" action="${ctx.href(`${runHref}/cancel`)}" class="cancel-form"><label for="cancel-reason">${t.t('runs.detail.cancelReason')}</label> <input type="text" id="cancel-reason" name="reason" maxlength="500" autocomplete="off"> <button type="submit" class="danger" data-action="cancel">⊘ ${t.t('runs.detail.cancel')}</button></form>`
      : html`<p class="flash" role="status">${t.t('runs.detail.cancelPending')}</p>`
    : '';
  const summary = html`<section class="card" aria-labelledby="summary-h">
<h2 id="summary-h" class="visually-hidden">${t.t('runs.detail.summary')}</h2>
<div data-live-region="summary">
<dl class="summary">
<dt>${t.t('runs.col.status')}</dt><dd>${statusBadge(t, run.status)}</dd>
<dt>${t.t('runs.col.configuration')}</dt><dd>${run.configuration}</dd>
${run.actor !== null ? html`<dt>${t.t('runs.detail.actor')}</dt><dd>${run.actor}</dd>` : ''}
<dt>${t.t('runs.col.started')}</dt><dd><time datetime="${t.iso(run.startedAt ?? run.createdAt)}">${t.date(run.startedAt ?? run.createdAt)}</time></dd>
<dt>${t.t('runs.col.finished')}</dt><dd>${run.finishedAt === null ? NONE : html`<time datetime="${t.iso(run.finishedAt)}">${t.date(run.finishedAt)}</time>`}</dd>
<dt>${t.t('runs.col.duration')}</dt><dd>${duration === null ? NONE : t.duration(duration)}</dd>
${run.cancelRequestedAt !== null ? html`<dt>${t.t('runs.detail.cancelRequestedAt')}</dt><dd><time datetime="${t.iso(run.cancelRequestedAt)}">${t.time(run.cancelRequestedAt)}</time>${run.cancelRequest != null ? html` <span data-note="cancel-request">${cancelRequestText(t, run.cancelRequest)}</span>` : ''}${isLateCancel(run) ? html` <span class="muted" data-note="late-cancel">— ${t.t('runs.detail.lateCancel')}</span>` : ''}</dd>` : ''}
${reason !== null ? html`<dt>${t.t('runs.detail.reason')}</dt><dd>${reason}</dd>` : ''}
${run.lateFinishStatus != null ? html`<dt>${t.t('runs.detail.lateFinish')}</dt><dd>${statusBadge(t, run.lateFinishStatus)}${run.lateFinishAt != null ? html` <time datetime="${t.iso(run.lateFinishAt)}">${t.time(run.lateFinishAt)}</time>` : ''} <span class="muted" data-note="late-finish">— ${t.t('runs.detail.lateFinishNote')}</span></dd>` : ''}
<dt>${t.t('runs.detail.steps')}</dt><dd>${t.number(run.stepCount)}</dd>
${unstored > 0 ? html`<dt>${t.t('runs.detail.unstored')}</dt><dd><strong>${t.number(unstored)}</strong></dd>` : ''}
<dt>${t.t('runs.col.calls')}</dt><dd>${outcomeCounts(t, run)}</dd>
</dl>
${unstored > 0 ? html`<p class="note note-warn" role="alert" data-note="unstored">⚠ ${t.t('runs.detail.unstoredNote', { count: unstored })}</p>` : ''}
</div>
<div data-live-region="cancel">${cancelForm}</div>
</section>`;

  const total = run.stepCount;
  const to = slice.from + slice.stepsShown;
  const shown: StepRange = { from: slice.from, to };
  const zoomed = options.zoomed === true && slice.stepsShown > 0;
  // a zoomed page pages by its own width and keeps it; a plain page by TIMELINE_PAGE_SIZE
  const earlier = zoomed ? shiftRange(shown, -1, total) : null;
  const later = zoomed ? shiftRange(shown, 1, total) : null;
  const firstHref = zoomed ? zoomHref(ctx, runHref, { from: 0, to: slice.stepsShown }) : ctx.href(runHref);
  const previousHref =
    earlier !== null ? zoomHref(ctx, runHref, earlier) : ctx.href(runHref, { from: Math.max(0, slice.from - TIMELINE_PAGE_SIZE) || null });
  const nextHref = later !== null ? zoomHref(ctx, runHref, later) : ctx.href(runHref, { from: to });
  const pager = (label: string) => html`<nav class="pager" aria-label="${label}">
<span>${total === 0 ? '' : t.t('runs.detail.page', { from: slice.from + 1, to, total })}</span>
${slice.from > 0 ? html`<a class="button" href="${firstHref}">${t.t('runs.detail.page.first')}</a><a class="button" rel="prev" href="${previousHref}">← ${t.t('runs.detail.page.previous')}</a>` : ''}
${to < total ? html`<a class="button" rel="next" href="${nextHref}">${t.t('runs.detail.page.next')} →</a>` : ''}
</nav>`;
  const zoomNav = renderZoomNav(ctx, { runHref, range: shown, zoomed, stepCount: total, maxSteps: TIMELINE_PAGE_SIZE });

  const wire = running
    ? html`<section class="card wire" aria-labelledby="wire-h" data-section="wire">
<h2 id="wire-h">${t.t('runs.detail.wire.title')}</h2>
${
  (slice.wire ?? []).length === 0
    ? html`<p class="muted">${t.t('runs.detail.wire.none')}</p>`
    : html`<p class="muted">${t.t('runs.detail.wire.intro')}</p>
<div class="table-wrap"><table class="wire-calls">
<thead><tr><th scope="col">${t.t('runs.detail.wire.col.tool')}</th><th scope="col">${t.t('runs.detail.wire.col.server')}</th><th scope="col">${t.t('runs.detail.wire.col.sent')}</th><th scope="col" class="num">${t.t('runs.detail.wire.col.running')}</th></tr></thead>
<tbody>${(slice.wire ?? []).map(
        (entry) =>
          html`<tr data-call-id="${String(entry.details['toolCallId'] ?? '')}"><td class="mono">${serverLink(ctx, toolServerOf(entry), {}, String(entry.details['toolName'] ?? ''))}</td><td>${entry.source === '' ? NONE : serverLink(ctx, toolServerOf(entry))}</td><td class="mono"><time datetime="${t.iso(entry.time)}">${t.time(entry.time)}</time></td><td class="num">${t.duration(wireMs(entry, now) ?? 0)}</td></tr>`,
      )}</tbody>
</table></div>`
}
</section>`
    : '';

  const timeline = html`<section aria-labelledby="timeline-h">
<h2 id="timeline-h">${t.t('runs.detail.timeline')}</h2>
<p class="note note-privacy" role="note">${t.t('runs.detail.privacy')}</p>
${pager(t.t('runs.detail.timeline'))}
<div class="table-wrap"><table class="timeline">
<thead><tr><th scope="col">${t.t('runs.detail.col.start')}</th><th scope="col">${t.t('runs.detail.col.end')}</th><th scope="col">${t.t('runs.detail.col.source')}</th><th scope="col">${t.t('runs.detail.col.kind')}</th><th scope="col" class="num">${t.t(
    'runs.detail.col.round',
  )}</th><th scope="col" class="num">${t.t('runs.detail.col.duration')}</th><th scope="col">${t.t('runs.detail.col.outcome')}</th><th scope="col">${t.t(
    'runs.detail.col.details',
  )}</th></tr></thead>
<tbody>${slice.entries.map((entry) => rowHtml(ctx, entry, now, entry.sequence === null ? undefined : slice.contents?.get(entry.sequence)))}</tbody>
</table></div>
${slice.stepsShown >= 20 ? pager(t.t('runs.detail.timelineEnd')) : ''}
</section>`;

  return layout(ctx, {
    title: run.title ?? t.t('runs.detail.title', { id: run.id.slice(0, 8) }),
    section: 'runs',
    ...(running ? { live: RUN_LIVE } : {}),
    body: html`<p><a href="${ctx.href('/')}">← ${t.t('runs.detail.back')}</a></p>
<h1>${run.title != null ? html`<span data-run-title>${run.title}</span> <small class="muted mono">${t.t('runs.detail.title', { id: run.id })}</small>` : t.t('runs.detail.title', { id: run.id })}</h1>
${running ? liveNote(ctx, RUN_LIVE, { over: t.t('live.over.run'), reloadHref: zoomed ? zoomHref(ctx, runHref, shown) : ctx.href(runHref, { from: slice.from || null }) }) : ''}
${summary}
<div data-live-region="wire">${wire}</div>
<div data-live-region="waterfall">${renderWaterfallView(ctx, slice.entries, now, zoomNav)}</div>
<div data-live-region="timeline">${timeline}</div>`,
  });
}
