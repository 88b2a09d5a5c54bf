import type { Client } from 'pg';
import { describe, expect, it } from 'vitest';
import { PostgresCancelWatch } from './PostgresCancelWatch.js';

function watcher(cancelled: Set<string>, connect: () => Promise<Client>): PostgresCancelWatch {
  return new PostgresCancelWatch({
    channel: 'test',
    connect,
    pollMs: 10,
    reconnectMs: 60_000,
    cancelled: async (ids) => new Set(ids.filter((id) => cancelled.has(id))),
  });
}

describe('PostgresCancelWatch', () => {
  it('polls when no listener can be connected, and fires each watcher once', async () => {
    const requested = new Set<string>();
    let attempts = 0;
    const w = watcher(requested, async () => {
      attempts++;
      throw new Error('connection refused');
    });
    const calls: string[] = [];
    const fired = new Promise<void>((resolve) => {
      w.watch('run-a', () => {
        calls.push('a');
        resolve();
      });
    });
    w.watch('run-b', () => calls.push('b'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(calls).toEqual([]);
    expect(w.mode).toBe('poll');
    requested.add('run-a');
    await fired;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(calls).toEqual(['a']);
    expect(attempts).toBe(1);
    await w.close();
  });

  it('fires at once for a run whose cancel was requested before it was watched, and not after stop', async () => {
    const requested = new Set(['early']);
    const w = watcher(requested, async () => {
      throw new Error('no listener');
    });
    const early = new Promise<void>((resolve) => w.watch('early', resolve));
    await early;
    let late = 0;
    const stop = w.watch('late', () => late++);
    stop();
    requested.add('late');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(late).toBe(0);
    await w.close();
    expect(w.mode).toBe('idle');
  });
});
