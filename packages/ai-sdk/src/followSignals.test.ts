import { getEventListeners } from 'node:events';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { followSignals } from './followSignals.js';

describe('followSignals', () => {
  it('aborts with the reason of the first followed signal that aborts, and leaves no listener behind', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.array(fc.nat(3), { maxLength: 4 }), fc.boolean(), (count, order, releaseFirst) => {
        const sources = Array.from({ length: count }, () => new AbortController());
        const followed = followSignals([undefined, ...sources.map((c) => c.signal), sources[0]!.signal]);
        if (releaseFirst) followed.release();
        const aborts = order.filter((i) => i < count);
        for (const i of aborts) sources[i]!.abort(new Error(`source ${i}`));
        followed.release();
        const first = aborts[0];
        if (count === 1) expect(followed.signal).toBe(sources[0]!.signal);
        else if (first === undefined || releaseFirst) expect(followed.signal.aborted).toBe(false);
        else expect(followed.signal.reason).toBe(sources[first]!.signal.reason);
        for (const source of sources) expect(getEventListeners(source.signal, 'abort')).toHaveLength(0);
      }),
    );
  });

  it('is aborted at once when a followed signal already was', () => {
    const reason = new Error('before');
    const followed = followSignals([new AbortController().signal, AbortSignal.abort(reason)]);
    expect(followed.signal.reason).toBe(reason);
  });
});
