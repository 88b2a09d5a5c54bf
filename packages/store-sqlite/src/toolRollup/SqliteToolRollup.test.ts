// SqliteRunStore.toolCallTotals while some calls are in the tool rollup and others still pending
// for it (moves every few calls), for generated calls and windows: the same totals as the
// reference store (InMemoryRunStore, which counts every call) given the same steps.
import { InMemoryRunStore, type ToolCallTotals, type ToolCallTotalsQuery } from '@runledger/trace';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteRunStore } from '../SqliteRunStore.js';
import { setRollPendingAt } from '../SqliteRunStoreInternals.js';
import { tempFolder, toolStep } from '../testing/tempDatabase.js';

let folder: ReturnType<typeof tempFolder>;
beforeEach(() => {
  folder = tempFolder();
});
afterEach(() => folder.remove());

const BASE = Date.UTC(2026, 0, 1);
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

const callArb = fc.record({
  server: fc.constantFrom('alpha', 'beta'),
  tool: fc.constantFrom('get', 'put', 'list'),
  outcome: fc.constantFrom('ok' as const, 'failed' as const, 'cancelled' as const),
  cause: fc.constantFrom(undefined, 'server_error', 'mcp_timeout', 'invalid_arguments'),
  durationMs: fc.oneof(fc.constantFrom(0, 5, 5.000001, 100, 300_000, 300_001), fc.double({ min: 0, max: 400_000, noNaN: true })),
  at: fc.oneof(fc.nat(5 * MINUTE), fc.nat(2 * DAY), fc.nat(40 * DAY)),
});
const windowArb = fc.record({ since: fc.nat(40 * DAY), until: fc.nat(40 * DAY) }, { requiredKeys: [] });

const withoutMs = (totals: readonly ToolCallTotals[]) => totals.map((t) => ({ ...t, answeredMs: 0 }));

describe('SqliteRunStore.toolCallTotals', () => {
  it('counts rolled and pending calls once each, for any window (generated)', { timeout: 120_000 }, async () => {
    let round = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(callArb, { minLength: 1, maxLength: 40 }),
        fc.array(windowArb, { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 15 }),
        async (calls, windows, rollPendingAt) => {
          round++;
          const store = await SqliteRunStore.open({ path: folder.file(`tools-${round}.db`) });
          setRollPendingAt(store, rollPendingAt);
          const reference = InMemoryRunStore.create();
          try {
            const run = await store.createRun({ configuration: 'c', createdAt: BASE });
            const mirror = await reference.createRun({ id: run.id, configuration: 'c', createdAt: BASE });
            for (const c of calls) {
              const step = toolStep(c.server, c.outcome, c.durationMs, BASE + c.at, 0, c.outcome === 'failed' ? c.cause : undefined);
              step.payload['toolName'] = c.tool;
              await store.appendStep(run.id, step);
              await reference.appendStep(mirror.id, step);
            }
            for (const w of [{}, ...windows]) {
              const query: ToolCallTotalsQuery = {
                ...(w.since === undefined ? {} : { since: BASE + w.since }),
                ...(w.until === undefined ? {} : { until: BASE + w.until }),
              };
              const got = await store.toolCallTotals(query);
              const want = await reference.toolCallTotals(query);
              expect(withoutMs(got)).toEqual(withoutMs(want));
              for (const [i, t] of got.entries()) expect(t.answeredMs).toBeCloseTo(want[i]!.answeredMs, 6);
            }
          } finally {
            await store.close();
          }
        },
      ),
      { numRuns: 30 },
    );
  });
});
