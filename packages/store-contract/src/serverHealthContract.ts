import { TOOL_FAILURE_CAUSES, type ToolFailureCause, type ToolOutcome } from '@runledger/core';
import fc from 'fast-check';
import { serverHealth } from '@runledger/trace/store';
import type { RunStore, AppendStepInput, StoredStep } from '@runledger/trace';
import { describe, expect, it } from 'vitest';
import { BASE, contractStores, expectStoreError, listAll, llmStep, toolStep } from './contractSteps.js';
import type { RunStoreContractHarness } from './RunStoreContractHarness.js';

/**
 * The server health part of the contract: counts, rates, causes, percentiles over answered calls, windows. Called by {@link runRunStoreContract}.
 */
export function runServerHealthContract(name: string, harness: RunStoreContractHarness): void {
  describe(`RunStore contract: ${name}`, () => {
    const { open } = contractStores(harness);

    describe('serverHealth', () => {
      /** Steps spread over three runs; expected numbers below are worked out by hand. */
      async function seedHealth(store: RunStore): Promise<void> {
        const one = await store.createRun({ configuration: 'c', createdAt: BASE });
        const two = await store.createRun({ configuration: 'c', createdAt: BASE });
        const three = await store.createRun({ configuration: 'c', createdAt: BASE });
        const t = (ms: number): number => BASE + ms;
        const steps: [string, AppendStepInput][] = [
          [one.id, toolStep({ server: 'alpha', outcome: 'failed', createdAt: t(500), durationMs: 5, cause: 'server_error' })],
          // gamma: the model's invalid arguments, answered by the server but not the server's fault
          [two.id, toolStep({ server: 'gamma', outcome: 'ok', createdAt: t(1010), durationMs: 3 })],
          [two.id, toolStep({ server: 'gamma', outcome: 'failed', createdAt: t(1020), durationMs: 4, cause: 'invalid_arguments' })],
          [three.id, toolStep({ server: 'gamma', outcome: 'failed', createdAt: t(1030), durationMs: 2, cause: 'invalid_arguments' })],
          [one.id, toolStep({ server: 'alpha', outcome: 'ok', createdAt: t(1000), durationMs: 10 })],
          [two.id, toolStep({ server: 'beta', outcome: 'ok', createdAt: t(1050), durationMs: 5 })],
          [three.id, toolStep({ server: 'Zeta', outcome: 'ok', createdAt: t(1020), durationMs: 1 })],
          [one.id, toolStep({ server: 'alpha', outcome: 'ok', createdAt: t(1100), durationMs: 20 })],
          [two.id, toolStep({ server: 'beta', outcome: 'cancelled', createdAt: t(1150), durationMs: 100 })],
          [one.id, toolStep({ server: 'alpha', outcome: 'failed', createdAt: t(1200), durationMs: 30, cause: 'mcp_timeout' })],
          [two.id, toolStep({ server: 'beta', outcome: 'cancelled', createdAt: t(1250), durationMs: 200 })],
          [three.id, toolStep({ server: 'alpha', outcome: 'cancelled', createdAt: t(1300), durationMs: 40 })],
          [two.id, toolStep({ server: 'beta', outcome: 'ok', createdAt: t(1350), durationMs: 7 })],
          [three.id, toolStep({ server: 'alpha', outcome: 'ok', createdAt: t(1400), durationMs: 50 })],
          [three.id, toolStep({ server: 'delta', outcome: 'cancelled', createdAt: t(1450), durationMs: 15 })],
          // legacy rows: no columns, only toolName and toolIsError in the payload
          [
            one.id,
            toolStep({
              server: 'alpha',
              outcome: 'failed',
              createdAt: t(1500),
              durationMs: 60,
              toolName: 'mcp_alpha_lookup',
              legacy: true,
            }),
          ],
          [
            one.id,
            toolStep({ server: 'alpha', outcome: 'ok', createdAt: t(1600), durationMs: 70, toolName: 'mcp_alpha_get_item', legacy: true }),
          ],
          // not counted: no server anywhere; no outcome; not a tool step
          [two.id, toolStep({ server: null, outcome: 'failed', createdAt: t(1100), durationMs: 999, toolName: 'search', legacy: true })],
          [two.id, toolStep({ server: 'beta', outcome: null, createdAt: t(1100), durationMs: 999 })],
          [three.id, llmStep(t(1100), { toolIsError: true, toolName: 'mcp_alpha_x' })],
        ];
        for (const [runId, step] of steps) await store.appendStep(runId, step);
      }

      it('counts per server with failure rate, last failure, causes, percentiles over answered calls and the flaky flag', async () => {
        const store = await open();
        expect(await store.serverHealth()).toEqual([]);
        await seedHealth(store);
        const health = await store.serverHealth();
        expect(health.map((h) => h.server)).toEqual(['Zeta', 'alpha', 'beta', 'delta', 'gamma']);
        const [zeta, alpha, beta, delta, gamma] = health;
        // answered: ok 10, 20, 50, 70 and the server error of 5 ms; the timeout (30), the legacy
        // failure without a cause (60) and the cancellation (40) are no latency of the server
        expect(alpha).toEqual({
          server: 'alpha',
          calls: 8,
          ok: 4,
          failed: 3,
          cancelled: 1,
          invalidArguments: 0,
          notCharged: 0,
          failureCauses: [
            { cause: 'mcp_timeout', calls: 1 },
            { cause: 'server_error', calls: 1 },
            { cause: 'unknown', calls: 1 },
          ],
          answered: 5,
          failureRate: alpha!.failureRate,
          lastFailureAt: BASE + 1500,
          p50DurationMs: 20,
          p95DurationMs: 70,
          flaky: true,
          tooFewCalls: false,
        });
        expect(alpha!.failureRate).toBeCloseTo(3 / 7, 12);
        // the cancellations of 100 and 200 ms say nothing about how fast beta answers
        expect(beta).toEqual({
          server: 'beta',
          calls: 4,
          ok: 2,
          failed: 0,
          cancelled: 2,
          invalidArguments: 0,
          notCharged: 0,
          failureCauses: [],
          answered: 2,
          failureRate: 0,
          lastFailureAt: null,
          p50DurationMs: 5,
          p95DurationMs: 7,
          flaky: false,
          tooFewCalls: true,
        });
        expect(delta).toEqual({
          server: 'delta',
          calls: 1,
          ok: 0,
          failed: 0,
          cancelled: 1,
          invalidArguments: 0,
          notCharged: 0,
          failureCauses: [],
          answered: 0,
          failureRate: null,
          lastFailureAt: null,
          p50DurationMs: null,
          p95DurationMs: null,
          flaky: false,
          tooFewCalls: true,
        });
        // invalid arguments: failed, answered, but not in the failure rate nor the last failure
        expect(gamma).toEqual({
          server: 'gamma',
          calls: 3,
          ok: 1,
          failed: 2,
          cancelled: 0,
          invalidArguments: 2,
          notCharged: 2,
          failureCauses: [{ cause: 'invalid_arguments', calls: 2 }],
          answered: 3,
          failureRate: 0,
          lastFailureAt: null,
          p50DurationMs: 3,
          p95DurationMs: 4,
          flaky: false,
          tooFewCalls: true,
        });
        expect(zeta).toMatchObject({
          calls: 1,
          ok: 1,
          failureRate: 0,
          p50DurationMs: 1,
          p95DurationMs: 1,
          flaky: false,
          tooFewCalls: true,
        });
      });

      it('keeps to the time window: since inclusive, until exclusive', async () => {
        const store = await open();
        await seedHealth(store);
        const health = await store.serverHealth({ since: BASE + 1000, until: BASE + 1600 });
        const alpha = health.find((h) => h.server === 'alpha');
        // alpha in [1000, 1600): ok 10, 20, 50; failed 30 (timeout), 60 (no cause); cancelled 40
        expect(alpha).toEqual({
          server: 'alpha',
          calls: 6,
          ok: 3,
          failed: 2,
          cancelled: 1,
          invalidArguments: 0,
          notCharged: 0,
          failureCauses: [
            { cause: 'mcp_timeout', calls: 1 },
            { cause: 'unknown', calls: 1 },
          ],
          answered: 3,
          failureRate: 0.4,
          lastFailureAt: BASE + 1500,
          p50DurationMs: 20,
          p95DurationMs: 50,
          flaky: true,
          tooFewCalls: false,
        });
        expect((await store.serverHealth({ since: BASE + 1450 })).map((h) => [h.server, h.calls])).toEqual([
          ['alpha', 2],
          ['delta', 1],
        ]);
        expect(await store.serverHealth({ until: BASE + 500 })).toEqual([]);
        expect((await store.serverHealth({ until: BASE + 501 })).map((h) => [h.server, h.failed])).toEqual([['alpha', 1]]);
      });

      it('takes a custom flaky threshold', async () => {
        const store = await open();
        await seedHealth(store);
        const window = { since: BASE + 1000, until: BASE + 1600 };
        const flakyOf = async (flaky: { failureRate?: number; minAnsweredCalls?: number }): Promise<boolean | undefined> =>
          (await store.serverHealth({ ...window, flaky })).find((h) => h.server === 'alpha')?.flaky;
        expect(await flakyOf({ failureRate: 0.5 })).toBe(false);
        expect(await flakyOf({ failureRate: 0.4 })).toBe(true);
        expect(await flakyOf({ minAnsweredCalls: 6 })).toBe(false);
        expect(await flakyOf({ minAnsweredCalls: 5 })).toBe(true);
        await expectStoreError(store.serverHealth({ flaky: { failureRate: 2 } }), 'invalid_input', /failureRate/);
      });

      it('counts by a model of generated calls: invalidArguments only invalid_arguments, notCharged every cause not charged to the server', async () => {
        // The causes not charged to a server, spelled out here (not read from trace): the model is
        // independent of the code it checks.
        const notCharged = new Set(['invalid_arguments', 'tool_not_found', 'unknown_tool', 'malformed_arguments', 'not_approved']);
        const call = fc.record({
          server: fc.constantFrom('a', 'b', 'c'),
          outcome: fc.constantFrom<ToolOutcome>('ok', 'failed', 'cancelled'),
          cause: fc.option(fc.constantFrom(...TOOL_FAILURE_CAUSES), { nil: undefined }),
          at: fc.nat(999),
        });
        const store = await open();
        const run = await store.createRun({ configuration: 'c', createdAt: BASE });
        let round = 0;
        await fc.assert(
          fc.asyncProperty(fc.array(call, { minLength: 1, maxLength: 24 }), async (calls) => {
            // each case has servers of its own and a window of its own
            round += 1;
            const from = BASE + round * 1000;
            for (const c of calls) {
              const cause = c.outcome === 'failed' ? c.cause : undefined;
              await store.appendStep(
                run.id,
                toolStep({ server: `m${round}${c.server}`, outcome: c.outcome, createdAt: from + c.at, cause }),
              );
            }
            const health = await store.serverHealth({ since: from, until: from + 1000 });
            const servers = [...new Set(calls.map((c) => `m${round}${c.server}`))].sort();
            expect(health.map((h) => h.server)).toEqual(servers);
            for (const h of health) {
              const mine = calls.filter((c) => `m${round}${c.server}` === h.server);
              const failed = mine.filter((c) => c.outcome === 'failed');
              const ok = mine.filter((c) => c.outcome === 'ok').length;
              const kept = failed.filter((c) => c.cause !== undefined && notCharged.has(c.cause)).length;
              const counted = ok + failed.length - kept;
              expect(h).toMatchObject({
                calls: mine.length,
                ok,
                failed: failed.length,
                cancelled: mine.length - ok - failed.length,
                invalidArguments: failed.filter((c) => c.cause === 'invalid_arguments').length,
                notCharged: kept,
                failureRate: counted === 0 ? null : (failed.length - kept) / counted,
              });
              const byCause = new Map<string, number>();
              for (const c of failed) byCause.set(c.cause ?? 'unknown', (byCause.get(c.cause ?? 'unknown') ?? 0) + 1);
              expect(Object.fromEntries(h.failureCauses.map((f) => [f.cause, f.calls]))).toEqual(Object.fromEntries(byCause));
            }
          }),
          { numRuns: 15 },
        );
      });

      it('agrees with the pure serverHealth over the same rows', async () => {
        const store = await open();
        await seedHealth(store);
        const run = await store.createRun({ configuration: 'c', createdAt: BASE });
        const outcomes: ToolOutcome[] = ['ok', 'failed', 'cancelled'];
        const causes: (ToolFailureCause | undefined)[] = [
          undefined,
          'server_error',
          'invalid_arguments',
          'mcp_timeout',
          'mcp_transport_failure',
        ];
        for (let i = 0; i < 120; i++) {
          const server = `srv${i % 7}`;
          const outcome = outcomes[(i * 7) % 3]!;
          const cause = outcome === 'failed' ? causes[(i * 3) % causes.length] : undefined;
          await store.appendStep(
            run.id,
            toolStep({ server, outcome, createdAt: BASE + 900 + ((i * 37) % 800), durationMs: (i * 13) % 97, legacy: i % 5 === 0, cause }),
          );
        }
        const rows: StoredStep[] = [];
        for (const page of await listAll(store)) rows.push(...(await store.readSteps(page.id)));
        for (const query of [{}, { since: BASE + 1000, until: BASE + 1400 }, { flaky: { failureRate: 0.3, minAnsweredCalls: 3 } }]) {
          expect(await store.serverHealth(query)).toEqual(serverHealth(rows, query));
        }
      });
    });
  });
}
