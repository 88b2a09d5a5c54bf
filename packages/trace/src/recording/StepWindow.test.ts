import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkKeepSteps, StepWindow } from './StepWindow.js';

describe('StepWindow', () => {
  it('holds the last keep items in order, however often the ring wraps, and counts every item', () => {
    fc.assert(
      fc.property(fc.nat({ max: 300 }), fc.oneof(fc.nat({ max: 40 }), fc.constant(Infinity)), fc.nat({ max: 50 }), (n, keep, readEvery) => {
        const window = new StepWindow<number>(keep);
        const all: number[] = [];
        for (let i = 0; i < n; i++) {
          window.add(i);
          all.push(i);
          if (readEvery > 0 && i % readEvery === 0) expect(window.view()).toEqual(keep === 0 ? [] : all.slice(-keep));
        }
        expect(window.view()).toEqual(keep === 0 ? [] : all.slice(-keep));
        expect(window.total).toBe(n);
      }),
    );
  });

  it('takes a non-negative integer or Infinity as keep', () => {
    expect(checkKeepSteps(0, 'X.keep')).toBe(0);
    expect(checkKeepSteps(Infinity, 'X.keep')).toBe(Infinity);
    expect(() => checkKeepSteps(-0.5, 'X.keep')).toThrow(
      new RangeError('X.keep must be a non-negative integer or Infinity (every step), got -0.5'),
    );
    expect(() => checkKeepSteps(undefined, 'X.keep')).toThrow(
      new TypeError('X.keep must be a non-negative integer or Infinity (every step), got undefined'),
    );
  });
});
