import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isZoomRange, readZoomRange, shiftRange, type StepRange, zoomIn, zoomOut } from './zoomRange.js';

const MAX = 200;

function read(query: string, stepCount = 10_000) {
  return readZoomRange(new URLSearchParams(query), stepCount, MAX);
}

/** A run's step count and a range that meets the rule for it. */
const runAndRange = fc
  .integer({ min: 1, max: 100_000 })
  .chain((stepCount) =>
    fc
      .integer({ min: 0, max: stepCount - 1 })
      .chain((from) =>
        fc.integer({ min: from + 1, max: Math.min(stepCount, from + MAX) }).map((to) => ({ stepCount, range: { from, to } })),
      ),
  );

describe('readZoomRange', () => {
  it('is a plain page without `to`, whatever `from` says (the pager reads it leniently)', () => {
    expect(read('')).toEqual({ kind: 'page' });
    expect(read('from=-5')).toEqual({ kind: 'page' });
    expect(read('from=1e300')).toEqual({ kind: 'page' });
  });

  it('reads a range of a 10 000-step run, `from` 0 when left out', () => {
    expect(read('from=5000&to=5020')).toEqual({ kind: 'range', range: { from: 5000, to: 5020 } });
    expect(read('to=3')).toEqual({ kind: 'range', range: { from: 0, to: 3 } });
    expect(read('from=9800&to=10000')).toEqual({ kind: 'range', range: { from: 9800, to: 10_000 } });
  });

  it('names each parameter that breaks the rule, with the rule', () => {
    const problems = (query: string, stepCount?: number) => {
      const result = read(query, stepCount);
      return result.kind === 'problems' ? result.problems.map((problem) => [problem.param, problem.message]) : result;
    };
    expect(problems('from=abc&to=10')).toEqual([['from', 'runs.zoom.error.whole']]);
    expect(problems('from=1&to=')).toEqual([['to', 'runs.zoom.error.whole']]);
    expect(problems('from=-1&to=2.5')).toEqual([
      ['from', 'runs.zoom.error.whole'],
      ['to', 'runs.zoom.error.whole'],
    ]);
    expect(problems('from=1e3&to=2000')).toEqual([['from', 'runs.zoom.error.whole']]);
    expect(problems('from=20&to=20')).toEqual([['to', 'runs.zoom.error.empty']]);
    expect(problems('from=30&to=20')).toEqual([['to', 'runs.zoom.error.empty']]);
    expect(problems('from=0&to=201')).toEqual([['to', 'runs.zoom.error.tooWide']]);
    expect(problems('from=10&to=60', 50)).toEqual([['to', 'runs.zoom.error.toBeyond']]);
    expect(problems('from=50&to=60', 50)).toEqual([
      ['from', 'runs.zoom.error.fromBeyond'],
      ['to', 'runs.zoom.error.toBeyond'],
    ]);
  });

  it('accepts exactly the ranges 0 ≤ from < to ≤ steps with to − from ≤ the page size, as given', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 5_000 }),
        fc.oneof(fc.integer({ min: -10, max: 6_000 }), fc.constant(0)),
        fc.integer({ min: -10, max: 6_000 }),
        (stepCount, from, to) => {
          const result = readZoomRange(new URLSearchParams({ from: String(from), to: String(to) }), stepCount, MAX);
          const good = from >= 0 && from < to && to <= stepCount && to - from <= MAX;
          expect(result.kind).toBe(good ? 'range' : 'problems');
          if (result.kind === 'range') expect(result.range).toEqual({ from, to });
          if (result.kind === 'problems') expect(result.problems.length).toBeGreaterThan(0);
          expect(isZoomRange({ from, to }, stepCount, MAX)).toBe(good);
        },
      ),
    );
  });

  it('refuses any `from` or `to` that is not digits alone, naming it', () => {
    const notDigits = fc.string({ maxLength: 8 }).filter((text) => !/^\d+$/.test(text));
    fc.assert(
      fc.property(notDigits, fc.constantFrom<'from' | 'to'>('from', 'to'), (text, param) => {
        const query = new URLSearchParams(param === 'from' ? { from: text, to: '5' } : { from: '1', to: text });
        const result = readZoomRange(query, 100, MAX);
        expect(result.kind).toBe('problems');
        if (result.kind === 'problems')
          expect(result.problems).toContainEqual({ param, message: 'runs.zoom.error.whole', params: { value: text } });
      }),
    );
  });
});

describe('the zoom links', () => {
  const contains = (outer: StepRange, inner: StepRange) => outer.from <= inner.from && inner.to <= outer.to;

  it('zoom in to the middle half, zoom out to twice the range, and page by its width', () => {
    expect(zoomIn({ from: 0, to: 200 })).toEqual({ from: 50, to: 150 });
    expect(zoomIn({ from: 10, to: 13 })).toEqual({ from: 10, to: 12 });
    expect(zoomIn({ from: 7, to: 8 })).toBeNull();
    expect(zoomOut({ from: 50, to: 150 }, 10_000, MAX)).toEqual({ from: 0, to: 200 });
    expect(zoomOut({ from: 0, to: 10 }, 10_000, MAX)).toEqual({ from: 0, to: 20 });
    expect(zoomOut({ from: 9_990, to: 10_000 }, 10_000, MAX)).toEqual({ from: 9_980, to: 10_000 });
    expect(zoomOut({ from: 0, to: 200 }, 10_000, MAX)).toBeNull();
    expect(zoomOut({ from: 0, to: 5 }, 5, MAX)).toBeNull();
    expect(shiftRange({ from: 40, to: 60 }, 1, 70)).toEqual({ from: 50, to: 70 });
    expect(shiftRange({ from: 10, to: 30 }, -1, 70)).toEqual({ from: 0, to: 20 });
    expect(shiftRange({ from: 0, to: 30 }, -1, 70)).toBeNull();
    expect(shiftRange({ from: 40, to: 70 }, 1, 70)).toBeNull();
  });

  it('lead only to ranges that meet the rule: zoom in within the range, zoom out around it, paging at its width', () => {
    fc.assert(
      fc.property(runAndRange, ({ stepCount, range }) => {
        const size = range.to - range.from;
        const inward = zoomIn(range);
        if (size === 1) expect(inward).toBeNull();
        else {
          expect(isZoomRange(inward!, stepCount, MAX)).toBe(true);
          expect(contains(range, inward!)).toBe(true);
          expect(inward!.to - inward!.from).toBeLessThan(size);
        }
        const outward = zoomOut(range, stepCount, MAX);
        if (size >= Math.min(MAX, stepCount)) expect(outward).toBeNull();
        else {
          expect(isZoomRange(outward!, stepCount, MAX)).toBe(true);
          expect(contains(outward!, range)).toBe(true);
          expect(outward!.to - outward!.from).toBeGreaterThan(size);
        }
        for (const direction of [-1, 1] as const) {
          const moved = shiftRange(range, direction, stepCount);
          if (direction < 0 ? range.from === 0 : range.to === stepCount) expect(moved).toBeNull();
          else {
            expect(isZoomRange(moved!, stepCount, MAX)).toBe(true);
            expect(moved!.to - moved!.from).toBe(size);
            expect(direction < 0 ? moved!.from < range.from : moved!.from > range.from).toBe(true);
          }
        }
      }),
    );
  });
});
