import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RunTrace } from './RunTrace.js';

/** One record call of a generated run: a request with its text, or a read of `steps` between records. */
type Op = { readonly read: true } | { readonly read: false; readonly content: string };
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 6 }).map((content) => ({ read: false as const, content })) },
  { weight: 1, arbitrary: fc.constant({ read: true as const }) },
);
const keep = fc.oneof(fc.nat({ max: 12 }), fc.constant(Infinity));

describe('RunTrace keepSteps', () => {
  it('holds the last keepSteps of what an unbounded trace holds, in record order, and counts every step', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 40 }), keep, async (ops, keepSteps) => {
        const hooked: number[] = [];
        const all = RunTrace.create();
        const window = RunTrace.create({ keepSteps, onRecord: (_step, record) => void hooked.push(record.index) });
        for (const o of ops) {
          if (o.read) {
            // a read between records (the cached view must not outlive the next record)
            expect(window.steps.map((s) => s.content)).toEqual(
              all.steps.slice(keepSteps === 0 ? all.steps.length : -keepSteps).map((s) => s.content),
            );
            continue;
          }
          await all.recordRequest({ content: o.content });
          await window.recordRequest({ content: o.content });
        }
        const expected = keepSteps === 0 ? [] : all.steps.slice(-keepSteps);
        expect(window.steps).toEqual(expected);
        expect(window.steps.every((step, i) => step === window.steps[i])).toBe(true);
        expect(window.stepCount).toBe(all.steps.length);
        expect(all.stepCount).toBe(all.steps.length);
        // the hook still gets every step, indexed from 0 in record order
        expect(hooked).toEqual(all.steps.map((_s, i) => i));
        expect(Object.isFrozen(window.steps)).toBe(true);
      }),
    );
  });

  it('returns the same frozen array until the next record', async () => {
    const trace = RunTrace.create({ keepSteps: 2 });
    for (const content of ['a', 'b', 'c']) await trace.recordRequest({ content });
    const first = trace.steps;
    expect(trace.steps).toBe(first);
    expect(first.map((s) => s.content)).toEqual(['b', 'c']);
    await trace.recordRequest({ content: 'd' });
    expect(trace.steps).not.toBe(first);
    expect(first.map((s) => s.content)).toEqual(['b', 'c']);
    expect(trace.steps.map((s) => s.content)).toEqual(['c', 'd']);
  });

  it('keeps every step without the option, as before', async () => {
    const trace = RunTrace.create();
    for (let i = 0; i < 50; i++) await trace.recordRequest({ content: String(i) });
    expect(trace.steps).toHaveLength(50);
    expect(trace.stepCount).toBe(50);
  });

  it('refuses a keepSteps that is not a non-negative integer or Infinity, naming the option and the rule', () => {
    for (const bad of [-1, 1.5, NaN, -Infinity, 2 ** 53]) {
      expect(() => RunTrace.create({ keepSteps: bad })).toThrow(RangeError);
      expect(() => RunTrace.create({ keepSteps: bad })).toThrow(
        `RunTraceOptions.keepSteps must be a non-negative integer or Infinity (every step), got ${String(bad)}`,
      );
    }
    for (const bad of ['10', null, {}]) {
      expect(() => RunTrace.create({ keepSteps: bad as unknown as number })).toThrow(TypeError);
      expect(() => RunTrace.create({ keepSteps: bad as unknown as number })).toThrow(
        /^RunTraceOptions\.keepSteps must be a non-negative integer or Infinity/,
      );
    }
    expect(RunTrace.create({ keepSteps: 0 }).steps).toEqual([]);
  });
});
