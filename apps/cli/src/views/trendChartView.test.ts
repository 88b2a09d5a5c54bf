import { describe, expect, it } from 'vitest';
import type { TrendPoint } from '../viewModels/serverTrends.js';
import { trendBuckets } from '../viewModels/serverTrends.js';
import { Translator } from '../i18n/Translator.js';
import { renderSparkline, renderTrendChart, renderTrendFigures, trendSummary } from './trendChartView.js';

const NOW = Date.UTC(2026, 10, 29, 14, 25);
const { buckets } = trendBuckets('24h', NOW);
const en = new Translator('en', { timeZone: 'UTC' });
const de = new Translator('de', { timeZone: 'UTC' });

/** 24 hourly points (index 0 is 15:00 the day before, 23 is 14:00): failure rate and p95 where given, gaps elsewhere. */
function points(values: Readonly<Record<number, readonly [number | null, number | null]>>): TrendPoint[] {
  return buckets.map((bucket, i) => {
    const [failureRate, p95] = values[i] ?? [null, null];
    return { bucketStart: bucket.start, calls: failureRate === null && p95 === null ? 0 : 4, failureRate, p95 };
  });
}

const SERIES = points({ 20: [0.25, 120], 21: [0.5, 300], 23: [0, 80] });

describe('trend summaries', () => {
  it('say the peak, the latest value and when, and how many buckets have no figure', () => {
    expect(trendSummary(en, 'failureRate', 'hour', SERIES)).toBe(
      'peak 50.0% (11/29/2026, 12:00), latest 0.0% (11/29/2026, 14:00); no figure in 21 of 24 hours',
    );
    expect(trendSummary(en, 'p95', 'hour', SERIES)).toBe(
      'peak 300 ms (11/29/2026, 12:00), latest 80 ms (11/29/2026, 14:00); no figure in 21 of 24 hours',
    );
    expect(trendSummary(de, 'failureRate', 'hour', SERIES)).toBe(
      'Höchstwert 50,0\u00a0% (29.11.2026, 12:00), zuletzt 0,0\u00a0% (29.11.2026, 14:00); kein Wert in 21 von 24 Stunden',
    );
    expect(trendSummary(en, 'p95', 'hour', points({}))).toBe('no figure in the last 24 hours');
    expect(trendSummary(de, 'p95', 'day', points({}).slice(0, 7))).toBe('kein Wert an den letzten 7 Tagen');
  });
});

describe('bucket labels', () => {
  it('name a day by its UTC date alone and an hour to the minute in the app’s zone', () => {
    const berlin = new Translator('en', { timeZone: 'Europe/Berlin' });
    const day = Date.UTC(2026, 10, 29);
    // the UTC day starts at 01:00 in Berlin: still the 29th, never "11/29/2026, 01:00:00"
    expect(berlin.bucket(day, 'day')).toBe('11/29/2026');
    expect(berlin.bucket(Date.UTC(2026, 10, 29, 23), 'day')).toBe('11/29/2026');
    expect(berlin.bucket(Date.UTC(2026, 10, 29, 12), 'hour')).toBe('11/29/2026, 13:00');
    const days = trendBuckets('7d', NOW).buckets.map((b) => ({ bucketStart: b.start, calls: 1, failureRate: 0.5, p95: 10 }));
    expect(renderTrendFigures(berlin, 'day', days).value).toContain('>11/29/2026</time>');
  });
});

describe('sparkline', () => {
  it('is an image named by its metric and summary, with gaps left undrawn', () => {
    const svg = renderSparkline(en, 'failureRate', 'hour', SERIES).value;
    expect(svg).toMatch(/^<svg class="spark trend-failureRate" width="120" height="28" role="img"/);
    expect(svg).toContain('<title>Failure rate per hour: peak 50.0% (11/29/2026, 12:00)');
    expect(svg).toContain('data-gaps="21"');
    // 20–21 joined, 23 alone (22 is a gap): one line and one dot, in px of the 120 px wide chart
    expect(svg).toContain(
      '<g class="series"><polyline class="value" points="102.5,14 107.5,3"></polyline><circle class="zero" cx="117.5" cy="25" r="2"></circle></g>',
    );
    expect(svg).not.toContain('<script');
  });

  it('draws each run of buckets with values as one polyline, broken at every gap', () => {
    const svg = renderSparkline(
      en,
      'p95',
      'hour',
      points({ 0: [null, 10], 1: [null, 20], 2: [null, 30], 4: [null, 5], 5: [null, 5], 7: [null, 1] }),
    ).value;
    const lines = [...svg.matchAll(/<polyline class="value" points="([^"]+)">/g)].map((m) => m[1]!.split(' ').length);
    expect(lines).toEqual([3, 2]);
    expect(svg.match(/<circle /g)).toHaveLength(1);
  });

  it('draws a 0 % failure rate as "zero" (the ok colour), never as a value (the failure red): issue 40 item 5', () => {
    // 0, 0, 0.25, 0.5, 0, 0 over hours 0–5, 7 alone at 0, 9 alone at 0.5
    const svg = renderSparkline(
      en,
      'failureRate',
      'hour',
      points({ 0: [0, 1], 1: [0, 1], 2: [0.25, 1], 3: [0.5, 1], 4: [0, 1], 5: [0, 1], 7: [0, 1], 9: [0.5, 1] }),
    ).value;
    const lines = [...svg.matchAll(/<polyline class="(\w+)" points="([^"]+)">/g)].map((m) => [m[1], m[2]!.split(' ').length]);
    // the flat stretches at 0 are green; the stretch that leaves 0 and comes back is red
    expect(lines).toEqual([
      ['zero', 2],
      ['value', 4],
      ['zero', 2],
    ]);
    expect([...svg.matchAll(/<circle class="(\w+)"/g)].map((m) => m[1])).toEqual(['zero', 'value']);
    const chart = renderTrendChart(en, 'failureRate', 'hour', points({ 0: [0, 1], 1: [0, 1], 2: [0.5, 1] }), buckets, NOW).value;
    expect([...chart.matchAll(/<line class="(zero|value)" x1/g)].map((m) => m[1])).toEqual(['zero', 'value']);
    expect([...chart.matchAll(/<circle class="(\w+)"/g)].map((m) => m[1])).toEqual(['zero', 'zero', 'value']);
  });

  it('draws nothing but the base line when every bucket is a gap', () => {
    const svg = renderSparkline(de, 'p95', 'hour', points({})).value;
    expect(svg).toContain('<title>p95 je Stunde (beantwortete Aufrufe): kein Wert in den letzten 24 Stunden</title>');
    expect(svg).toContain('<g class="series"></g>');
  });
});

describe('large trend chart', () => {
  it('has a heading that names the image, a scale from 0 to a round top, a time axis up to now and the summary in words', () => {
    const chart = renderTrendChart(en, 'failureRate', 'hour', SERIES, buckets, NOW).value;
    expect(chart).toContain('<h3 id="trend-failureRate-h">Failure rate per hour</h3>');
    expect(chart).toContain('role="img" aria-labelledby="trend-failureRate-h"');
    expect(chart).toContain('<div class="trend-y" aria-hidden="true"><span>50.0%</span><span>25.0%</span><span>0.0%</span></div>');
    expect(chart).toContain('<span>11/28/2026, 15:00</span><span>11/29/2026, 14:25:00</span>');
    // every point a dot with its bucket and value
    expect(chart.match(/<circle /g)).toHaveLength(3);
    expect(chart).toContain('<title>11/29/2026, 12:00: 50.0%</title>');
    expect(chart).toContain('<p class="muted trend-summary">peak 50.0%');
  });

  it('puts the figures in a table: a dash where a bucket has none', () => {
    const table = renderTrendFigures(de, 'hour', SERIES).value;
    expect(table).toContain('<summary>Die Werte je Stunde</summary>');
    expect(table).toContain('<th scope="col">Stunde ab</th>');
    expect(table.match(/<tr><td>/g)).toHaveLength(24);
    expect(table).toContain('<td class="num">50,0\u00a0%</td><td class="num">300 ms</td>');
  });
});
