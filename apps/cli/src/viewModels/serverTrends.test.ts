import type { ToolOutcome } from '@runledger/core';
import { InMemoryRunStore, type RunStore, type ServerHealthQuery } from '@runledger/trace';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readServerTrends, trendBuckets, trendOf } from './serverTrends.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** 2026-11-29 14:25:36.789 UTC: inside an hour and a day. */
const NOW = Date.UTC(2026, 10, 29, 14, 25, 36, 789);

interface Call {
  readonly server: string;
  readonly at: number;
  readonly outcome: ToolOutcome;
  readonly durationMs?: number;
  readonly cause?: string;
}

/** One run holding the calls, appended as the recorder stores tool steps. */
async function storeWith(calls: readonly Call[]): Promise<InMemoryRunStore> {
  const store = InMemoryRunStore.create();
  const run = await store.createRun({ configuration: 'trends', createdAt: Math.min(NOW, ...calls.map((c) => c.at)) - 1 });
  for (const call of calls) {
    const cause = call.cause ?? (call.outcome === 'failed' ? 'server_error' : undefined);
    await store.appendStep(run.id, {
      kind: 'tool',
      round: 1,
      durationMs: call.durationMs ?? 5,
      createdAt: call.at,
      payload: {
        kind: 'tool',
        toolName: `mcp_${call.server}_t`,
        toolServer: call.server,
        toolIsError: call.outcome !== 'ok',
        toolOutcome: call.outcome,
        round: 1,
        durationMs: call.durationMs ?? 5,
        ...(cause === undefined ? {} : { toolFailureCause: cause }),
      },
      toolServer: call.server,
      toolOutcome: call.outcome,
    });
  }
  return store;
}

describe('trendBuckets', () => {
  it('cuts 24 h into 24 whole UTC hours, the last one from its hour up to now', () => {
    const { unit, buckets } = trendBuckets('24h', NOW);
    expect(unit).toBe('hour');
    expect(buckets).toHaveLength(24);
    expect(buckets[23]).toEqual({ start: Date.UTC(2026, 10, 29, 14), end: NOW });
    expect(buckets[0]).toEqual({ start: Date.UTC(2026, 10, 28, 15), end: Date.UTC(2026, 10, 28, 16) });
  });

  it('cuts 7 d into 7 UTC days and all time into the last 30, the last one up to now', () => {
    const week = trendBuckets('7d', NOW);
    expect(week.unit).toBe('day');
    expect(week.buckets.map((b) => b.start)).toEqual([23, 24, 25, 26, 27, 28, 29].map((d) => Date.UTC(2026, 10, d)));
    expect(week.buckets[6]!.end).toBe(NOW);
    const all = trendBuckets('all', NOW);
    expect(all.unit).toBe('day');
    expect(all.buckets).toHaveLength(30);
    expect(all.buckets[0]!.start).toBe(Date.UTC(2026, 9, 31));
  });

  it('closes the bucket before a now that falls on a boundary, so no bucket is empty of time', () => {
    const boundary = Date.UTC(2026, 10, 29, 14);
    const { buckets } = trendBuckets('24h', boundary);
    expect(buckets[23]).toEqual({ start: boundary - HOUR, end: boundary });
    expect(trendBuckets('7d', Date.UTC(2026, 10, 29)).buckets[6]).toEqual({ start: Date.UTC(2026, 10, 28), end: Date.UTC(2026, 10, 29) });
  });

  it('holds for every now: whole aligned buckets, each following the one before, the last ending at now', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 40 * DAY, max: 4e12 }),
        fc.constantFrom('24h' as const, '7d' as const, 'all' as const),
        (now, window) => {
          const { unit, buckets } = trendBuckets(window, now);
          const size = unit === 'hour' ? HOUR : DAY;
          expect(buckets).toHaveLength(window === '24h' ? 24 : window === '7d' ? 7 : 30);
          buckets.forEach((bucket, i) => {
            expect(bucket.start % size).toBe(0);
            expect(bucket.end).toBeGreaterThan(bucket.start);
            if (i < buckets.length - 1) {
              expect(bucket.end).toBe(bucket.start + size);
              expect(buckets[i + 1]!.start).toBe(bucket.end);
            }
          });
          expect(buckets[buckets.length - 1]!.end).toBe(now);
          expect(now - buckets[buckets.length - 1]!.start).toBeLessThanOrEqual(size);
        },
      ),
    );
  });
});

describe('readServerTrends', () => {
  it('gives each server one point per hour: its calls, failure rate and p95 there; a gap (null) where it had none', async () => {
    const h14 = Date.UTC(2026, 10, 29, 14);
    const h12 = Date.UTC(2026, 10, 29, 12);
    const store = await storeWith([
      { server: 'flaky', at: h12 + 1_000, outcome: 'ok', durationMs: 100 },
      { server: 'flaky', at: h12 + 2_000, outcome: 'failed', durationMs: 300 },
      // a bucket's start is in it, its end is not
      { server: 'flaky', at: h14, outcome: 'failed', durationMs: 40 },
      { server: 'flaky', at: h14 - 1, outcome: 'ok', durationMs: 7 },
      // a cancelled call: counted in calls, never in the rate or p95
      { server: 'slow', at: h12 + 5_000, outcome: 'cancelled', durationMs: 9_000 },
    ]);
    const trends = await readServerTrends(store, '24h', NOW);
    expect(trends.unit).toBe('hour');
    expect([...trends.byServer.keys()].sort()).toEqual(['flaky', 'slow']);
    const flaky = trendOf(trends, 'flaky');
    expect(flaky).toHaveLength(24);
    expect(flaky.map((p) => p.bucketStart)).toEqual(trends.buckets.map((b) => b.start));
    expect(flaky[21]).toEqual({ bucketStart: h12, calls: 2, failureRate: 0.5, p95: 300 });
    expect(flaky[22]).toEqual({ bucketStart: h12 + HOUR, calls: 1, failureRate: 0, p95: 7 });
    expect(flaky[23]).toEqual({ bucketStart: h14, calls: 1, failureRate: 1, p95: 40 });
    expect(flaky[20]).toEqual({ bucketStart: h12 - HOUR, calls: 0, failureRate: null, p95: null });
    expect(trendOf(trends, 'slow')[21]).toEqual({ bucketStart: h12, calls: 1, failureRate: null, p95: null });
    // a server without a call in the window: every bucket a gap
    expect(trendOf(trends, 'nobody').every((p) => p.calls === 0 && p.failureRate === null && p.p95 === null)).toBe(true);
  });

  it('answers p95 over answered calls only, as server health does', async () => {
    const h14 = Date.UTC(2026, 10, 29, 14);
    const store = await storeWith([
      { server: 'api', at: h14 + 1, outcome: 'ok', durationMs: 20 },
      { server: 'api', at: h14 + 2, outcome: 'failed', durationMs: 30_000, cause: 'mcp_timeout' },
    ]);
    const [point] = trendOf(await readServerTrends(store, '24h', NOW), 'api').slice(-1);
    expect(point).toEqual({ bucketStart: h14, calls: 2, failureRate: 0.5, p95: 20 });
  });

  it("counts a call stamped a moment after now in the last bucket (another machine's clock)", async () => {
    const store = await storeWith([{ server: 'ahead', at: NOW + 2_000, outcome: 'ok' }]);
    expect(trendOf(await readServerTrends(store, '24h', NOW), 'ahead')[23]!.calls).toBe(1);
  });

  it('reads each bucket as one serverHealth({ since, until }) over whole hours or days, all at once', async () => {
    const store = await storeWith([]);
    const asked: ServerHealthQuery[] = [];
    const counting: RunStore = Object.create(store) as RunStore;
    let open = 0;
    let most = 0;
    counting.serverHealth = async (query?: ServerHealthQuery) => {
      asked.push(query ?? {});
      open++;
      most = Math.max(most, open);
      await new Promise((resolve) => setTimeout(resolve, 1));
      open--;
      return store.serverHealth(query);
    };
    await readServerTrends(counting, '7d', NOW);
    expect(asked).toHaveLength(7);
    expect(most).toBe(7);
    for (const query of asked.slice(0, 6)) {
      expect(query.since! % DAY).toBe(0);
      expect(query.until).toBe(query.since! + DAY);
    }
    expect(asked[6]).toEqual({ since: Date.UTC(2026, 10, 29) });
  });

  it('adds up, over its buckets, to the server health of the span they cover (fast-check)', async () => {
    const start = trendBuckets('24h', NOW).buckets[0]!.start;
    const callArb = fc.record({
      server: fc.constantFrom('a', 'b', 'c'),
      at: fc.integer({ min: start - 2 * HOUR, max: NOW }),
      outcome: fc.constantFrom<ToolOutcome>('ok', 'failed', 'cancelled'),
      durationMs: fc.integer({ min: 0, max: 5_000 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(callArb, { maxLength: 30 }), async (calls) => {
        const store = await storeWith(calls);
        const trends = await readServerTrends(store, '24h', NOW);
        const whole = await store.serverHealth({ since: start });
        for (const row of whole) {
          const points = trendOf(trends, row.server);
          expect(points.reduce((sum, p) => sum + p.calls, 0)).toBe(row.calls);
          // a bucket has a failure rate exactly when it has a counted call, a p95 exactly when an answered one
          for (const [i, point] of points.entries()) {
            const bucket = trends.buckets[i]!;
            const inBucket = calls.filter(
              (c) => c.server === row.server && c.at >= bucket.start && (i === points.length - 1 || c.at < bucket.end),
            );
            expect(point.calls).toBe(inBucket.length);
            expect(point.failureRate === null).toBe(!inBucket.some((c) => c.outcome !== 'cancelled'));
            expect(point.p95 === null).toBe(!inBucket.some((c) => c.outcome !== 'cancelled'));
          }
        }
        expect(new Set(trends.byServer.keys())).toEqual(new Set(whole.map((row) => row.server)));
      }),
      { numRuns: 40 },
    );
  });
});
