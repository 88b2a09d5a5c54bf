import { type Html, html } from '../html/Html.js';
import { type StepRange, zoomIn, zoomOut } from '../viewModels/zoomRange.js';
import type { ViewContext } from './ViewContext.js';

/** What the zoom links of a run page start from. @internal */
export interface ZoomNavInput {
  /** The run page's path (`/runs/<id>`). */
  readonly runHref: string;
  /** The steps the page shows. */
  readonly range: StepRange;
  /** True when the page was asked for a range (`to` given); false for a plain page. */
  readonly zoomed: boolean;
  readonly stepCount: number;
  /** The widest range the page shows (a page's worth of steps). */
  readonly maxSteps: number;
}

/** The address of a zoomed range of the run page. @internal */
export function zoomHref(ctx: ViewContext, runHref: string, range: StepRange): string {
  return ctx.href(runHref, { from: range.from || null, to: range.to });
}

/**
 * The waterfall's zoom links: zoom in (to the middle half of what is shown), and on a zoomed page
 * what it is zoomed to, zoom out (twice as wide, at most a page) and reset (the plain page from the
 * range's first step). Steps are numbered from 1 in the text, as the pager does.
 *
 * @internal
 */
export function renderZoomNav(ctx: ViewContext, input: ZoomNavInput): Html {
  const { t } = ctx;
  const { range } = input;
  const inward = zoomIn(range);
  const outward = input.zoomed ? zoomOut(range, input.stepCount, input.maxSteps) : null;
  const words = (key: 'runs.zoom.in' | 'runs.zoom.out', to: StepRange) => t.t(key, { from: t.number(to.from + 1), to: t.number(to.to) });
  return html`<nav class="zoom" aria-label="${t.t('runs.zoom.nav')}" data-zoom="${input.zoomed ? 'range' : 'page'}">
${input.zoomed ? html`<p class="muted" data-zoomed>${t.t('runs.zoom.zoomed', { from: t.number(range.from + 1), to: t.number(range.to), total: t.number(input.stepCount) })}</p>` : ''}
${inward === null ? '' : html`<a class="button" data-zoom-link="in" href="${zoomHref(ctx, input.runHref, inward)}">+ ${words('runs.zoom.in', inward)}</a>`}
${outward === null ? '' : html`<a class="button" data-zoom-link="out" href="${zoomHref(ctx, input.runHref, outward)}">− ${words('runs.zoom.out', outward)}</a>`}
${input.zoomed ? html`<a class="button" data-zoom-link="reset" href="${ctx.href(input.runHref, { from: range.from || null })}">${t.t('runs.zoom.reset')}</a>` : ''}
</nav>`;
}
