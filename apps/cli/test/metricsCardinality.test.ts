// `/metrics` stays bounded and well-formed whatever servers a ledger has seen: at most the label
// limit of server names plus `other`, every name escaped so that the parser reads it back, no call
// lost in the fold, and a cancel never with an error label.
import { InMemoryRunStore } from '@runledger/trace';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readMetrics } from '../src/app/readMetrics.js';
import { renderMetricsView } from '../src/views/metricsView.js';
import { parsePrometheus } from './prometheusParser.js';
import { seedRun } from './seedRun.js';

const T0 = Date.UTC(2026, 10, 29, 9, 0, 0);

const call = fc.record({
  server: fc.oneof(
    fc.string({ minLength: 1, maxLength: 10 }),
    fc.constantFrom('other', 'a"b', 'c\\d', 'e\nf', 'g}h', 'i,j="k"', 'l\\', 'm\\n'),
  ),
  tool: fc.constantFrom('get', 'put'),
  outcome: fc.constantFrom('ok', 'failed', 'cancelled'),
  cause: fc.constantFrom('server_error', 'invalid_arguments', 'timeout', 'transport_failure'),
  durationMs: fc.integer({ min: 1, max: 60_000 }),
});

describe('/metrics label cardinality', () => {
  it('names at most `limit` servers, folds the rest into other, and keeps every call', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(call, { minLength: 1, maxLength: 120 }), fc.integer({ min: 1, max: 8 }), async (calls, limit) => {
        const store = InMemoryRunStore.create();
        const seeded = calls
          .filter((c) => c.server.trim() !== '')
          .map((c) => ({ ...c, cause: c.outcome === 'failed' ? c.cause : undefined }));
        await seedRun(store, { configuration: 'many', createdAt: T0, calls: seeded });
        const text = renderMetricsView(await readMetrics(store, 'all', T0 + 3_600_000, limit));
        const samples = parsePrometheus(text);
        const servers = new Set(samples.flatMap((s) => (s.labels['server'] === undefined ? [] : [s.labels['server']])));
        expect(servers.size).toBeLessThanOrEqual(limit + 1);
        const names = new Set(seeded.map((c) => c.server));
        for (const server of servers) expect(server === 'other' || names.has(server), server).toBe(true);
        if (names.size > limit || names.has('other')) expect(servers).toContain('other');
        const total = samples.filter((s) => s.family === 'runledger_tool_calls').reduce((sum, s) => sum + s.value, 0);
        expect(total).toBe(seeded.length);
        const failed = samples.filter((s) => s.family === 'runledger_tool_call_failures').reduce((sum, s) => sum + s.value, 0);
        expect(failed).toBe(seeded.filter((c) => c.outcome === 'failed').length);
        for (const sample of samples) {
          if (sample.labels['outcome'] !== undefined) expect(sample.labels['error_type']).toBeUndefined();
          if (sample.labels['error_type'] !== undefined) expect(sample.family).toMatch(/^runledger_tool_call_failures(_by_tool)?$/);
        }
        await store.close();
      }),
      { numRuns: 40 },
    );
  }, 60_000);
});
