import type { ToolOutcome } from '@runledger/core';
import type { RunTimelineEntry } from '@runledger/trace';
import { stepSpan } from '../viewModels/stepSpan.js';

/**
 * How a waterfall bar looks: a tool call's outcome, a call still on the wire (`running`), one the
 * run ended without (`interrupted`), or any other step (`step`).
 *
 * @internal
 */
export type WaterfallBarState = ToolOutcome | 'running' | 'interrupted' | 'step';

/** One step as a bar on the waterfall's time axis. @internal */
export interface WaterfallBar {
  readonly entry: RunTimelineEntry;
  /** When the step began, in ms since the epoch: its time less its duration, or a call's start. */
  readonly start: number;
  /** When it ended: its time; `now` for a call on the wire; the axis end for an interrupted call. */
  readonly end: number;
  readonly state: WaterfallBarState;
  /** Left edge, in percent of the axis width (0 to 100). */
  readonly x: number;
  /** Width in percent of the axis width, at least {@link MIN_BAR_PERCENT}; `x + width` is at most 100. */
  readonly width: number;
  /** The row the bar is drawn on, from 0: bars that overlap are never on the same lane. */
  readonly lane: number;
}

/** A lifecycle event of the run (started, cancel requested, the end) as a line across the lanes. @internal */
export interface WaterfallMarker {
  readonly entry: RunTimelineEntry;
  /** In percent of the axis width. */
  readonly x: number;
}

/** A labelled tick of the time axis. @internal */
export interface WaterfallTick {
  /** Time since the axis start, in ms. */
  readonly offsetMs: number;
  /** In percent of the axis width. */
  readonly x: number;
}

/** A slice of a run's timeline laid out on one time axis. @internal */
export interface WaterfallLayout {
  /** The axis from its first to its last instant, in ms since the epoch (`axisEnd > axisStart`). */
  readonly axisStart: number;
  readonly axisEnd: number;
  /** One bar per step of the slice, in the slice's order. */
  readonly bars: readonly WaterfallBar[];
  /** How many lanes the bars take. */
  readonly lanes: number;
  readonly markers: readonly WaterfallMarker[];
  readonly ticks: readonly WaterfallTick[];
}

/** The narrowest bar, in percent of the axis width: an instant step stays visible and clickable. @internal */
export const MIN_BAR_PERCENT = 0.25;

/** At most this many intervals between ticks, so that their labels fit a narrow screen. */
const MAX_TICK_INTERVALS = 6;

/** Tick spacings a reader counts in: 1-2-5 steps in ms, then whole seconds, minutes and hours. */
const TICK_STEPS_MS = [
  1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 900_000, 1_800_000,
  3_600_000, 7_200_000, 10_800_000, 21_600_000, 43_200_000, 86_400_000,
];

/**
 * Lays a slice of a run's timeline out as a waterfall: each step a bar from its start to its end on
 * the slice's time axis, steps that overlap on lanes of their own, the lifecycle events as markers
 * and round ticks. Null when the slice has no step.
 *
 * @remarks
 * A step's entry is stamped when it was recorded, at its end: it began `durationMs` before. A call
 * on the wire began at its `tool_start` and runs until `now`; an interrupted call has no end, and
 * its bar reaches the end of the axis. O(n log n) in the entries (one sort), with no per-bar scan
 * of the others.
 *
 * @internal
 */
export function layoutWaterfall(entries: readonly RunTimelineEntry[], now: number): WaterfallLayout | null {
  const spans: { entry: RunTimelineEntry; start: number; end: number; state: WaterfallBarState }[] = [];
  const events: RunTimelineEntry[] = [];
  let axisStart = Number.POSITIVE_INFINITY;
  let axisEnd = Number.NEGATIVE_INFINITY;
  for (const entry of entries) {
    if (entry.event !== null) {
      events.push(entry);
      axisStart = Math.min(axisStart, entry.time);
      axisEnd = Math.max(axisEnd, entry.time);
      continue;
    }
    const times = stepSpan(entry);
    const start = times.start;
    // a call on the wire reaches now; an interrupted one the axis end, set below
    const end = entry.callState === 'on_the_wire' ? Math.max(start, now) : (times.end ?? start);
    const state: WaterfallBarState =
      entry.callState === 'on_the_wire'
        ? 'running'
        : entry.callState === 'interrupted'
          ? 'interrupted'
          : entry.outcome === ''
            ? 'step'
            : entry.outcome;
    spans.push({ entry, start, end, state });
    axisStart = Math.min(axisStart, start);
    axisEnd = Math.max(axisEnd, end);
  }
  if (spans.length === 0) return null;
  if (!(axisEnd > axisStart)) axisEnd = axisStart + 1;
  const span = axisEnd - axisStart;
  const at = (time: number) => ((time - axisStart) / span) * 100;

  const boxes = spans.map((bar) => {
    const end = bar.state === 'interrupted' ? axisEnd : bar.end;
    const width = Math.max(at(end) - at(bar.start), MIN_BAR_PERCENT);
    const x = Math.min(at(bar.start), 100 - width);
    return { x, width };
  });
  const { lanes, count } = assignLanes(boxes.map((box) => ({ from: box.x, to: box.x + box.width })));
  const bars = spans.map((bar, i): WaterfallBar => ({
    entry: bar.entry,
    start: bar.start,
    end: bar.state === 'interrupted' ? axisEnd : bar.end,
    state: bar.state,
    x: boxes[i]!.x,
    width: boxes[i]!.width,
    lane: lanes[i]!,
  }));
  const step = tickStep(span);
  const ticks: WaterfallTick[] = [];
  for (let offsetMs = 0; offsetMs <= span; offsetMs += step) ticks.push({ offsetMs, x: (offsetMs / span) * 100 });
  return {
    axisStart,
    axisEnd,
    bars,
    lanes: count,
    markers: events.map((entry) => ({ entry, x: at(entry.time) })),
    ticks,
  };
}

/** The round tick spacing that cuts `span` ms into at most {@link MAX_TICK_INTERVALS} intervals. */
function tickStep(span: number): number {
  for (const step of TICK_STEPS_MS) if (span / step <= MAX_TICK_INTERVALS) return step;
  const day = TICK_STEPS_MS[TICK_STEPS_MS.length - 1]!;
  return Math.ceil(span / MAX_TICK_INTERVALS / day) * day;
}

/**
 * Puts intervals on lanes so that no two that overlap share one, using as few lanes as the most
 * intervals that overlap at one point, each on the lowest lane free at its start.
 *
 * @remarks
 * Intervals are half-open, `[from, to)`: one that ends where the next begins leaves the lane to
 * it. A sweep in order of `from` with two heaps (the busy lanes by their end, the free lanes by
 * number): O(n log n).
 *
 * @internal
 */
export function assignLanes(intervals: readonly { readonly from: number; readonly to: number }[]): {
  lanes: number[];
  count: number;
} {
  const order = intervals.map((_, i) => i);
  order.sort((a, b) => intervals[a]!.from - intervals[b]!.from || intervals[a]!.to - intervals[b]!.to || a - b);
  const lanes = new Array<number>(intervals.length);
  const busy = new MinHeap<{ end: number; lane: number }>((a, b) => a.end - b.end || a.lane - b.lane);
  const free = new MinHeap<number>((a, b) => a - b);
  let count = 0;
  for (const i of order) {
    const { from, to } = intervals[i]!;
    while (busy.size > 0 && busy.peek()!.end <= from) free.push(busy.pop()!.lane);
    const lane = free.size > 0 ? free.pop()! : count++;
    lanes[i] = lane;
    busy.push({ end: to, lane });
  }
  return { lanes, count };
}

/** A binary min-heap under a comparison. */
class MinHeap<T> {
  readonly #items: T[] = [];
  readonly #compare: (a: T, b: T) => number;

  constructor(compare: (a: T, b: T) => number) {
    this.#compare = compare;
  }

  get size(): number {
    return this.#items.length;
  }

  peek(): T | undefined {
    return this.#items[0];
  }

  push(item: T): void {
    const items = this.#items;
    items.push(item);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.#compare(items[i]!, items[parent]!) >= 0) break;
      [items[i], items[parent]] = [items[parent]!, items[i]!];
      i = parent;
    }
  }

  pop(): T | undefined {
    const items = this.#items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last !== undefined) {
      items[0] = last;
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        const right = left + 1;
        let least = i;
        if (left < items.length && this.#compare(items[left]!, items[least]!) < 0) least = left;
        if (right < items.length && this.#compare(items[right]!, items[least]!) < 0) least = right;
        if (least === i) break;
        [items[i], items[least]] = [items[least]!, items[i]!];
        i = least;
      }
    }
    return top;
  }
}
