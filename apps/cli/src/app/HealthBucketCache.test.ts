import { InMemoryRunStore, type RunStore, type ServerHealth, type ServerHealthQuery } from '@runledger/trace';
import { describe, expect, it } from 'vitest';
import { HealthBucketCache } from './HealthBucketCache.js';
import { readServerTrends } from '../viewModels/serverTrends.js';

const HOUR = 3_600_000;
/** 14:25 UTC: the hour from 14:00 holds now, 13:00–14:00 closed 25 minutes ago. */
const NOW = Date.UTC(2026, 10, 29, 14, 25);

/** A store that counts its health reads, and can be told to fail them. */
function counting(): { store: RunStore; asked: ServerHealthQuery[]; fail: { on: boolean } } {
  const inner = InMemoryRunStore.create();
  const asked: ServerHealthQuery[] = [];
  const fail = { on: false };
  const store = Object.create(inner) as RunStore;
  store.serverHealth = async (query?: ServerHealthQuery): Promise<readonly ServerHealth[]> => {
    asked.push(query ?? {});
    if (fail.on) throw new Error('store down');
    return inner.serverHealth(query);
  };
  return { store, asked, fail };
}

describe('HealthBucketCache', () => {
  it('reads a closed bucket once a minute; concurrent views share the read', async () => {
    const { store, asked } = counting();
    const cache = new HealthBucketCache();
    const since = NOW - HOUR - 25 * 60_000;
    await Promise.all([cache.read(store, since, since + HOUR, NOW), cache.read(store, since, since + HOUR, NOW)]);
    await cache.read(store, since, since + HOUR, NOW + 59_999);
    expect(asked).toHaveLength(1);
    await cache.read(store, since, since + HOUR, NOW + 60_000);
    expect(asked).toHaveLength(2);
    expect(asked[0]).toEqual({ since, until: since + HOUR });
  });

  it('reads afresh a bucket that ended less than a minute ago (a call of its last second may still be on its way)', async () => {
    const { store, asked } = counting();
    const cache = new HealthBucketCache();
    const end = NOW - 59_000;
    await cache.read(store, end - HOUR, end, NOW);
    await cache.read(store, end - HOUR, end, NOW);
    expect(asked).toHaveLength(2);
    expect(cache.size).toBe(0);
  });

  it('does not keep a failed read', async () => {
    const { store, asked, fail } = counting();
    const cache = new HealthBucketCache();
    fail.on = true;
    await expect(cache.read(store, 0, HOUR, NOW)).rejects.toThrow('store down');
    fail.on = false;
    await expect(cache.read(store, 0, HOUR, NOW)).resolves.toEqual([]);
    expect(asked).toHaveLength(2);
  });

  it('keeps at most 256 buckets, the oldest read dropped first', async () => {
    const { store } = counting();
    const cache = new HealthBucketCache();
    for (let i = 0; i < 300; i++) await cache.read(store, i * HOUR, (i + 1) * HOUR, NOW);
    expect(cache.size).toBe(256);
  });

  it('lets a chart of 24 hours read only the hour that holds now on a view a moment later', async () => {
    const { store, asked } = counting();
    const cache = new HealthBucketCache();
    await readServerTrends(store, '24h', NOW, cache);
    expect(asked).toHaveLength(24);
    await readServerTrends(store, '24h', NOW + 1_000, cache);
    expect(asked).toHaveLength(25);
    expect(asked[24]).toEqual({ since: Date.UTC(2026, 10, 29, 14) });
  });
});
