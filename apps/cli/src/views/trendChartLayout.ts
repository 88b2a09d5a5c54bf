/**
 * Where the points of a small trend chart go: one value per bucket (null for a bucket without
 * one), drawn left to right at the buckets' centres, a line between neighbours that both have a
 * value and a dot for a value alone between gaps — a gap is never drawn as a zero.
 */

/** A point on the chart: x in percent of the width (bucket centre), y from 0 (bottom) to 1 (top). @internal */
export interface TrendChartPoint {
  readonly index: number;
  readonly x: number;
  readonly y: number;
  readonly value: number;
}

/** A value of the series and the bucket it is in. @internal */
export interface TrendChartValue {
  readonly index: number;
  readonly value: number;
}

/** The geometry of one trend chart. @internal */
export interface TrendChartLayout {
  /** The value the top of the chart stands for (the bottom is 0): a round number at or above the peak. */
  readonly top: number;
  /** Lines between neighbouring buckets that both have a value. */
  readonly segments: readonly { readonly from: TrendChartPoint; readonly to: TrendChartPoint }[];
  /** Every bucket with a value. */
  readonly points: readonly TrendChartPoint[];
  /** Buckets with a value whose neighbours both have none: drawn as a dot, no line reaches them. */
  readonly alone: readonly TrendChartPoint[];
  /** The largest value (the earliest bucket with it), or null when no bucket has one. */
  readonly peak: TrendChartValue | null;
  /** The value of the last bucket that has one, or null. */
  readonly latest: TrendChartValue | null;
  /** How many buckets have no value. */
  readonly gaps: number;
}

/**
 * The smallest of 1, 2 or 5 times a power of ten that is at least `value` (and at least
 * `floor`), capped at `cap`: the top of a chart whose peak is `value`.
 *
 * @internal
 */
export function roundTop(value: number, floor: number, cap = Infinity): number {
  const target = Math.max(value, floor);
  if (!(target > 0) || !Number.isFinite(target)) return Math.min(Math.max(floor, 0), cap);
  const power = 10 ** Math.floor(Math.log10(target));
  const step = [1, 2, 5, 10].find((m) => m * power >= target * (1 - 1e-12)) ?? 10;
  return Math.min(step * power, cap);
}

/**
 * Lays out a series: `values[i]` is bucket i's value (null: a gap). The top of the chart is
 * {@link roundTop} of the peak, at least `floor` and at most `cap` (a failure rate never above 1).
 *
 * @internal
 */
export function layoutTrendChart(values: readonly (number | null)[], floor: number, cap = Infinity): TrendChartLayout {
  let peak: TrendChartValue | null = null;
  let latest: TrendChartValue | null = null;
  for (let index = 0; index < values.length; index++) {
    const value = values[index] ?? null;
    if (value === null) continue;
    if (peak === null || value > peak.value) peak = { index, value };
    latest = { index, value };
  }
  const top = roundTop(peak?.value ?? 0, floor, cap);
  const n = values.length;
  const at = (index: number): TrendChartPoint | null => {
    const value = values[index];
    if (value === null || value === undefined) return null;
    return { index, x: ((index + 0.5) / n) * 100, y: top > 0 ? Math.min(1, Math.max(0, value / top)) : 0, value };
  };
  const points: TrendChartPoint[] = [];
  const segments: { from: TrendChartPoint; to: TrendChartPoint }[] = [];
  const alone: TrendChartPoint[] = [];
  for (let i = 0; i < n; i++) {
    const point = at(i);
    if (point === null) continue;
    points.push(point);
    const next = at(i + 1);
    if (next !== null) segments.push({ from: point, to: next });
    else if (at(i - 1) === null) alone.push(point);
  }
  return { top, segments, points, alone, peak, latest, gaps: n - points.length };
}
