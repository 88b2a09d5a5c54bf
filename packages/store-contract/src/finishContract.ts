import { randomUUID } from 'node:crypto';
import { InMemoryRunStore, isLateCancel, type FinishRunInput, type StoredRun, type TerminalRunStatus } from '@runledger/trace';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BASE, contractStores, expectStoreError } from './contractSteps.js';
import type { RunStoreContractHarness } from './RunStoreContractHarness.js';

/** The late finish of a run as the contract reads it: absent and null are the same (no late finish). */
function lateOf(run: StoredRun | null): { status: TerminalRunStatus | null; at: number | null } {
  return { status: run?.lateFinishStatus ?? null, at: run?.lateFinishAt ?? null };
}

/**
 * The finish part of the contract: a final status that arrives for a run that has ended already
 * (ended by recovery, by another finish) is kept as a late finish and its unstored steps still
 * count; the same finish again changes nothing. Called by {@link runRunStoreContract}.
 */
export function runFinishContract(name: string, harness: RunStoreContractHarness): void {
  describe(`RunStore contract: ${name}`, () => {
    const { open } = contractStores(harness);

    describe('finishRun of a run that has ended already', () => {
      it('keeps a finish that arrives after recovery ended the run as a late one, and adds its unstored steps', async () => {
        const store = await open();
        const run = await store.createRun({ configuration: 'c', createdAt: BASE });
        await store.heartbeat(run.id, BASE + 10);
        expect(await store.recoverInterrupted(BASE + 1_000)).toEqual([run.id]);
        const recovered = (await store.getRun(run.id))!;
        expect(lateOf(recovered)).toEqual({ status: null, at: null });
        const late = await store.finishRun(run.id, {
          status: 'completed',
          finishedAt: BASE + 20,
          terminationReason: 'done',
          unstoredSteps: 2,
        });
        // how the run ended is unchanged; the late finish is kept beside it, and the loss still counts
        expect(late).toEqual({ ...recovered, unstoredSteps: 2, lateFinishStatus: 'completed', lateFinishAt: BASE + 20 });
        expect(await store.getRun(run.id)).toEqual(late);
        expect((await store.listRuns()).runs).toEqual([late]);
        // the same finish delivered again (a repeated spool delivery) changes nothing
        expect(
          await store.finishRun(run.id, { status: 'completed', finishedAt: BASE + 20, terminationReason: 'done', unstoredSteps: 2 }),
        ).toEqual(late);
      });

      it('changes nothing when the finish that ended the run arrives again (a retry after a lost answer)', async () => {
        const store = await open();
        const run = await store.createRun({ configuration: 'c', createdAt: BASE });
        const finish: FinishRunInput = { status: 'failed', finishedAt: BASE + 5, terminationReason: 'boom', unstoredSteps: 1 };
        const done = await store.finishRun(run.id, finish);
        expect(done).toMatchObject({ status: 'failed', finishedAt: BASE + 5, unstoredSteps: 1 });
        expect(lateOf(done)).toEqual({ status: null, at: null });
        expect(await store.finishRun(run.id, finish)).toEqual(done);
        // also when a cancel requested first made it end cancelled
        const cancelled = await store.createRun({ configuration: 'c', createdAt: BASE });
        await store.requestCancel(cancelled.id, BASE + 1);
        const first = await store.finishRun(cancelled.id, { status: 'completed', finishedAt: BASE + 6, unstoredSteps: 1 });
        expect(first).toMatchObject({ status: 'cancelled', unstoredSteps: 1 });
        expect(await store.finishRun(cancelled.id, { status: 'completed', finishedAt: BASE + 6, unstoredSteps: 1 })).toEqual(first);
      });

      it('keeps the first late finish; a later one only adds its unstored steps', async () => {
        const store = await open();
        const run = await store.createRun({ configuration: 'c', createdAt: BASE });
        const done = await store.finishRun(run.id, { status: 'completed', finishedAt: BASE + 5 });
        const late = await store.finishRun(run.id, { status: 'failed', finishedAt: BASE + 7, terminationReason: 'x', unstoredSteps: 3 });
        expect(late).toEqual({ ...done, unstoredSteps: 3, lateFinishStatus: 'failed', lateFinishAt: BASE + 7 });
        const later = await store.finishRun(run.id, { status: 'cancelled', finishedAt: BASE + 9, unstoredSteps: 4 });
        expect(later).toEqual({ ...late, unstoredSteps: 7 });
        // a late finish is not a late cancel
        expect(isLateCancel(later)).toBe(false);
      });

      it('copies a late finish with importRun, as it copies a late cancel', async () => {
        const source = InMemoryRunStore.create();
        const run = await source.createRun({ configuration: 'c', createdAt: BASE });
        await source.finishRun(run.id, { status: 'interrupted', finishedAt: BASE + 1 });
        const late = await source.finishRun(run.id, { status: 'failed', finishedAt: BASE + 2, unstoredSteps: 1 });
        expect(lateOf(late)).toEqual({ status: 'failed', at: BASE + 2 });
        const store = await open();
        expect(await store.importRun(late, [])).toBe(true);
        expect(await store.getRun(run.id)).toEqual(late);
      });

      it('still refuses a finish for a run that does not exist', async () => {
        const store = await open();
        await expectStoreError(store.finishRun(randomUUID(), { status: 'completed', finishedAt: BASE }), 'run_not_found');
      });

      it('never loses a counted step and keeps the first late finish, whatever finishes arrive (generated)', async () => {
        const store = await open();
        const finishArb = fc.record({
          status: fc.constantFrom<TerminalRunStatus>('completed', 'failed', 'cancelled', 'interrupted'),
          finishedAt: fc.integer({ min: 0, max: 3 }).map((n) => BASE + n),
          unstoredSteps: fc.integer({ min: 0, max: 5 }),
        });
        await fc.assert(
          fc.asyncProperty(fc.array(finishArb, { minLength: 1, maxLength: 5 }), async (finishes) => {
            const run = await store.createRun({ configuration: 'c', createdAt: BASE });
            const [ending, ...rest] = finishes as [FinishRunInput & { finishedAt: number; unstoredSteps: number }, ...typeof finishes];
            let unstored = ending.unstoredSteps;
            let late: { status: TerminalRunStatus; at: number } | null = null;
            const ended = await store.finishRun(run.id, ending);
            for (const finish of rest) {
              const same = (status: TerminalRunStatus, at: number): boolean => finish.status === status && finish.finishedAt === at;
              const stored = await store.finishRun(run.id, finish);
              if (!same(ending.status, ending.finishedAt) && (late === null || !same(late.status, late.at))) {
                unstored += finish.unstoredSteps;
                late ??= { status: finish.status, at: finish.finishedAt };
              }
              expect(stored).toMatchObject({
                status: ended.status,
                finishedAt: ended.finishedAt,
                termination: ended.termination,
              });
              expect(stored.unstoredSteps).toBe(unstored);
              expect(lateOf(stored)).toEqual(late === null ? { status: null, at: null } : { status: late.status, at: late.at });
            }
          }),
          { seed: 20_261_204, numRuns: 20 },
        );
      });
    });
  });
}
