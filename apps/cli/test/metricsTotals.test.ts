// `/metrics` per server and tool from a store's tool totals (ToolTotalsRunStore): the scrape reads
// the store's sums, never its calls one by one, and reports what the listing of every call gives
// (the fallback for a store without totals) — on SQLite, with calls moved into its rollup.
import { canReadToolCallTotals, type RunStore } from '@runledger/trace';
import { SqliteRunStore } from '@runledger/store-sqlite';
import { describe, expect, it } from 'vitest';
import { readMetrics } from '../src/app/readMetrics.js';
import { seedRun } from './seedRun.js';
import { STORES, T0, useSecurityHarness } from './securityHarness.js';

useSecurityHarness();

const [, openSqlite] = STORES[1]!;

/** The store with its listing of calls refused: a scrape that lists calls fails. */
function withoutListing(store: RunStore): RunStore {
  return new Proxy(store, {
    get(target, key) {
      if (key === 'listToolCalls') return () => Promise.reject(new Error('listed the calls'));
      const value: unknown = Reflect.get(target, key);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** The store without tool totals: a scrape lists every call (the fallback). */
function withoutTotals(store: RunStore): RunStore {
  return new Proxy(store, {
    get(target, key) {
      if (key === 'toolCallTotals') return undefined;
      const value: unknown = Reflect.get(target, key);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

describe('/metrics per tool from the store’s totals', () => {
  it('reads the totals, not the calls, and reports what the listing of every call gives', async () => {
    const seeded = (await openSqlite()) as SqliteRunStore;
    const tools = ['get', 'put', 'list', 'other', 'del'];
    const outcomes = ['ok', 'ok', 'failed', 'cancelled'] as const;
    const causes = ['server_error', 'mcp_timeout', 'invalid_arguments', undefined];
    for (let r = 0; r < 3; r++) {
      await seedRun(seeded, {
        configuration: `c${r}`,
        createdAt: T0 + r * 3_600_000,
        calls: Array.from({ length: 120 }, (_, i) => ({
          server: `srv${(i + r) % 3}`,
          tool: tools[(i * 7 + r) % tools.length]!,
          outcome: outcomes[i % 4]!,
          durationMs: [3, 5, 40, 700, 2_500, 30_000, 400_000][(i * 3 + r) % 7]!,
          ...(outcomes[i % 4] === 'failed' && causes[(i >> 2) % 4] !== undefined ? { cause: causes[(i >> 2) % 4]! } : {}),
        })),
      });
    }
    // closed, its calls are moved into the tool rollup: the scrape reads the rollup
    await seeded.close();
    const store = await SqliteRunStore.open({ path: seeded.path });
    expect(canReadToolCallTotals(store)).toBe(true);
    // all time, and a day whose start cuts the second run's calls within a minute
    for (const [window, now] of [
      ['all', T0 + 5 * 3_600_000],
      ['24h', T0 + 3_600_000 + 600 + 24 * 3_600_000],
    ] as const) {
      const fromTotals = await readMetrics(withoutListing(store), window, now, 50, 3);
      const fromCalls = await readMetrics(withoutTotals(store), window, now, 50, 3);
      const seconds = (page: typeof fromTotals) => page.tools!.flatMap((s) => s.rows.map((row) => row.answeredSeconds));
      const rest = (page: typeof fromTotals) =>
        page.tools!.map((s) => ({ ...s, rows: s.rows.map((row) => ({ ...row, answeredSeconds: 0 })) }));
      expect(fromTotals.tools!.length).toBeGreaterThan(0);
      expect(rest(fromTotals)).toEqual(rest(fromCalls));
      for (const [i, s] of seconds(fromTotals).entries()) expect(s).toBeCloseTo(seconds(fromCalls)[i]!, 9);
      expect({ ...fromTotals, tools: [] }).toEqual({ ...fromCalls, tools: [] });
    }
    await store.close();
  });
});
