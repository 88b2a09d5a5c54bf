import { randomUUID } from 'node:crypto';
import { type FinishRunInput, isLateCancel, type RunTermination, RunTerminationReason, runTerminationText } from '@runledger/trace';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BASE, contractStores, expectStoreError, llmStep, sleep, toolStep } from './contractSteps.js';
import { goodTime } from './inputArbitraries.js';
import type { RunStoreContractHarness } from './RunStoreContractHarness.js';

/**
 * The ledger part of the contract: appends that name their sequence, cancel against finish, unstored steps. Called by {@link runRunStoreContract}.
 */
export function runLedgerContract(name: string, harness: RunStoreContractHarness): void {
  describe(`RunStore contract: ${name}`, () => {
    const { open, openPeer, withPeer } = contractStores(harness);

    describe('the ledger: idempotent appends, cancel against finish, unstored steps', () => {
      it('stores an append that names its sequence once, however often it is repeated', async () => {
        const store = await open();
        const run = await store.createRun({ configuration: 'c', createdAt: BASE });
        const first = { ...llmStep(BASE + 1), sequence: 0 };
        expect(await store.appendStep(run.id, first)).toBe(0);
        // the answer was lost and the writer tries again: nothing is stored twice
        expect(await store.appendStep(run.id, first)).toBe(0);
        const tool = { ...toolStep({ server: 's', outcome: 'failed', createdAt: BASE + 2 }), sequence: 1 };
        expect(await store.appendStep(run.id, tool)).toBe(1);
        expect(await store.appendStep(run.id, tool)).toBe(1);
        expect(await store.appendStep(run.id, first)).toBe(0);
        const stored = await store.getRun(run.id);
        expect(stored).toMatchObject({ stepCount: 2, outcomeCounts: { ok: 0, failed: 1, cancelled: 0 } });
        expect((await store.readSteps(run.id)).map((step) => step.sequence)).toEqual([0, 1]);
        expect((await store.serverHealth()).map((h) => [h.server, h.failed])).toEqual([['s', 1]]);
        // without a sequence, the next one as always
        expect(await store.appendStep(run.id, llmStep(BASE + 3))).toBe(2);
        // durations that no decimal prints exactly are recognised as the same step too
        for (const [index, durationMs] of [1 / 3, 0.1 + 0.2, 2 ** -1074, 8_640_000_000_000_000 / 3].entries()) {
          const step = { ...toolStep({ server: 's', outcome: 'ok', createdAt: BASE + 10 + index, durationMs }), sequence: 3 + index };
          expect(await store.appendStep(run.id, step)).toBe(3 + index);
          expect(await store.appendStep(run.id, step)).toBe(3 + index);
        }
        // the same payload with other tool columns is another step
        const other = { ...toolStep({ server: 's', outcome: 'ok', createdAt: BASE + 10, durationMs: 1 / 3 }), sequence: 3 };
        await expectStoreError(store.appendStep(run.id, { ...other, toolOutcome: 'failed' }), 'sequence_conflict');
        expect((await store.getRun(run.id))?.stepCount).toBe(7);
      });

      it('refuses another step at a taken sequence and a sequence past the next one, writing nothing', async () => {
        const store = await open();
        const run = await store.createRun({ configuration: 'c', createdAt: BASE });
        await store.appendStep(run.id, { ...llmStep(BASE + 1), sequence: 0 });
        const error = await expectStoreError(
          store.appendStep(run.id, { ...llmStep(BASE + 9), sequence: 0 }),
          'sequence_conflict',
          /sequence 0/,
        );
        expect(error.message).toContain(run.id);
        await expectStoreError(
          store.appendStep(run.id, { ...llmStep(BASE + 1), sequence: 5 }),
          'invalid_input',
          /AppendStepInput\.sequence.*gap-free/,
        );
        await expectStoreError(
          store.appendStep(run.id, { ...llmStep(BASE + 1), sequence: -1 }),
          'invalid_input',
          /AppendStepInput\.sequence/,
        );
        await expectStoreError(store.appendStep(randomUUID(), { ...llmStep(BASE + 1), sequence: 0 }), 'run_not_found');
        expect((await store.getRun(run.id))?.stepCount).toBe(1);
        expect(await store.appendStep(run.id, { ...llmStep(BASE + 2), sequence: 1 })).toBe(1);
      });

      it('ends a run cancelled when its cancel was requested before the finish, whatever the finish asked for', async () => {
        const store = await open();
        for (const [status, reason] of [
          ['completed', null],
          ['failed', 'boom'],
          ['interrupted', null],
          ['cancelled', 'operator'],
        ] as const) {
          const run = await store.createRun({ configuration: 'c', createdAt: BASE });
          await store.requestCancel(run.id, BASE + 10);
          const done = await store.finishRun(run.id, { status, finishedAt: BASE + 20, terminationReason: reason });
          expect(done).toMatchObject({ status: 'cancelled', cancelRequestedAt: BASE + 10, finishedAt: BASE + 20 });
          expect(done.termination).toEqual(
            status === 'cancelled' ? { kind: 'other', text: 'operator' } : { kind: 'cancel_while_running', reported: status, reason },
          );
          expect(done.terminationReason).toBe(runTerminationText(done.termination!));
          expect(isLateCancel(done)).toBe(false);
          expect(await store.getRun(run.id)).toEqual(done);
        }
      });

      it('stores a termination given as data, and reads a reason given as words into its kind, keeping words its sentence would not repeat', async () => {
        const store = await open();
        const cases: readonly [FinishRunInput, RunTermination][] = [
          [{ status: 'cancelled', termination: { kind: 'store_cancel' } }, { kind: 'store_cancel' }],
          [
            { status: 'failed', termination: { kind: 'other', text: 'boom' }, terminationReason: 'ignored' },
            { kind: 'other', text: 'boom' },
          ],
          [{ status: 'cancelled', terminationReason: runTerminationText({ kind: 'operator_cancel' }) }, { kind: 'operator_cancel' }],
          [{ status: 'cancelled', terminationReason: RunTerminationReason.OLD_STORE_CANCEL }, { kind: 'store_cancel' }],
        ];
        for (const [finish, termination] of cases) {
          const run = await store.createRun({ configuration: 'c', createdAt: BASE });
          const done = await store.finishRun(run.id, { ...finish, finishedAt: BASE + 20 });
          expect(done.termination).toEqual(termination);
          expect(done.terminationReason).toBe(finish.termination == null ? finish.terminationReason : runTerminationText(termination));
          // the same finish again is the one that ended it, not a late one
          expect(await store.finishRun(run.id, { ...finish, finishedAt: BASE + 20 })).toEqual(done);
          expect(await store.getRun(run.id)).toEqual(done);
        }
      });

      it('keeps the finish when the cancel came after it: a late cancel, no watcher fired', async () => {
        const store = await open();
        const run = await store.createRun({ configuration: 'c', createdAt: BASE });
        const done = await store.finishRun(run.id, { status: 'completed', finishedAt: BASE + 20 });
        expect(isLateCancel(done)).toBe(false);
        let fired = 0;
        const stop = store.watchCancel(run.id, () => fired++);
        const late = await store.requestCancel(run.id, BASE + 30);
        expect(late).toMatchObject({
          status: 'completed',
          finishedAt: BASE + 20,
          cancelRequestedAt: BASE + 30,
          termination: null,
          terminationReason: null,
        });
        expect(isLateCancel(late)).toBe(true);
        expect((await store.requestCancel(run.id, BASE + 40)).cancelRequestedAt).toBe(BASE + 30);
        expect(await store.getRun(run.id)).toEqual(late);
        await sleep(100);
        stop();
        expect(fired).toBe(0);
      });

      it('recovers a stale run whose cancel was requested as cancelled, others as interrupted', async () => {
        const store = await open();
        const asked = await store.createRun({ configuration: 'c', createdAt: BASE });
        const silent = await store.createRun({ configuration: 'c', createdAt: BASE });
        await store.requestCancel(asked.id, BASE + 5);
        expect([...(await store.recoverInterrupted(BASE + 1_000))].sort()).toEqual([asked.id, silent.id].sort());
        const cancelled = await store.getRun(asked.id);
        expect(cancelled?.status).toBe('cancelled');
        expect(cancelled?.termination).toEqual({ kind: 'no_sign_of_life', since: BASE, cancelRequested: true });
        expect(cancelled?.terminationReason).toBe(runTerminationText(cancelled!.termination!));
        expect(isLateCancel(cancelled!)).toBe(false);
        expect((await store.getRun(silent.id))?.status).toBe('interrupted');
      });

      it('never moves a heartbeat back: an earlier time than the stored one leaves the later time', async () => {
        const store = await open();
        const run = await store.createRun({ configuration: 'c', createdAt: BASE });
        await store.heartbeat(run.id, BASE + 5_000);
        // a delayed heartbeat of the same process, or a clock that stepped back, arrives late
        await store.heartbeat(run.id, BASE + 1_000);
        expect((await store.getRun(run.id))?.heartbeatAt).toBe(BASE + 5_000);
        await store.heartbeat(run.id, BASE + 5_000);
        await store.heartbeat(run.id, BASE + 6_000);
        expect((await store.getRun(run.id))?.heartbeatAt).toBe(BASE + 6_000);
        // so recovery never finds a run stale that showed a later sign of life
        expect(await store.recoverInterrupted(BASE + 5_500)).toEqual([]);
        expect((await store.getRun(run.id))?.status).toBe('running');
      });

      it('keeps the latest of any heartbeats, in any order (generated)', async () => {
        const store = await open();
        await fc.assert(
          fc.asyncProperty(fc.array(goodTime, { minLength: 1, maxLength: 6 }), async (times) => {
            const run = await store.createRun({ configuration: 'c', createdAt: 0 });
            // a store may count the start as the first sign of life (createdAt 0: below every time)
            let latest = run.heartbeatAt ?? Number.NEGATIVE_INFINITY;
            for (const at of times) {
              await store.heartbeat(run.id, at);
              latest = Math.max(latest, at);
              expect((await store.getRun(run.id))?.heartbeatAt).toBe(latest === 0 ? 0 : latest);
            }
          }),
          { seed: 20_261_204, numRuns: 25 },
        );
      });

      withPeer('never moves a heartbeat back when two store instances beat one run', async () => {
        const store = await open();
        const peer = await openPeer();
        const run = await store.createRun({ configuration: 'c', createdAt: BASE });
        await peer.heartbeat(run.id, BASE + 9_000);
        await store.heartbeat(run.id, BASE + 2_000);
        expect((await store.getRun(run.id))?.heartbeatAt).toBe(BASE + 9_000);
        expect((await peer.getRun(run.id))?.heartbeatAt).toBe(BASE + 9_000);
      });

      it('keeps the count of unstored steps given with the finish; 0 by default', async () => {
        const store = await open();
        const run = await store.createRun({ configuration: 'c', createdAt: BASE });
        expect(run.unstoredSteps).toBe(0);
        const done = await store.finishRun(run.id, { status: 'completed', finishedAt: BASE + 1, unstoredSteps: 4 });
        expect(done.unstoredSteps).toBe(4);
        expect((await store.getRun(run.id))?.unstoredSteps).toBe(4);
        expect((await store.listRuns()).runs[0]?.unstoredSteps).toBe(4);
        const other = await store.createRun({ configuration: 'c', createdAt: BASE });
        await expectStoreError(
          store.finishRun(other.id, { status: 'completed', unstoredSteps: -1 }),
          'invalid_input',
          /FinishRunInput\.unstoredSteps/,
        );
        await expectStoreError(
          store.finishRun(other.id, { status: 'completed', unstoredSteps: 1.5 }),
          'invalid_input',
          /FinishRunInput\.unstoredSteps/,
        );
        expect((await store.getRun(other.id))?.status).toBe('running');
      });
    });
  });
}
