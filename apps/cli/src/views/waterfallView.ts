import type { RunTimelineEntry } from '@runledger/trace';
import { Html, html } from '../html/Html.js';
import type { Translator } from '../i18n/Translator.js';
import { kindText } from './kindText.js';
import type { ViewContext } from './ViewContext.js';
import { layoutWaterfall, type WaterfallBar, type WaterfallBarState } from './waterfallLayout.js';

/** Height of the tick labels above the lanes, in px. */
const AXIS_HEIGHT = 20;
/** Height of one lane, in px. */
const LANE_HEIGHT = 16;
/** Height of a bar within its lane, in px. */
const BAR_HEIGHT = 12;

/** The legend: every bar state, in the order a reader meets them. */
const LEGEND: readonly WaterfallBarState[] = ['ok', 'failed', 'cancelled', 'running', 'interrupted', 'step'];

/** A percentage for an SVG attribute (three decimals: a thousandth of the width is far below a pixel). */
function pct(value: number): string {
  return `${value.toFixed(3)}%`;
}

function stateText(t: Translator, state: WaterfallBarState): string {
  switch (state) {
    case 'running':
      return t.t('runs.detail.callState.on_the_wire');
    case 'interrupted':
      return t.t('runs.detail.callState.interrupted');
    case 'step':
      return t.t('runs.detail.waterfall.other');
    default:
      return t.t(`runs.detail.outcome.${state}`);
  }
}

/** A bar's accessible name and tooltip: step number, kind, tool or model, outcome or call state (and whether the call may have executed), and duration. */
function barLabel(t: Translator, bar: WaterfallBar): string {
  const entry = bar.entry;
  const parts = [t.t('runs.detail.waterfall.step', { step: (entry.sequence ?? 0) + 1 }), kindText(t, entry.kind)];
  const name = entry.details['toolName'] ?? entry.details['model'];
  if (typeof name === 'string' && name !== '') parts.push(name);
  if (bar.state !== 'step') parts.push(stateText(t, bar.state));
  if (entry.mayHaveExecuted) parts.push(t.t('runs.detail.mayHaveExecuted'));
  if (bar.state === 'running') parts.push(t.t('runs.detail.callState.runningFor', { duration: t.duration(bar.end - bar.start) }));
  else if (bar.state !== 'interrupted') parts.push(t.duration(bar.end - bar.start));
  return parts.join(', ');
}

function barHtml(t: Translator, bar: WaterfallBar): Html {
  const label = barLabel(t, bar);
  const sequence = bar.entry.sequence ?? '';
  return html`<a href="#step-${sequence}" class="bar bar-${bar.state}" data-sequence="${sequence}" data-state="${bar.state}" data-lane="${bar.lane}" aria-label="${label}"><title>${label}</title><rect x="${pct(bar.x)}" y="${AXIS_HEIGHT + bar.lane * LANE_HEIGHT + (LANE_HEIGHT - BAR_HEIGHT) / 2}" width="${pct(bar.width)}" height="${BAR_HEIGHT}" rx="2"></rect></a>`;
}

/**
 * The waterfall of a slice of a run's timeline: each step a bar from its start to its end on the
 * slice's time axis (SVG, no script), steps that overlap side by side on lanes of their own,
 * coloured as the outcome badges, a call on the wire drawn up to `now`. Each bar links to its row
 * in the table below. Empty when the slice has no step.
 *
 * @internal
 */
export function renderWaterfallView(ctx: ViewContext, entries: readonly RunTimelineEntry[], now: number): Html {
  const { t } = ctx;
  const layout = layoutWaterfall(entries, now);
  if (layout === null) return html``;
  const height = AXIS_HEIGHT + layout.lanes * LANE_HEIGHT + 2;
  const ticks = layout.ticks.map((tick) => {
    const anchor = tick.x < 8 ? 'start' : tick.x > 92 ? 'end' : 'middle';
    const label = tick.offsetMs === 0 ? t.duration(0) : `+${t.duration(tick.offsetMs)}`;
    return html`<g class="tick"><line x1="${pct(tick.x)}" x2="${pct(tick.x)}" y1="${AXIS_HEIGHT - 4}" y2="${height}"></line><text x="${pct(tick.x)}" y="${AXIS_HEIGHT - 7}" text-anchor="${anchor}">${label}</text></g>`;
  });
  const markers = layout.markers.map(
    (marker) =>
      html`<g class="marker marker-${marker.entry.event ?? ''}" data-event="${marker.entry.event ?? ''}"><title>${t.t(`runs.detail.lifecycle.${marker.entry.event!}`)} ${t.time(marker.entry.time)}</title><line x1="${pct(marker.x)}" x2="${pct(marker.x)}" y1="${AXIS_HEIGHT - 4}" y2="${height}"></line></g>`,
  );
  const legend = LEGEND.map(
    (state) => html`<li><span class="swatch swatch-${state}" aria-hidden="true"></span>${stateText(t, state)}</li>`,
  );
  return html`<section class="card waterfall" aria-labelledby="waterfall-h" data-section="waterfall">
<h2 id="waterfall-h">${t.t('runs.detail.waterfall.title')}</h2>
<p class="muted">${t.t('runs.detail.waterfall.intro', { from: t.time(layout.axisStart), to: t.time(layout.axisEnd) })}</p>
<ul class="legend" aria-label="${t.t('runs.detail.waterfall.legend')}">${legend}</ul>
<a class="skip" href="#timeline-h">${t.t('runs.detail.waterfall.skip')}</a>
<svg class="waterfall-chart" width="100%" height="${height}" role="group" aria-label="${t.t('runs.detail.waterfall.label')}" data-lanes="${layout.lanes}">
<g class="axis" aria-hidden="true">${ticks}${markers}</g>
${Html.join(layout.bars.map((bar) => barHtml(t, bar)))}
</svg>
</section>`;
}
