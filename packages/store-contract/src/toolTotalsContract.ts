import { TOOL_FAILURE_CAUSES, type ToolFailureCause, type ToolOutcome } from '@runledger/core';
import fc from 'fast-check';
import {
  canPruneRuns,
  canReadToolCallTotals,
  type RunStore,
  type ToolCallTotals,
  type ToolCallTotalsQuery,
  type ToolTotalsRunStore,
} from '@runledger/trace';
import { describe, expect, it } from 'vitest';
import { BASE, contractStores, expectStoreError, toolStep } from './contractSteps.js';
import type { RunStoreContractHarness } from './RunStoreContractHarness.js';

// The model below spells the rules out (not read from trace): it is independent of the code it checks.
/** The Prometheus bounds (seconds) of the answered-call buckets, then +Inf. */
const BOUNDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
/** The failure causes that are an answer of the server: their durations are latencies. */
const ANSWERED_CAUSES = new Set(['server_error', 'invalid_arguments', 'tool_not_found']);
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
/** Durations on and beside every bound, and beyond the last. */
const EDGE_DURATIONS = [
  0, 4.999, 5, 5.000001, 10, 25, 49.5, 50, 100, 250, 500, 999.999, 1000, 2500, 5000, 10_000, 30_000, 60_000, 120_000, 300_000, 300_000.5,
  1e6,
];

interface Call {
  readonly server: string;
  /** null: a step without a tool name. */
  readonly tool: string | null;
  readonly outcome: ToolOutcome;
  readonly cause: ToolFailureCause | undefined;
  readonly durationMs: number;
  readonly at: number;
}

const callArbitrary = (servers: readonly string[]): fc.Arbitrary<Call> =>
  fc.record({
    server: fc.constantFrom(...servers),
    tool: fc.constantFrom<string | null>('get', 'put', '', 'other', null),
    outcome: fc.constantFrom<ToolOutcome>('ok', 'failed', 'cancelled'),
    cause: fc.option(fc.constantFrom(...TOOL_FAILURE_CAUSES), { nil: undefined }),
    durationMs: fc.oneof(fc.constantFrom(...EDGE_DURATIONS), fc.double({ min: 0, max: 400_000, noNaN: true })),
    // within a few minutes, a few days and two 32-day buckets: every level of a rollup and its edges
    at: fc.oneof(fc.nat(3 * MINUTE), fc.nat(3 * DAY), fc.nat(70 * DAY)),
  });

/** A window over the calls of a case starting at `from`: open, or bounds at any ms (mostly not on a minute). */
const windowArbitrary = (from: number): fc.Arbitrary<ToolCallTotalsQuery> =>
  fc.record({ since: fc.nat(70 * DAY).map((at) => from + at), until: fc.nat(70 * DAY).map((at) => from + at) }, { requiredKeys: [] });

async function appendCalls(store: RunStore, runId: string, from: number, calls: readonly Call[]): Promise<void> {
  for (const c of calls) {
    const step = toolStep({
      server: c.server,
      outcome: c.outcome,
      createdAt: from + c.at,
      durationMs: c.durationMs,
      toolName: c.tool ?? 'none',
      ...(c.outcome === 'failed' && c.cause !== undefined ? { cause: c.cause } : {}),
    });
    if (c.tool === null) delete (step.payload as Record<string, unknown>)['toolName'];
    await store.appendStep(runId, step);
  }
}

/** The totals a count over the calls gives, by server and tool (null first). */
function expectedTotals(calls: readonly Call[], from: number, query: ToolCallTotalsQuery): ToolCallTotals[] {
  const kept = calls.filter(
    (c) => (query.since === undefined || from + c.at >= query.since) && (query.until === undefined || from + c.at < query.until),
  );
  const keys = [...new Set(kept.map((c) => JSON.stringify([c.server, c.tool])))]
    .map((key) => JSON.parse(key) as [string, string | null])
    .sort(([s1, t1], [s2, t2]) => (s1 !== s2 ? (s1 < s2 ? -1 : 1) : t1 === t2 ? 0 : t1 === null ? -1 : t2 === null ? 1 : t1 < t2 ? -1 : 1));
  return keys.map(([server, tool]) => {
    const mine = kept.filter((c) => c.server === server && c.tool === tool);
    const causes = new Map<string, number>();
    const buckets = new Array<number>(BOUNDS.length + 1).fill(0);
    let answeredMs = 0;
    for (const c of mine) {
      const cause = c.outcome === 'failed' ? c.cause : undefined;
      if (c.outcome === 'failed') causes.set(cause ?? 'unknown', (causes.get(cause ?? 'unknown') ?? 0) + 1);
      if (c.outcome === 'ok' || (cause !== undefined && ANSWERED_CAUSES.has(cause))) {
        const k = BOUNDS.findIndex((bound) => c.durationMs / 1000 <= bound);
        buckets[k === -1 ? BOUNDS.length : k]! += 1;
        answeredMs += c.durationMs;
      }
    }
    return {
      server,
      tool,
      ok: mine.filter((c) => c.outcome === 'ok').length,
      failed: mine.filter((c) => c.outcome === 'failed').length,
      cancelled: mine.filter((c) => c.outcome === 'cancelled').length,
      failureCauses: [...causes]
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([cause, calls]) => ({ cause, calls })) as ToolCallTotals['failureCauses'],
      answeredBuckets: buckets,
      answeredMs,
    };
  });
}

/** The store as one that sums its calls per server and tool; a store without `toolCallTotals` skips these tests (it is optional on RunStore). */
function totaling(store: RunStore, skip: (note: string) => void): ToolTotalsRunStore {
  if (!canReadToolCallTotals(store)) skip('this store has no toolCallTotals');
  return store as ToolTotalsRunStore;
}

/** The store's totals of some servers equal the model's: the sums of durations within rounding, everything else exactly. */
async function expectTotals(
  store: RunStore,
  servers: ReadonlySet<string>,
  expected: readonly ToolCallTotals[],
  query: ToolCallTotalsQuery,
): Promise<void> {
  if (!canReadToolCallTotals(store)) throw new Error('the store has no toolCallTotals');
  const got = (await store.toolCallTotals(query)).filter((t) => servers.has(t.server));
  expect(got.map((t) => ({ ...t, answeredMs: 0 }))).toEqual(expected.map((t) => ({ ...t, answeredMs: 0 })));
  for (const [i, t] of got.entries()) {
    const want = expected[i]!.answeredMs;
    expect(Math.abs(t.answeredMs - want)).toBeLessThanOrEqual(1e-9 * Math.max(1, want));
  }
}

/**
 * The per-server-and-tool totals part of the contract (`toolCallTotals`, behind `/metrics`): the
 * numbers a count over the calls gives, for any window, before and after a store moves its calls
 * into a rollup, and after a prune. Called by {@link runRunStoreContract}.
 */
export function runToolTotalsContract(name: string, harness: RunStoreContractHarness): void {
  describe(`RunStore contract: ${name}`, () => {
    const { open, openPeer, withPeer } = contractStores(harness);

    describe('toolCallTotals', () => {
      it('starts empty and refuses a window outside the time rule', async ({ skip }) => {
        const store = totaling(await open(), skip);
        expect(await store.toolCallTotals()).toEqual([]);
        await expectStoreError(store.toolCallTotals({ since: -1 }), 'invalid_input', /ToolCallTotalsQuery\.since/);
        await expectStoreError(store.toolCallTotals({ until: 1.5 }), 'invalid_input', /ToolCallTotalsQuery\.until/);
      });

      it('sums generated calls per server and tool as a count over them does, for generated windows', async ({ skip }) => {
        const store = totaling(await open(), skip);
        const run = await store.createRun({ configuration: 'c', createdAt: BASE });
        let round = 0;
        await fc.assert(
          fc.asyncProperty(
            fc.array(callArbitrary(['a', 'b']), { minLength: 1, maxLength: 30 }),
            fc.array(windowArbitrary(0), { minLength: 1, maxLength: 4 }),
            async (generated, windows) => {
              // each case has servers of its own
              round += 1;
              const calls = generated.map((c) => ({ ...c, server: `r${round}${c.server}` }));
              const servers = new Set(calls.map((c) => c.server));
              await appendCalls(store, run.id, BASE, calls);
              for (const window of [
                {},
                ...windows.map((w) => ({
                  ...(w.since === undefined ? {} : { since: BASE + w.since }),
                  ...(w.until === undefined ? {} : { until: BASE + w.until }),
                })),
              ]) {
                await expectTotals(store, servers, expectedTotals(calls, BASE, window), window);
              }
            },
          ),
          { numRuns: 20 },
        );
      });

      withPeer(
        'gives the same numbers once the calls were moved into a rollup (the store closed), at window edges off the minute',
        async ({ skip }) => {
          const store = totaling(await open(), skip);
          const run = await store.createRun({ configuration: 'c', createdAt: BASE });
          const calls = fc.sample(callArbitrary(['x', 'y', 'z']), { numRuns: 400, seed: 41 });
          await appendCalls(store, run.id, BASE, calls);
          const servers = new Set(calls.map((c) => c.server));
          const windows: ToolCallTotalsQuery[] = [
            {},
            { since: BASE },
            { since: BASE + 1 },
            { since: BASE + MINUTE - 1, until: BASE + 2 * DAY + 7 * MINUTE + 13 },
            { since: BASE + 3 * DAY + 17, until: BASE + 65 * DAY + 1 },
            { until: BASE + 40 * DAY + 999 },
            { since: BASE + 35 * DAY + 59_999 },
            ...fc.sample(windowArbitrary(BASE), { numRuns: 8, seed: 7 }),
          ];
          for (const window of windows) await expectTotals(store, servers, expectedTotals(calls, BASE, window), window);
          await store.close();
          const peer = await openPeer();
          for (const window of windows) await expectTotals(peer, servers, expectedTotals(calls, BASE, window), window);
        },
      );

      withPeer('leaves out the calls of pruned runs, pending or moved into a rollup', async ({ skip }) => {
        const calls = fc.sample(callArbitrary(['p', 'q']), { numRuns: 90, seed: 3 });
        const servers = new Set(calls.map((c) => c.server));
        const windows: ToolCallTotalsQuery[] = [{}, { since: BASE + DAY + 1 }, { since: BASE + 7, until: BASE + 50 * DAY + 3 }];
        const store = totaling(await open(), skip);
        const kept = await store.createRun({ configuration: 'c', createdAt: BASE });
        await appendCalls(store, kept.id, BASE, calls.slice(60));
        const old: string[] = [];
        for (const part of [calls.slice(0, 30), calls.slice(30, 60)]) {
          const run = await store.createRun({ configuration: 'c', createdAt: BASE });
          await appendCalls(store, run.id, BASE, part);
          await store.finishRun(run.id, { status: 'completed', finishedAt: BASE + 1 + old.length });
          old.push(run.id);
        }
        for (const window of windows) await expectTotals(store, servers, expectedTotals(calls, BASE, window), window);
        // the first old run pruned while its calls may be pending, the second once they were moved (the store closed)
        if (!canPruneRuns(store)) return;
        expect((await store.pruneRuns({ olderThan: BASE + 2 })).runs).toBe(1);
        const left = [...calls.slice(30, 60), ...calls.slice(60)];
        for (const window of windows) await expectTotals(store, servers, expectedTotals(left, BASE, window), window);
        await store.close();
        const peer = await openPeer();
        if (!canPruneRuns(peer)) return;
        expect((await peer.pruneRuns({ olderThan: BASE + 3 })).runs).toBe(1);
        for (const window of windows) await expectTotals(peer, servers, expectedTotals(calls.slice(60), BASE, window), window);
      });
    });
  });
}
