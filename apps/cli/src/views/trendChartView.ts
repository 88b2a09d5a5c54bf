import type { TrendBucket, TrendPoint, TrendUnit } from '../viewModels/serverTrends.js';
import { Html, html } from '../html/Html.js';
import type { Translator } from '../i18n/Translator.js';
import { layoutTrendChart, type TrendChartLayout, type TrendChartPoint } from './trendChartLayout.js';

/** What a trend chart shows: a server's failure rate or its p95 (answered calls only). @internal */
export type TrendMetric = 'failureRate' | 'p95';

/** Both metrics, in the order the pages show them. @internal */
export const TREND_METRICS: readonly TrendMetric[] = Object.freeze(['failureRate', 'p95']);

/** The least top of a chart (a flat 0.1 % or 0.2 ms line is not drawn as a full-height one), and the most. */
const FLOOR: Readonly<Record<TrendMetric, number>> = { failureRate: 0.01, p95: 1 };
const CAP: Readonly<Record<TrendMetric, number>> = { failureRate: 1, p95: Infinity };

/** The sparkline's size in px, and its room above and below the line. */
const SPARK_WIDTH = 120;
const SPARK_HEIGHT = 28;
const SPARK_PAD = 3;
/** The large chart's height in px, and its room above and below the line. */
const CHART_HEIGHT = 120;
const CHART_PAD = 6;

function valueOf(metric: TrendMetric, point: TrendPoint): number | null {
  return metric === 'failureRate' ? point.failureRate : point.p95;
}

/** A value of a metric in words: a percentage or a duration. @internal */
export function trendValueText(t: Translator, metric: TrendMetric, value: number): string {
  return metric === 'failureRate' ? t.ratio(value) : t.duration(value);
}

function layoutOf(metric: TrendMetric, points: readonly TrendPoint[]): TrendChartLayout {
  return layoutTrendChart(
    points.map((point) => valueOf(metric, point)),
    FLOOR[metric],
    CAP[metric],
  );
}

/** A chart's name: "Failure rate per hour", "p95 per day (answered calls)". @internal */
export function trendName(t: Translator, metric: TrendMetric, unit: TrendUnit): string {
  return t.t(`trend.${metric}.${unit}`);
}

/**
 * What a chart shows, in words: its peak and latest value and when, and how many buckets have no
 * figure (no call counted, or none answered) — the text behind the picture for a screen reader.
 *
 * @internal
 */
export function trendSummary(
  t: Translator,
  metric: TrendMetric,
  unit: TrendUnit,
  points: readonly TrendPoint[],
  layout: TrendChartLayout = layoutOf(metric, points),
): string {
  const { peak, latest } = layout;
  if (peak === null || latest === null) return t.t(`trend.empty.${unit}`, { count: points.length });
  const text = t.t('trend.peakLatest', {
    peak: trendValueText(t, metric, peak.value),
    peakAt: t.bucket(points[peak.index]!.bucketStart, unit),
    latest: trendValueText(t, metric, latest.value),
    latestAt: t.bucket(points[latest.index]!.bucketStart, unit),
  });
  return layout.gaps === 0 ? text : `${text}; ${t.t(`trend.gaps.${unit}`, { gaps: layout.gaps, count: points.length })}`;
}

/** A y position in px: `y` from 0 (bottom) to 1 (top) within the chart's padding. */
function yPx(y: number, height: number, pad: number): number {
  return Math.round((pad + (1 - y) * (height - 2 * pad)) * 10) / 10;
}

/** An x position in px of a box `width` wide: `x` in percent of it. */
function xPx(x: number, width: number): number {
  return Math.round(x * width) / 100;
}

function pct(x: number): string {
  return `${x.toFixed(3)}%`;
}

/**
 * The class of a part of the chart that stands for zero: a 0 % failure rate is good news, drawn in
 * the "ok" colour, never in the failure red (a p95 never reaches 0 but is marked alike).
 */
function zeroClass(...values: readonly number[]): string {
  return values.every((value) => value === 0) ? 'zero' : 'value';
}

/** The large chart's series: a segment between neighbours with values (x in percent: the chart is as wide as the page), a titled dot on every value. */
function seriesHtml(layout: TrendChartLayout, titles: readonly string[]): Html {
  const y = (value: number) => yPx(value, CHART_HEIGHT, CHART_PAD);
  const lines = layout.segments.map(
    ({ from, to }) =>
      html`<line class="${zeroClass(from.value, to.value)}" x1="${pct(from.x)}" y1="${y(from.y)}" x2="${pct(to.x)}" y2="${y(to.y)}"></line>`,
  );
  const points = layout.points.map(
    (point) =>
      html`<circle class="${zeroClass(point.value)}" cx="${pct(point.x)}" cy="${y(point.y)}" r="3"><title>${titles[point.index] ?? ''}</title></circle>`,
  );
  return html`<g class="series">${lines}${points}</g>`;
}

/**
 * The runs of neighbouring buckets with values, each cut where it turns from zero to a value or
 * back: the points of one polyline (px, in a box `width` wide) and whether all of them are zero.
 */
function polylines(layout: TrendChartLayout, width: number, height: number, pad: number): { points: string; zero: boolean }[] {
  const lines: { points: string; zero: boolean }[] = [];
  const at = (point: TrendChartPoint) => `${xPx(point.x, width)},${yPx(point.y, height, pad)}`;
  let run: string[] = [];
  let zero = false;
  for (const { from, to } of layout.segments) {
    const segmentZero = from.value === 0 && to.value === 0;
    // a new polyline where the run breaks (a gap) or turns between zero and a value
    if (run.length > 0 && (run[run.length - 1] !== at(from) || segmentZero !== zero)) {
      lines.push({ points: run.join(' '), zero });
      run = [];
    }
    if (run.length === 0) run.push(at(from));
    run.push(at(to));
    zero = segmentZero;
  }
  if (run.length > 0) lines.push({ points: run.join(' '), zero });
  return lines;
}

/**
 * A small chart of one metric over a window, for a row of the servers page: no axes, its name and
 * summary as its accessible name and tooltip. A bucket without a figure is a gap in the line.
 *
 * @internal
 */
export function renderSparkline(t: Translator, metric: TrendMetric, unit: TrendUnit, points: readonly TrendPoint[]): Html {
  const layout = layoutOf(metric, points);
  const label = `${trendName(t, metric, unit)}: ${trendSummary(t, metric, unit, points, layout)}`;
  const base = SPARK_HEIGHT - SPARK_PAD;
  // one polyline per run of buckets with values (a page holds two of these per server: kept small)
  const lines = polylines(layout, SPARK_WIDTH, SPARK_HEIGHT, SPARK_PAD).map(
    (line) => html`<polyline class="${line.zero ? 'zero' : 'value'}" points="${line.points}"></polyline>`,
  );
  const dots = layout.alone.map(
    (point) =>
      html`<circle class="${zeroClass(point.value)}" cx="${xPx(point.x, SPARK_WIDTH)}" cy="${yPx(point.y, SPARK_HEIGHT, SPARK_PAD)}" r="2"></circle>`,
  );
  return html`<svg class="spark trend-${metric}" width="${SPARK_WIDTH}" height="${SPARK_HEIGHT}" role="img" data-metric="${metric}" data-gaps="${layout.gaps}"><title>${label}</title><line class="base" x1="0" y1="${base}" x2="${SPARK_WIDTH}" y2="${base}"></line><g class="series">${lines}${dots}</g></svg>`;
}

/**
 * A server page's chart of one metric: a heading, the chart with its scale (0 to a round top) and
 * its time axis (the first bucket's start to now), each point titled with its bucket and value,
 * and the summary in words below (its heading's id is the metric's: one chart of each on a page).
 *
 * @internal
 */
export function renderTrendChart(
  t: Translator,
  metric: TrendMetric,
  unit: TrendUnit,
  points: readonly TrendPoint[],
  buckets: readonly TrendBucket[],
  now: number,
): Html {
  const layout = layoutOf(metric, points);
  const name = trendName(t, metric, unit);
  const headingId = `trend-${metric}-h`;
  const titles = points.map((point) => {
    const value = valueOf(metric, point);
    return `${t.bucket(point.bucketStart, unit)}: ${value === null ? t.t('common.none') : trendValueText(t, metric, value)}`;
  });
  const grid = [1, 0.5, 0].map(
    (y) =>
      html`<line class="grid" x1="0" y1="${yPx(y, CHART_HEIGHT, CHART_PAD)}" x2="100%" y2="${yPx(y, CHART_HEIGHT, CHART_PAD)}"></line>`,
  );
  const first = buckets[0];
  return html`<section class="trend trend-${metric}" aria-labelledby="${headingId}" data-metric="${metric}" data-gaps="${layout.gaps}">
<h3 id="${headingId}">${name}</h3>
<div class="trend-plot">
<div class="trend-y" aria-hidden="true"><span>${trendValueText(t, metric, layout.top)}</span><span>${trendValueText(t, metric, layout.top / 2)}</span><span>${trendValueText(t, metric, 0)}</span></div>
<svg class="trend-chart" width="100%" height="${CHART_HEIGHT}" role="img" aria-labelledby="${headingId}">${grid}${seriesHtml(layout, titles)}</svg>
<span></span>
<div class="trend-x" aria-hidden="true"><span>${first === undefined ? '' : t.bucket(first.start, unit)}</span><span>${t.date(now)}</span></div>
</div>
<p class="muted trend-summary">${trendSummary(t, metric, unit, points, layout)}</p>
</section>`;
}

/**
 * The figures behind a server's charts as a table (in a disclosure, closed): per bucket its start,
 * calls, failure rate and p95; a dash where a bucket has none.
 *
 * @internal
 */
export function renderTrendFigures(t: Translator, unit: TrendUnit, points: readonly TrendPoint[]): Html {
  const none = Html.trusted('<span class="muted">—</span>');
  const rows = points.map(
    (point) =>
      html`<tr><td><time datetime="${t.iso(point.bucketStart)}">${t.bucket(point.bucketStart, unit)}</time></td><td class="num">${t.number(point.calls)}</td><td class="num">${
        point.failureRate === null ? none : t.ratio(point.failureRate)
      }</td><td class="num">${point.p95 === null ? none : t.duration(point.p95)}</td></tr>`,
  );
  return html`<details class="trend-figures">
<summary>${t.t(`trend.figures.${unit}`)}</summary>
<div class="table-wrap"><table>
<thead><tr><th scope="col">${t.t(`trend.figures.from.${unit}`)}</th><th scope="col" class="num">${t.t('servers.col.calls')}</th><th scope="col" class="num">${t.t(
    'servers.col.failureRate',
  )}</th><th scope="col" class="num">${t.t('servers.col.p95')}</th></tr></thead>
<tbody>${rows}</tbody>
</table></div>
</details>`;
}
