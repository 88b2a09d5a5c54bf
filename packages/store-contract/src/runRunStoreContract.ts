import { randomUUID } from 'node:crypto';
import type { ToolOutcome } from '@runledger/core';
import { InMemoryRunStore, isLateCancel, type RunStore } from '@runledger/trace';
import { describe, expect, it } from 'vitest';
import { BASE, contractStores, expectStoreError, llmStep, sleep, toolStep, waitFor } from './contractSteps.js';
import { runInputRuleExamples } from './inputRuleExamples.js';
import { runInputRulesContract } from './inputRulesContract.js';
import { runFinishContract } from './finishContract.js';
import { runLedgerContract } from './ledgerContract.js';
import { runListRunsContract } from './listRunsContract.js';
import type { RunStoreContractHarness } from './RunStoreContractHarness.js';
import { runOpenCallsContract } from './openCallsContract.js';
import { runPruneContract } from './pruneContract.js';
import { runSearchContract } from './searchContract.js';
import { runServerHealthContract } from './serverHealthContract.js';
import { runTitleContract } from './titleContract.js';
import { runNameLengthContract } from './nameLengthContract.js';
import { runCancelRequestContract } from './cancelRequestContract.js';
import { runCreateRunContract } from './createRunContract.js';
import { runToolApprovalContract } from './toolApprovalContract.js';
import { runToolTotalsContract } from './toolTotalsContract.js';

/**
 * Defines the shared {@link RunStore} contract suite (vitest `describe`/`it` blocks) for one
 * store; a store's test file calls it once.
 *
 * @public
 */
export function runRunStoreContract(name: string, harness: RunStoreContractHarness): void {
  describe(`RunStore contract: ${name}`, () => {
    const { open, openPeer, withPeer } = contractStores(harness);

    describe('appendStep and readSteps', () => {
      it('appends with sequences 0, 1, 2 and reads the columns and payload back', async () => {
        const store = await open();
        const run = await store.createRun({ configuration: 'c', createdAt: BASE });
        const first = llmStep(BASE + 1);
        const second = toolStep({ server: 'github', outcome: 'cancelled', createdAt: BASE + 2, durationMs: 40.25, round: 1 });
        const third = toolStep({ server: 'github', outcome: 'ok', createdAt: BASE + 3, durationMs: 0 });
        expect(await store.appendStep(run.id, first)).toBe(0);
        expect(await store.appendStep(run.id, second)).toBe(1);
        expect(await store.appendStep(run.id, third)).toBe(2);
        const steps = await store.readSteps(run.id);
        expect(steps.map((s) => s.sequence)).toEqual([0, 1, 2]);
        expect(steps[1]).toEqual({
          runId: run.id,
          sequence: 1,
          kind: 'tool',
          round: 1,
          durationMs: 40.25,
          createdAt: BASE + 2,
          payload: steps[1]!.payload,
          toolServer: 'github',
          toolOutcome: 'cancelled',
        });
        expect(steps[0]!.toolServer).toBeNull();
        expect(steps[0]!.toolOutcome).toBeNull();
        expect(steps[2]!.durationMs).toBe(0);
        for (const [index, input] of [first, second, third].entries()) {
          expect(typeof steps[index]!.payload).toBe('string');
          expect(JSON.parse(steps[index]!.payload)).toEqual(JSON.parse(JSON.stringify(input.payload)));
        }
        const stored = await store.getRun(run.id);
        expect(stored?.stepCount).toBe(3);
      });

      it('keeps the payload text exactly: unicode, NUL, large strings, numbers, false, empty arrays', async () => {
        const store = await open();
        const run = await store.createRun({ configuration: 'c', createdAt: BASE });
        const payload = {
          kind: 'tool',
          round: 0,
          durationMs: 0,
          toolName: 'mcp_files_read',
          toolResult: `Grüße 😀 \u0000 "quoted" \\ back\nslash ${'x'.repeat(100_000)}`,
          toolArguments: { nested: { deep: [1, -1.5, 1e21, 0, false, null, [], {}] }, 'key with space': 'ä' },
          toolIsError: false,
          toolOutcome: 'ok',
          toolArtifacts: [],
        };
        await store.appendStep(run.id, { ...toolStep({ server: 'files', outcome: 'ok', createdAt: BASE }), payload });
        const [step] = await store.readSteps(run.id);
        expect(JSON.parse(step!.payload)).toEqual(payload);
        expect(step!.payload).toBe(JSON.stringify(payload));
      });

      it('refuses malformed steps with invalid_input and leaves no gap behind them', async () => {
        const store = await open();
        const run = await store.createRun({ configuration: 'c', createdAt: BASE });
        const good = llmStep(BASE);
        await expectStoreError(
          store.appendStep(run.id, { ...good, payload: [] as unknown as Record<string, unknown> }),
          'invalid_input',
          /payload/,
        );
        await expectStoreError(
          store.appendStep(run.id, { ...good, toolOutcome: 'timeout' as ToolOutcome }),
          'invalid_input',
          /toolOutcome/,
        );
        await expectStoreError(store.appendStep(run.id, { ...good, round: -1 }), 'invalid_input', /round/);
        await expectStoreError(store.appendStep(run.id, { ...good, durationMs: Number.NaN }), 'invalid_input', /durationMs/);
        await expectStoreError(store.appendStep(run.id, { ...good, kind: '' }), 'invalid_input', /kind/);
        expect(await store.appendStep(run.id, good)).toBe(0);
        expect(await store.appendStep(run.id, good)).toBe(1);
        expect((await store.readSteps(run.id)).map((s) => s.sequence)).toEqual([0, 1]);
      });

      it('refuses a step for a run that does not exist with run_not_found', async () => {
        const store = await open();
        await expectStoreError(store.appendStep(randomUUID(), llmStep(BASE)), 'run_not_found');
      });

      it('reads from a sequence on, with a limit', async () => {
        const store = await open();
        const run = await store.createRun({ configuration: 'c', createdAt: BASE });
        for (let i = 0; i < 10; i++) await store.appendStep(run.id, llmStep(BASE + i, { index: i }));
        const seqs = async (query: { fromSequence?: number; limit?: number }): Promise<number[]> =>
          (await store.readSteps(run.id, query)).map((s) => s.sequence);
        expect(await seqs({})).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
        expect(await seqs({ fromSequence: 3, limit: 4 })).toEqual([3, 4, 5, 6]);
        expect(await seqs({ fromSequence: 8 })).toEqual([8, 9]);
        expect(await seqs({ fromSequence: 8, limit: 100 })).toEqual([8, 9]);
        expect(await seqs({ fromSequence: 10 })).toEqual([]);
        expect(await seqs({ limit: 0 })).toEqual([]);
        expect(await seqs({ limit: 2 })).toEqual([0, 1]);
        const [fifth] = await store.readSteps(run.id, { fromSequence: 5, limit: 1 });
        expect(JSON.parse(fifth!.payload).index).toBe(5);
        expect(await store.readSteps(randomUUID())).toEqual([]);
        await expectStoreError(store.readSteps(run.id, { fromSequence: -1 }), 'invalid_input', /fromSequence/);
      });
    });

    describe('concurrent appends', () => {
      it('keeps sequences gap-free and unique with 4 concurrent appenders on one run', async () => {
        const store = await open();
        const run = await store.createRun({ configuration: 'c', createdAt: BASE });
        const perWriter = 25;
        const results = await Promise.all(
          [0, 1, 2, 3].map(async (writer) => {
            const got: number[] = [];
            for (let i = 0; i < perWriter; i++) {
              got.push(await store.appendStep(run.id, llmStep(BASE + i, { writer, i })));
            }
            return got;
          }),
        );
        const all = results.flat().sort((a, b) => a - b);
        expect(all).toEqual(Array.from({ length: 4 * perWriter }, (_, i) => i));
        for (const got of results) expect(got).toEqual([...got].sort((a, b) => a - b));
        const steps = await store.readSteps(run.id);
        expect(steps.map((s) => s.sequence)).toEqual(all);
        // each stored step is the one its appender was told about
        for (const [writer, got] of results.entries()) {
          for (const [i, sequence] of got.entries()) {
            expect(JSON.parse(steps[sequence]!.payload)).toMatchObject({ writer, i });
          }
        }
        expect((await store.getRun(run.id))?.stepCount).toBe(100);
      });

      it('keeps sequences gap-free per run with 16 concurrent writers on 16 runs', async () => {
        const store = await open();
        const runs = await Promise.all(
          Array.from({ length: 16 }, (_, i) => store.createRun({ configuration: `c${i}`, createdAt: BASE + i })),
        );
        await Promise.all(
          runs.map(async (run) => {
            for (let i = 0; i < 10; i++) {
              await store.appendStep(run.id, toolStep({ server: 's', outcome: i % 3 === 0 ? 'failed' : 'ok', createdAt: BASE + i }));
            }
          }),
        );
        for (const run of runs) {
          const steps = await store.readSteps(run.id);
          expect(steps.map((s) => s.sequence)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
          expect(steps.every((s) => s.runId === run.id)).toBe(true);
          const stored = await store.getRun(run.id);
          expect(stored?.stepCount).toBe(10);
          expect(stored?.outcomeCounts).toEqual({ ok: 6, failed: 4, cancelled: 0 });
        }
      });

      withPeer('keeps sequences gap-free when two store instances append to one run at once', async () => {
        const store = await open();
        const peer = await openPeer();
        const run = await store.createRun({ configuration: 'c', createdAt: BASE });
        const writer = async (target: RunStore, tag: string): Promise<number[]> => {
          const got: number[] = [];
          for (let i = 0; i < 20; i++) got.push(await target.appendStep(run.id, llmStep(BASE + i, { tag, i })));
          return got;
        };
        const results = await Promise.all([writer(store, 'a'), writer(peer, 'b'), writer(store, 'c'), writer(peer, 'd')]);
        expect(results.flat().sort((a, b) => a - b)).toEqual(Array.from({ length: 80 }, (_, i) => i));
        expect((await peer.readSteps(run.id)).map((s) => s.sequence)).toEqual(Array.from({ length: 80 }, (_, i) => i));
        expect((await store.getRun(run.id))?.stepCount).toBe(80);
      });
    });

    describe('finishRun', () => {
      it('ends a running run; terminal is terminal', async () => {
        const store = await open();
        const run = await store.createRun({ configuration: 'c', createdAt: BASE });
        const done = await store.finishRun(run.id, { status: 'completed', finishedAt: BASE + 100, terminationReason: 'all done' });
        expect(done).toMatchObject({ status: 'completed', finishedAt: BASE + 100, termination: { kind: 'other', text: 'all done' } });
        const again = await store.finishRun(run.id, {
          status: 'failed',
          finishedAt: BASE + 200,
          terminationReason: 'boom',
          unstoredSteps: 3,
        });
        // a finish after the finish does not change how the run ended; it is kept as a late one and
        // its unstored steps count (see finishContract.ts)
        expect(again).toEqual({ ...done, unstoredSteps: 3, lateFinishStatus: 'failed', lateFinishAt: BASE + 200 });
        // a cancel after the finish changes nothing but is kept, as a late one
        const late = { ...again, cancelRequestedAt: BASE + 300 };
        expect(await store.requestCancel(run.id, BASE + 300)).toEqual(late);
        expect(isLateCancel(late)).toBe(true);
        await store.heartbeat(run.id, BASE + 400);
        expect(await store.recoverInterrupted(BASE + 10_000)).toEqual([]);
        expect(await store.getRun(run.id)).toEqual(late);
      });

      it('takes the current time and a null reason by default', async () => {
        const store = await open();
        const run = await store.createRun({ configuration: 'c' });
        const before = Date.now();
        const done = await store.finishRun(run.id, { status: 'failed' });
        expect(done.status).toBe('failed');
        expect(done.finishedAt).toBeGreaterThanOrEqual(before);
        expect(done.finishedAt).toBeLessThanOrEqual(Date.now());
        expect(done.termination).toBeNull();
        expect(done.terminationReason).toBeNull();
      });

      it('keeps each terminal status as given', async () => {
        const store = await open();
        for (const status of ['completed', 'failed', 'cancelled', 'interrupted'] as const) {
          const run = await store.createRun({ configuration: 'c', createdAt: BASE });
          expect((await store.finishRun(run.id, { status, finishedAt: BASE + 1 })).status).toBe(status);
          expect((await store.getRun(run.id))?.status).toBe(status);
        }
      });

      it('refuses a status that is not terminal and a run that does not exist', async () => {
        const store = await open();
        const run = await store.createRun({ configuration: 'c', createdAt: BASE });
        await expectStoreError(store.finishRun(run.id, { status: 'running' as 'completed' }), 'invalid_input', /status/);
        expect((await store.getRun(run.id))?.status).toBe('running');
        await expectStoreError(store.finishRun(randomUUID(), { status: 'completed' }), 'run_not_found');
      });

      it('still records a step that arrives after the run ended (the cancelled call of a cancelled run)', async () => {
        const store = await open();
        const run = await store.createRun({ configuration: 'c', createdAt: BASE });
        await store.appendStep(run.id, llmStep(BASE + 1));
        await store.finishRun(run.id, { status: 'cancelled', finishedAt: BASE + 2 });
        expect(await store.appendStep(run.id, toolStep({ server: 's', outcome: 'cancelled', createdAt: BASE + 3 }))).toBe(1);
        const stored = await store.getRun(run.id);
        expect(stored).toMatchObject({ status: 'cancelled', stepCount: 2, outcomeCounts: { ok: 0, failed: 0, cancelled: 1 } });
      });
    });

    describe('requestCancel and watchCancel', () => {
      it('marks the cancel once, keeps the first time, and leaves the run running', async () => {
        const store = await open();
        const run = await store.createRun({ configuration: 'c', createdAt: BASE });
        const first = await store.requestCancel(run.id, BASE + 10);
        expect(first).toMatchObject({ status: 'running', cancelRequestedAt: BASE + 10 });
        const second = await store.requestCancel(run.id, BASE + 20);
        expect(second.cancelRequestedAt).toBe(BASE + 10);
        expect((await store.getRun(run.id))?.cancelRequestedAt).toBe(BASE + 10);
        const now = await store.createRun({ configuration: 'c' });
        const before = Date.now();
        const marked = await store.requestCancel(now.id);
        expect(marked.cancelRequestedAt).toBeGreaterThanOrEqual(before);
        await expectStoreError(store.requestCancel(randomUUID()), 'run_not_found');
      });

      withPeer('is visible to another store instance on the same database', async () => {
        const store = await open();
        const peer = await openPeer();
        const run = await store.createRun({ configuration: 'c', createdAt: BASE });
        expect((await peer.getRun(run.id))?.id).toBe(run.id);
        await peer.requestCancel(run.id, BASE + 7);
        expect((await store.getRun(run.id))?.cancelRequestedAt).toBe(BASE + 7);
      });

      it('calls watchCancel once when a cancel is requested, and only for that run', async () => {
        const store = await open();
        const run = await store.createRun({ configuration: 'c', createdAt: BASE });
        const other = await store.createRun({ configuration: 'c', createdAt: BASE });
        let calls = 0;
        let otherCalls = 0;
        const stopOther = store.watchCancel(other.id, () => otherCalls++);
        const fired = waitFor((done) => {
          store.watchCancel(run.id, () => {
            calls++;
            done();
          });
        }, 'watchCancel after requestCancel');
        await store.requestCancel(run.id);
        await fired;
        await store.requestCancel(run.id);
        await sleep(100);
        expect(calls).toBe(1);
        expect(otherCalls).toBe(0);
        stopOther();
      });

      it('calls watchCancel for a run whose cancel was requested before watching', async () => {
        const store = await open();
        const run = await store.createRun({ configuration: 'c', createdAt: BASE });
        await store.requestCancel(run.id);
        await waitFor((done) => void store.watchCancel(run.id, done), 'watchCancel of an already cancelled run');
      });

      it('does not call watchCancel after the watch was stopped', async () => {
        const store = await open();
        const run = await store.createRun({ configuration: 'c', createdAt: BASE });
        let calls = 0;
        const stop = store.watchCancel(run.id, () => calls++);
        stop();
        stop();
        await store.requestCancel(run.id);
        await sleep(150);
        expect(calls).toBe(0);
      });

      withPeer('calls watchCancel when another store instance requests the cancel', async () => {
        const store = await open();
        const peer = await openPeer();
        const run = await store.createRun({ configuration: 'c', createdAt: BASE });
        let calls = 0;
        const fired = waitFor((done) => {
          store.watchCancel(run.id, () => {
            calls++;
            done();
          });
        }, 'watchCancel after a peer requestCancel');
        await sleep(20);
        await peer.requestCancel(run.id);
        await fired;
        await sleep(100);
        expect(calls).toBe(1);
      });
    });

    describe('heartbeat and recoverInterrupted', () => {
      it('records heartbeats and marks interrupted only running runs whose last sign of life is stale', async () => {
        const store = await open();
        const stale = await store.createRun({ configuration: 'c', createdAt: BASE });
        await store.heartbeat(stale.id, BASE + 1_000);
        expect((await store.getRun(stale.id))?.heartbeatAt).toBe(BASE + 1_000);
        const neverBeat = await store.createRun({ configuration: 'c', createdAt: BASE + 500 });
        const fresh = await store.createRun({ configuration: 'c', createdAt: BASE });
        await store.heartbeat(fresh.id, BASE + 1_000);
        await store.heartbeat(fresh.id, BASE + 5_000);
        const finished = await store.createRun({ configuration: 'c', createdAt: BASE });
        const done = await store.finishRun(finished.id, { status: 'completed', finishedAt: BASE + 600 });
        const youngAndSilent = await store.createRun({ configuration: 'c', createdAt: BASE + 3_000 });

        const recovered = await store.recoverInterrupted(BASE + 2_000);
        expect([...recovered].sort()).toEqual([stale.id, neverBeat.id].sort());
        for (const id of [stale.id, neverBeat.id]) {
          const run = await store.getRun(id);
          expect(run?.status).toBe('interrupted');
          expect(run?.finishedAt).not.toBeNull();
          expect(run!.finishedAt!).toBeGreaterThanOrEqual(run!.startedAt!);
          expect(run?.termination).toMatchObject({ kind: 'no_sign_of_life', cancelRequested: false });
        }
        expect((await store.getRun(fresh.id))?.status).toBe('running');
        expect((await store.getRun(youngAndSilent.id))?.status).toBe('running');
        expect(await store.getRun(finished.id)).toEqual(done);
        expect(await store.recoverInterrupted(BASE + 2_000)).toEqual([]);
        const interrupted = await store.listRuns({ status: 'interrupted' });
        expect(interrupted.runs.map((r) => r.id).sort()).toEqual([stale.id, neverBeat.id].sort());
      });
    });

    describe('importRun', () => {
      it('copies a run and its steps exactly, and only once', async () => {
        const source = InMemoryRunStore.create();
        const run = await source.createRun({ configuration: 'imported', actor: 'alice', createdAt: BASE + 1 });
        await source.appendStep(run.id, llmStep(BASE + 2));
        await source.appendStep(run.id, toolStep({ server: 'gh', outcome: 'cancelled', createdAt: BASE + 3, durationMs: 3.25 }));
        await source.appendStep(run.id, toolStep({ server: 'gh', outcome: 'failed', createdAt: BASE + 4, legacy: true }));
        await source.heartbeat(run.id, BASE + 5);
        await source.requestCancel(run.id, BASE + 6);
        await source.finishRun(run.id, { status: 'cancelled', finishedAt: BASE + 7, terminationReason: 'operator' });
        const storedRun = (await source.getRun(run.id))!;
        const storedSteps = await source.readSteps(run.id);

        const store = await open();
        expect(await store.importRun(storedRun, storedSteps)).toBe(true);
        expect(await store.getRun(run.id)).toEqual(storedRun);
        expect(await store.readSteps(run.id)).toEqual(storedSteps);
        expect(await store.importRun({ ...storedRun, configuration: 'changed' }, [])).toBe(false);
        expect((await store.getRun(run.id))?.configuration).toBe('imported');
        expect((await store.readSteps(run.id)).length).toBe(3);
        expect(await store.appendStep(run.id, llmStep(BASE + 8))).toBe(3);
        expect((await store.serverHealth()).map((h) => [h.server, h.ok, h.failed, h.cancelled])).toEqual([['gh', 0, 1, 1]]);
        expect((await store.listRuns({ hasOutcome: 'cancelled' })).runs.map((r) => r.id)).toEqual([run.id]);
      });

      it('copies a running run so that it can go on', async () => {
        const source = InMemoryRunStore.create();
        const run = await source.createRun({ configuration: 'c', createdAt: BASE });
        await source.appendStep(run.id, llmStep(BASE + 1));
        const store = await open();
        expect(await store.importRun((await source.getRun(run.id))!, await source.readSteps(run.id))).toBe(true);
        expect(await store.appendStep(run.id, llmStep(BASE + 2))).toBe(1);
        expect((await store.finishRun(run.id, { status: 'completed', finishedAt: BASE + 3 })).status).toBe('completed');
      });

      it('refuses steps whose sequences are not 0..n-1 of the run, importing nothing', async () => {
        const source = InMemoryRunStore.create();
        const run = await source.createRun({ configuration: 'c', createdAt: BASE });
        await source.appendStep(run.id, llmStep(BASE));
        await source.appendStep(run.id, llmStep(BASE));
        const storedRun = (await source.getRun(run.id))!;
        const [first, second] = await source.readSteps(run.id);
        const store = await open();
        await expectStoreError(store.importRun(storedRun, [second!]), 'invalid_input', /sequence/);
        await expectStoreError(store.importRun(storedRun, [first!, { ...second!, runId: randomUUID() }]), 'invalid_input', /runId/);
        expect(await store.getRun(run.id)).toBeNull();
        expect(await store.importRun(storedRun, [first!, second!])).toBe(true);
      });
    });
  });
  runCreateRunContract(name, harness);
  runListRunsContract(name, harness);
  runTitleContract(name, harness);
  runNameLengthContract(name, harness);
  runServerHealthContract(name, harness);
  runLedgerContract(name, harness);
  runCancelRequestContract(name, harness);
  runToolApprovalContract(name, harness);
  runFinishContract(name, harness);
  runInputRuleExamples(name, harness);
  runInputRulesContract(name, harness);
  runPruneContract(name, harness);
  runOpenCallsContract(name, harness);
  runSearchContract(name, harness);
  runToolTotalsContract(name, harness);
}
