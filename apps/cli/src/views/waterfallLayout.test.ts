import { RunCallState, RunLifecycleEvent, RunTimelineEntry, type RunTimelineOutcome } from '@runledger/trace';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assignLanes, layoutWaterfall, MIN_BAR_PERCENT, type WaterfallBar } from './waterfallLayout.js';

const T0 = Date.UTC(2026, 10, 29, 9, 0, 0);
const EPSILON = 1e-9;

function step(sequence: number, end: number, durationMs: number, outcome: RunTimelineOutcome = 'ok'): RunTimelineEntry {
  return new RunTimelineEntry(end, sequence, null, outcome === '' ? 'llm' : 'tool', 'docs', 1, durationMs, outcome, {}, false, null);
}

function started(sequence: number, at: number, state: RunCallState): RunTimelineEntry {
  return new RunTimelineEntry(at, sequence, null, 'tool_start', 'docs', 1, null, '', {}, false, null, state);
}

function lifecycle(event: RunLifecycleEvent, at: number): RunTimelineEntry {
  return new RunTimelineEntry(at, null, event, 'run', 'run', null, null, '', {}, false, null);
}

/** Two bars overlap in time when each starts before the other ends (an instant overlaps nothing). */
function overlapInTime(a: WaterfallBar, b: WaterfallBar): boolean {
  return a.start < b.end && b.start < a.end;
}

function overlapOnScreen(a: WaterfallBar, b: WaterfallBar): boolean {
  return a.x < b.x + b.width - EPSILON && b.x < a.x + a.width - EPSILON;
}

const entryArb = fc.oneof(
  {
    arbitrary: fc.record({
      end: fc.integer({ min: 0, max: 600_000 }),
      duration: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 600_000 })),
      outcome: fc.constantFrom<RunTimelineOutcome>('ok', 'failed', 'cancelled', ''),
    }),
    weight: 6,
  },
  {
    arbitrary: fc.record({
      start: fc.integer({ min: 0, max: 600_000 }),
      state: fc.constantFrom(RunCallState.ON_THE_WIRE, RunCallState.INTERRUPTED),
    }),
    weight: 1,
  },
);

describe('layoutWaterfall', () => {
  it('puts two calls that overlap in time side by side on separate lanes, and a later call back on the first lane', () => {
    const layout = layoutWaterfall(
      [
        lifecycle(RunLifecycleEvent.STARTED, T0),
        step(0, T0 + 500, 400),
        step(1, T0 + 600, 450, 'cancelled'),
        step(2, T0 + 1000, 300, 'failed'),
      ],
      T0 + 5_000,
    )!;
    expect(layout.axisStart).toBe(T0);
    expect(layout.axisEnd).toBe(T0 + 1000);
    expect(layout.bars.map((bar) => [bar.entry.sequence, bar.lane, bar.state])).toEqual([
      [0, 0, 'ok'],
      [1, 1, 'cancelled'],
      [2, 0, 'failed'],
    ]);
    expect(layout.lanes).toBe(2);
    const [first, second, third] = layout.bars;
    expect(first!.x).toBeCloseTo(10, 9);
    expect(first!.width).toBeCloseTo(40, 9);
    expect(second!.x).toBeCloseTo(15, 9);
    expect(third!.x + third!.width).toBeCloseTo(100, 9);
    expect(layout.markers.map((marker) => [marker.entry.event, marker.x])).toEqual([['started', 0]]);
    expect(layout.ticks.map((tick) => tick.offsetMs)).toEqual([0, 200, 400, 600, 800, 1000]);
  });

  it('draws a call on the wire from its start up to now, and an interrupted call to the end of the axis', () => {
    const now = T0 + 3_000;
    const running = layoutWaterfall([step(0, T0 + 1000, 1000), started(1, T0 + 1500, RunCallState.ON_THE_WIRE)], now)!;
    expect(running.axisEnd).toBe(now);
    const wire = running.bars[1]!;
    expect([wire.state, wire.start, wire.end, wire.lane]).toEqual(['running', T0 + 1500, now, 0]);
    expect(wire.x + wire.width).toBeCloseTo(100, 9);
    // the next view, a second later: the same call's bar has grown
    const later = layoutWaterfall([step(0, T0 + 1000, 1000), started(1, T0 + 1500, RunCallState.ON_THE_WIRE)], now + 1000)!;
    expect(later.bars[1]!.end - later.bars[1]!.start).toBe(wire.end - wire.start + 1000);

    const ended = layoutWaterfall(
      [step(0, T0 + 1000, 1000), started(1, T0 + 1500, RunCallState.INTERRUPTED), lifecycle(RunLifecycleEvent.INTERRUPTED, T0 + 4000)],
      T0 + 99_000,
    )!;
    expect(ended.axisEnd).toBe(T0 + 4000);
    expect(ended.bars[1]!.state).toBe('interrupted');
    expect(ended.bars[1]!.end).toBe(T0 + 4000);
  });

  it('keeps an instant step visible at the narrowest width, inside the axis', () => {
    const layout = layoutWaterfall([step(0, T0, 0, ''), step(1, T0 + 10_000, 10_000), step(2, T0 + 10_000, 0, '')], T0)!;
    expect(layout.bars.map((bar) => bar.width >= MIN_BAR_PERCENT)).toEqual([true, true, true]);
    const last = layout.bars[2]!;
    expect(last.x + last.width).toBeCloseTo(100, 9);
    expect(last.lane).not.toBe(layout.bars[1]!.lane);
  });

  it('is null without steps, and a slice of one instant gets an axis of 1 ms', () => {
    expect(layoutWaterfall([lifecycle(RunLifecycleEvent.STARTED, T0)], T0)).toBeNull();
    const one = layoutWaterfall([step(0, T0, 0)], T0)!;
    expect(one.axisEnd - one.axisStart).toBe(1);
    expect(one.ticks.length).toBeGreaterThan(0);
  });

  it('property: no two bars that overlap (in time or on screen) share a lane; every bar is within the axis', () => {
    fc.assert(
      fc.property(fc.array(entryArb, { minLength: 1, maxLength: 60 }), fc.integer({ min: 0, max: 700_000 }), (specs, nowOffset) => {
        const entries = specs.map((spec, i) =>
          'state' in spec
            ? started(i, T0 + spec.start, spec.state)
            : step(i, T0 + spec.end, Math.min(spec.duration, spec.end), spec.outcome),
        );
        entries.sort((a, b) => a.time - b.time);
        const layout = layoutWaterfall(entries, T0 + nowOffset)!;
        expect(layout.bars).toHaveLength(entries.length);
        for (const bar of layout.bars) {
          expect(bar.x).toBeGreaterThanOrEqual(0);
          expect(bar.width).toBeGreaterThanOrEqual(MIN_BAR_PERCENT);
          expect(bar.x + bar.width).toBeLessThanOrEqual(100 + EPSILON);
          expect(bar.start).toBeGreaterThanOrEqual(layout.axisStart);
          expect(bar.end).toBeLessThanOrEqual(layout.axisEnd);
          expect(bar.lane).toBeGreaterThanOrEqual(0);
          expect(bar.lane).toBeLessThan(layout.lanes);
        }
        for (let i = 0; i < layout.bars.length; i++) {
          for (let j = i + 1; j < layout.bars.length; j++) {
            const a = layout.bars[i]!;
            const b = layout.bars[j]!;
            if (overlapInTime(a, b) || overlapOnScreen(a, b)) expect(a.lane, `bars ${i} and ${j}`).not.toBe(b.lane);
          }
        }
        for (const tick of layout.ticks) {
          expect(tick.x).toBeGreaterThanOrEqual(0);
          expect(tick.x).toBeLessThanOrEqual(100);
        }
        expect(layout.ticks.length).toBeLessThanOrEqual(7);
      }),
      { numRuns: 300 },
    );
  });
});

describe('assignLanes', () => {
  it('property: overlapping intervals never share a lane, and the lanes are as few as the most that overlap at one point', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc
            .tuple(fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 1, max: 200 }))
            .map(([from, length]) => ({ from, to: from + length })),
          { maxLength: 80 },
        ),
        (intervals) => {
          const { lanes, count } = assignLanes(intervals);
          for (let i = 0; i < intervals.length; i++) {
            for (let j = i + 1; j < intervals.length; j++) {
              const a = intervals[i]!;
              const b = intervals[j]!;
              if (a.from < b.to && b.from < a.to) expect(lanes[i]).not.toBe(lanes[j]);
            }
          }
          // the most intervals covering one point (at some interval's start) is the least number of lanes
          let most = 0;
          for (const { from } of intervals)
            most = Math.max(most, intervals.filter((other) => other.from <= from && from < other.to).length);
          expect(count).toBe(most);
          expect(new Set(lanes).size).toBe(count);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('takes the lowest free lane: sequential intervals stay on lane 0', () => {
    expect(
      assignLanes([
        { from: 0, to: 10 },
        { from: 10, to: 20 },
        { from: 5, to: 15 },
        { from: 20, to: 30 },
      ]),
    ).toEqual({
      lanes: [0, 0, 1, 0],
      count: 2,
    });
  });

  it('stays fast at 10 000 intervals that all overlap (no per-interval scan of the lanes)', () => {
    const intervals = Array.from({ length: 10_000 }, (_, i) => ({ from: i, to: 1_000_000 }));
    const started = performance.now();
    const { count } = assignLanes(intervals);
    expect(count).toBe(10_000);
    expect(performance.now() - started).toBeLessThan(500);
  });
});
