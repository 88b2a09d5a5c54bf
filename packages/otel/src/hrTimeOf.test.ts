import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hrTimeOf } from './hrTimeOf.js';

const nanos = ([s, n]: readonly [number, number]): bigint => BigInt(s) * 1_000_000_000n + BigInt(n);

describe('hrTimeOf', () => {
  it('is the epoch ms minus a 2-decimal duration, exact to the nanosecond', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4_102_444_800_000 }), fc.integer({ min: 0, max: 8_640_000_000 }), (ms, hundredths) => {
        const time = hrTimeOf(ms, hundredths / 100);
        expect(time[1]).toBeGreaterThanOrEqual(0);
        expect(time[1]).toBeLessThan(1_000_000_000);
        expect(nanos(time)).toBe(BigInt(ms) * 1_000_000n - BigInt(hundredths) * 10_000n);
      }),
    );
  });

  it('keeps whole epoch ms as they are', () => {
    expect(hrTimeOf(1_764_547_200_123)).toEqual([1_764_547_200, 123_000_000]);
    expect(hrTimeOf(1_764_547_200_000, 0.01)).toEqual([1_764_547_199, 999_990_000]);
  });
});
