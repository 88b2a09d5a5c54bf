import type { RunTimelineEntry } from '@runledger/trace';
import { Html, html } from '../html/Html.js';
import type { Translator } from '../i18n/Translator.js';
import { kindText } from './kindText.js';
import { toolServerOf } from './serverLink.js';
import type { ViewContext } from './ViewContext.js';
import { type BarLabel, placeBarLabels } from './waterfallLabels.js';
import { layoutWaterfall, type WaterfallBar, type WaterfallBarState, type WaterfallMarker } from './waterfallLayout.js';

/** Height of the row above the ticks that holds the labels of the marked lines (the cancel request), in px. */
const MARKER_LABEL_HEIGHT = 16;
/** Height of the tick labels above the lanes, in px. */
const AXIS_HEIGHT = 20;
/** Height of one lane, in px. */
const LANE_HEIGHT = 18;
/** Height of a bar within its lane, in px. */
const BAR_HEIGHT = 14;

/**
 * The chart widths the bar labels are placed for, in px: the narrowest chart a wide screen (1000 px
 * and more) shows, and the narrowest a phone shows; the stylesheet shows the labels of the one that
 * applies (`.label-wide`, `.label-narrow`).
 *
 * @internal
 */
export const LABEL_CHART_PX = { wide: 880, narrow: 300 } as const;

/** The legend: every bar state, in the order a reader meets them. */
const LEGEND: readonly WaterfallBarState[] = ['ok', 'failed', 'cancelled', 'running', 'interrupted', 'step'];

/** The mark of a call that may have executed, on its bar and in the legend. */
const MAY_HAVE_EXECUTED_MARK = '⚠';

/** The lifecycle events whose line is labelled on the chart. */
const LABELLED_EVENTS: ReadonlySet<string> = new Set(['cancel_requested']);

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

/** The tool (or model) a step called, and the tool with its server ("mcp_docs_search on docs"); null for a step that names none. */
function stepNames(t: Translator, entry: RunTimelineEntry): { name: string; long: string } | null {
  const value = entry.details['toolName'] ?? entry.details['model'];
  if (typeof value !== 'string' || value === '') return null;
  const server = toolServerOf(entry);
  return { name: value, long: server === null ? value : t.t('runs.detail.waterfall.toolOn', { tool: value, server }) };
}

/** A bar's accessible name and tooltip: step number, kind, tool (on its server) or model, outcome or call state (and whether the call may have executed), and duration. */
function barLabel(t: Translator, bar: WaterfallBar): string {
  const entry = bar.entry;
  const parts = [t.t('runs.detail.waterfall.step', { step: (entry.sequence ?? 0) + 1 }), kindText(t, entry.kind)];
  const names = stepNames(t, entry);
  if (names !== null) parts.push(names.long);
  if (bar.state !== 'step') parts.push(stateText(t, bar.state));
  if (entry.mayHaveExecuted) parts.push(t.t('runs.detail.mayHaveExecuted'));
  if (bar.state === 'running') parts.push(t.t('runs.detail.callState.runningFor', { duration: t.duration(bar.end - bar.start) }));
  else if (bar.state !== 'interrupted') parts.push(t.duration(bar.end - bar.start));
  return parts.join(', ');
}

/**
 * The texts a bar's label may read, longest first: the tool on its server, the tool alone; a call
 * that may have executed leads with ⚠ (and says so in words when there is room), and keeps the ⚠
 * alone as the last resort.
 */
function labelTexts(t: Translator, entry: RunTimelineEntry): string[] {
  const names = stepNames(t, entry);
  const texts = names === null ? [] : names.long === names.name ? [names.name] : [names.long, names.name];
  if (!entry.mayHaveExecuted) return texts;
  const mark = (text: string) => `${MAY_HAVE_EXECUTED_MARK} ${text}`;
  const words = t.t('runs.detail.mayHaveExecuted');
  return [...(names === null ? [mark(words)] : [mark(`${names.long}, ${words}`)]), ...texts.map(mark), MAY_HAVE_EXECUTED_MARK];
}

/** A bar's label as SVG text at one chart width (`variant` names the width it is for, or null for both). */
function labelHtml(bar: WaterfallBar, label: BarLabel, variant: 'wide' | 'narrow' | null): Html {
  // beside its bar's link, not in it: the link's name is its aria-label, and its tooltip the same words
  const y = MARKER_LABEL_HEIGHT + AXIS_HEIGHT + bar.lane * LANE_HEIGHT + LANE_HEIGHT / 2;
  const x = label.place === 'right' ? bar.x + bar.width : bar.x;
  const dx = label.place === 'left' ? -4 : 4;
  const anchor = label.place === 'left' ? 'end' : 'start';
  const classes = `bar-label label-${label.place}${variant === null ? '' : ` label-${variant}`}`;
  return html`<text class="${classes}" data-sequence="${bar.entry.sequence ?? ''}" x="${pct(x)}" dx="${dx}" y="${y}" text-anchor="${anchor}" dominant-baseline="central" aria-hidden="true">${label.text}</text>`;
}

function barHtml(t: Translator, bar: WaterfallBar, wide: BarLabel | null, narrow: BarLabel | null): Html {
  const label = barLabel(t, bar);
  const sequence = bar.entry.sequence ?? '';
  const same = wide !== null && narrow !== null && wide.text === narrow.text && wide.place === narrow.place;
  const labels = same
    ? labelHtml(bar, wide, null)
    : html`${wide === null ? '' : labelHtml(bar, wide, 'wide')}${narrow === null ? '' : labelHtml(bar, narrow, 'narrow')}`;
  const mayHaveExecuted = bar.entry.mayHaveExecuted;
  return html`<a href="#step-${sequence}" class="bar bar-${bar.state}${mayHaveExecuted ? ' bar-may-have-executed' : ''}" data-sequence="${sequence}" data-state="${bar.state}" data-lane="${bar.lane}" aria-label="${label}"${mayHaveExecuted ? html` data-may-have-executed="true"` : ''}><title>${label}</title><rect x="${pct(bar.x)}" y="${MARKER_LABEL_HEIGHT + AXIS_HEIGHT + bar.lane * LANE_HEIGHT + (LANE_HEIGHT - BAR_HEIGHT) / 2}" width="${pct(bar.width)}" height="${BAR_HEIGHT}" rx="2"></rect></a>${labels}`;
}

/** A lifecycle event's line: the cancel request's with its label above the ticks (and its time to assistive tech), the others unlabelled. */
function markerHtml(t: Translator, marker: WaterfallMarker, height: number): Html {
  const event = marker.entry.event!;
  const name = t.t(`runs.detail.lifecycle.${event}`);
  const line = html`<line x1="${pct(marker.x)}" x2="${pct(marker.x)}" y1="${LABELLED_EVENTS.has(event) ? 2 : MARKER_LABEL_HEIGHT + AXIS_HEIGHT - 4}" y2="${height}"></line>`;
  if (!LABELLED_EVENTS.has(event)) {
    return html`<g class="marker marker-${event}" data-event="${event}" aria-hidden="true"><title>${name} ${t.time(marker.entry.time)}</title>${line}</g>`;
  }
  const spoken = t.t('runs.detail.waterfall.markerAt', { event: name, time: t.time(marker.entry.time) });
  const anchor = marker.x < 20 ? 'start' : marker.x > 80 ? 'end' : 'middle';
  const dx = anchor === 'start' ? 3 : anchor === 'end' ? -3 : 0;
  return html`<g class="marker marker-${event} marker-labelled" data-event="${event}" role="img" aria-label="${spoken}"><title>${spoken}</title>${line}<text x="${pct(marker.x)}" dx="${dx}" y="${MARKER_LABEL_HEIGHT - 4}" text-anchor="${anchor}">⊘ ${name}</text></g>`;
}

/**
 * The waterfall of a slice of a run's timeline: each step a bar from its start to its end on the
 * slice's time axis (SVG, no script), steps that overlap side by side on lanes of their own,
 * coloured as the outcome badges, a call on the wire drawn up to `now`, each bar labelled with its
 * tool (and server) where the label fits, a call that may have executed marked ⚠ and outlined, and
 * the cancel request as a labelled line. Each bar links to its row in the table below; `zoom` (the
 * zoom links) goes under the legend. Empty when the slice has no step.
 *
 * @internal
 */
export function renderWaterfallView(ctx: ViewContext, entries: readonly RunTimelineEntry[], now: number, zoom: Html | string = ''): Html {
  const { t } = ctx;
  const layout = layoutWaterfall(entries, now);
  if (layout === null) return html``;
  const top = MARKER_LABEL_HEIGHT + AXIS_HEIGHT;
  const height = top + layout.lanes * LANE_HEIGHT + 2;
  const ticks = layout.ticks.map((tick) => {
    const anchor = tick.x < 8 ? 'start' : tick.x > 92 ? 'end' : 'middle';
    const label = tick.offsetMs === 0 ? t.duration(0) : `+${t.duration(tick.offsetMs)}`;
    return html`<g class="tick"><line x1="${pct(tick.x)}" x2="${pct(tick.x)}" y1="${top - 4}" y2="${height}"></line><text x="${pct(tick.x)}" y="${top - 7}" text-anchor="${anchor}">${label}</text></g>`;
  });
  const texts = layout.bars.map((bar) => labelTexts(t, bar.entry));
  const wide = placeBarLabels(layout.bars, texts, LABEL_CHART_PX.wide);
  const narrow = placeBarLabels(layout.bars, texts, LABEL_CHART_PX.narrow);
  const legend = LEGEND.map(
    (state) => html`<li><span class="swatch swatch-${state}" aria-hidden="true"></span>${stateText(t, state)}</li>`,
  );
  if (layout.bars.some((bar) => bar.entry.mayHaveExecuted)) {
    legend.push(
      html`<li><span class="swatch swatch-may-have-executed" aria-hidden="true">${MAY_HAVE_EXECUTED_MARK}</span>${t.t('runs.detail.mayHaveExecuted')}</li>`,
    );
  }
  return html`<section class="card waterfall" aria-labelledby="waterfall-h" data-section="waterfall">
<h2 id="waterfall-h">${t.t('runs.detail.waterfall.title')}</h2>
<p class="muted">${t.t('runs.detail.waterfall.intro', { from: t.time(layout.axisStart), to: t.time(layout.axisEnd) })}</p>
<ul class="legend" aria-label="${t.t('runs.detail.waterfall.legend')}">${legend}</ul>
${zoom}
<a class="skip" href="#timeline-h">${t.t('runs.detail.waterfall.skip')}</a>
<svg class="waterfall-chart" width="100%" height="${height}" role="group" aria-label="${t.t('runs.detail.waterfall.label')}" data-lanes="${layout.lanes}">
<g class="axis" aria-hidden="true">${ticks}</g>
${Html.join(layout.markers.map((marker) => markerHtml(t, marker, height)))}
${Html.join(layout.bars.map((bar, i) => barHtml(t, bar, wide[i]!, narrow[i]!)))}
</svg>
</section>`;
}
