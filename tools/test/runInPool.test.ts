import { describe, expect, it } from 'vitest';
import { runInPool } from '../src/lib/runInPool.ts';

describe('runInPool', () => {
  it('runs at most `concurrency` at once, starts the next as one ends, in the given order, and returns results in order', async () => {
    const events: string[] = [];
    let running = 0;
    let most = 0;
    const durations = [30, 5, 5, 5];
    const results = await runInPool(durations, 2, async (ms, i) => {
      running++;
      most = Math.max(most, running);
      events.push(`start ${i}`);
      await new Promise((r) => setTimeout(r, ms));
      running--;
      events.push(`end ${i}`);
      return ms * 2;
    });
    expect(results).toEqual([60, 10, 10, 10]);
    expect(most).toBe(2);
    // the long first job holds one slot while the short ones pass through the other
    expect(events.slice(0, 2)).toEqual(['start 0', 'start 1']);
    expect(events.indexOf('start 2')).toBeGreaterThan(events.indexOf('end 1'));
    expect(events.at(-1)).toBe('end 0');
  });

  it('runs one at a time at concurrency 1 (or less), and nothing for no items', async () => {
    const order: number[] = [];
    await runInPool([1, 2, 3], 0, async (n) => {
      order.push(n);
      await new Promise((r) => setTimeout(r, 1));
      order.push(-n);
    });
    expect(order).toEqual([1, -1, 2, -2, 3, -3]);
    expect(await runInPool([], 4, async () => 1)).toEqual([]);
  });
});
