import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  PRUNE_ALONE_AFTER_MS,
  PRUNE_ALONE_BUDGET_MS,
  PRUNE_ALONE_PAUSE_MS,
  PRUNE_ALONE_SYNC_EVERY_MS,
  PRUNE_MIN_PAUSE_MS,
  PRUNE_MIN_STEPS,
  PRUNE_TRANSACTION_BUDGET_MS,
  SqlitePrunePace,
} from './SqlitePrunePace.js';

/** A pace, and a transaction that deleted `steps` holding the lock `ms`. */
function paced(options: { batchSize: number | undefined; maxSteps: number }): {
  pace: SqlitePrunePace;
  run(steps: number, ms: number): void;
} {
  const pace = new SqlitePrunePace(options);
  return { pace, run: (steps, ms) => pace.learn(steps, ms) };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('SqlitePrunePace', () => {
  it('uses a given batch size as it is, however long a transaction takes', () => {
    const { pace, run } = paced({ batchSize: 400, maxSteps: 400 });
    expect(pace.steps).toBe(400);
    run(400, 500);
    run(400, 0.01);
    expect(pace.steps).toBe(400);
  });

  it('sizes transactions to hold the lock for the time budget when the store chooses, changing at most 2× at a time, within its bounds', () => {
    const { pace, run } = paced({ batchSize: undefined, maxSteps: 2000 });
    expect(pace.steps).toBe(50);
    // a fast rate: 2000 steps would fit the budget, but it only doubles
    const fast = PRUNE_TRANSACTION_BUDGET_MS / 2500;
    run(50, 50 * fast);
    expect(pace.steps).toBe(100);
    run(100, 100 * fast);
    expect(pace.steps).toBe(200);
    run(200, 200 * fast);
    run(400, 400 * fast);
    run(800, 800 * fast);
    run(1600, 1600 * fast);
    expect(pace.steps).toBe(2000);
    run(2000, 2000 * fast);
    expect(pace.steps).toBe(2000);
    // slow: 2000 steps held the lock 100 ms, a few would fit; it only halves
    run(2000, 100);
    expect(pace.steps).toBe(1000);
    run(1000, 20 * PRUNE_TRANSACTION_BUDGET_MS);
    expect(pace.steps).toBe(500);
    // a rate in the middle: 500 steps in twice the budget → 250 fit
    run(500, 2 * PRUNE_TRANSACTION_BUDGET_MS);
    expect(pace.steps).toBe(250);
    // never below the floor
    for (let i = 0; i < 10; i++) run(pace.steps, 10_000);
    expect(pace.steps).toBe(PRUNE_MIN_STEPS);
  });

  it('learns nothing from a transaction that deleted few steps (a run row alone, a small run)', () => {
    const { pace, run } = paced({ batchSize: undefined, maxSteps: 2000 });
    run(0, 50);
    run(10, 50);
    expect(pace.steps).toBe(50);
  });

  it('pauses as long as the last transaction took, at least the minimum pause', async () => {
    vi.useFakeTimers();
    const { pace, run } = paced({ batchSize: 100, maxSteps: 100 });
    const waits = async (): Promise<number> => {
      let done = false;
      const paused = pace.pause().then(() => (done = true));
      let ms = 0;
      while (!done) {
        await vi.advanceTimersByTimeAsync(1);
        ms++;
      }
      await paused;
      return ms;
    };
    run(100, 1);
    expect(await waits()).toBe(PRUNE_MIN_PAUSE_MS);
    // as long as the lock was held, its commit included
    run(100, 80);
    expect(await waits()).toBe(80);
    // a pause without a transaction before it: the minimum
    expect(await waits()).toBe(PRUNE_MIN_PAUSE_MS);
  });
});

describe('SqlitePrunePace alone', () => {
  /** A pace on a clock the test moves. */
  function clocked(): { pace: SqlitePrunePace; at: { ms: number } } {
    const at = { ms: 1_000 };
    return { pace: new SqlitePrunePace({ batchSize: undefined, maxSteps: 2000, now: () => at.ms }), at };
  }

  const pauseOf = async (pace: SqlitePrunePace): Promise<number> => {
    vi.useFakeTimers();
    let done = false;
    const paused = pace.pause().then(() => (done = true));
    let ms = 0;
    while (!done) {
      await vi.advanceTimersByTimeAsync(1);
      ms++;
    }
    await paused;
    vi.useRealTimers();
    return ms;
  };

  it('starts careful, and once nobody else wrote for a while holds the lock longer and pauses less', async () => {
    const { pace, at } = clocked();
    expect(pace.alone).toBe(false);
    // 50 steps in the short budget: it fits 50
    pace.learn(50, PRUNE_TRANSACTION_BUDGET_MS);
    expect(pace.steps).toBe(50);
    expect(await pauseOf(pace)).toBe(PRUNE_MIN_PAUSE_MS);
    at.ms += PRUNE_ALONE_AFTER_MS;
    expect(pace.alone).toBe(true);
    // alone: 2× at a time up to what fits the alone budget (20× the short one: 1000 steps)
    for (let i = 0; i < 10; i++) pace.learn(pace.steps, (pace.steps * PRUNE_TRANSACTION_BUDGET_MS) / 50);
    expect(pace.steps).toBe((50 * PRUNE_ALONE_BUDGET_MS) / PRUNE_TRANSACTION_BUDGET_MS);
    pace.learn(pace.steps, PRUNE_ALONE_BUDGET_MS);
    expect(await pauseOf(pace)).toBe(PRUNE_ALONE_PAUSE_MS);
  });

  it('cuts the next transaction to the short budget at once when another writer commits', async () => {
    const { pace, at } = clocked();
    at.ms += PRUNE_ALONE_AFTER_MS;
    for (let i = 0; i < 10; i++) pace.learn(pace.steps, (pace.steps * PRUNE_TRANSACTION_BUDGET_MS) / 50);
    const long = (50 * PRUNE_ALONE_BUDGET_MS) / PRUNE_TRANSACTION_BUDGET_MS;
    expect(pace.steps).toBe(long);
    // a writer committed before this long transaction: the next one deletes what fits the short budget
    pace.learn(long, PRUNE_ALONE_BUDGET_MS, true);
    expect(pace.alone).toBe(false);
    expect(pace.steps).toBe(50);
    expect(await pauseOf(pace)).toBe(PRUNE_ALONE_BUDGET_MS);
    // careful again until nobody writes for a while
    at.ms += PRUNE_ALONE_AFTER_MS - 1;
    pace.learn(50, PRUNE_TRANSACTION_BUDGET_MS);
    expect(pace.alone).toBe(false);
    expect(pace.steps).toBe(50);
  });

  it('syncs the log after every transaction while others write, and only every so often while alone', () => {
    const { pace, at } = clocked();
    // careful: every pause syncs, however recent the last sync
    expect(pace.syncDue).toBe(true);
    pace.synced();
    at.ms += 1;
    expect(pace.syncDue).toBe(true);
    at.ms += PRUNE_ALONE_AFTER_MS;
    pace.synced();
    expect(pace.alone).toBe(true);
    expect(pace.syncDue).toBe(false);
    at.ms += PRUNE_ALONE_SYNC_EVERY_MS - 1;
    expect(pace.syncDue).toBe(false);
    at.ms += 1;
    expect(pace.syncDue).toBe(true);
    pace.synced();
    expect(pace.syncDue).toBe(false);
    // a writer came: the next pause syncs at once
    pace.learn(50, PRUNE_TRANSACTION_BUDGET_MS, true);
    expect(pace.syncDue).toBe(true);
  });
});
