import {
  canReadOpenCalls,
  InMemoryRunStore,
  OpenCallSet,
  type OpenCallsRead,
  type OpenCallsRunStore,
  type RunStore,
  type AppendStepInput,
  type StoredStep,
} from '@runledger/trace';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BASE, contractStores, expectStoreError, llmStep } from './contractSteps.js';
import type { RunStoreContractHarness } from './RunStoreContractHarness.js';

/** A call's start or end as the recorder appends it (`toolCallId` in the payload). */
function callStep(kind: 'tool_start' | 'tool', callId: string, createdAt: number): AppendStepInput {
  const outcome = kind === 'tool' ? 'ok' : null;
  return {
    kind,
    round: 0,
    durationMs: kind === 'tool' ? 3 : 0,
    createdAt,
    payload: {
      kind,
      round: 0,
      toolName: 'mcp_alpha_lookup',
      toolServer: 'alpha',
      toolCallId: callId,
      ...(outcome ? { toolOutcome: outcome } : {}),
    },
    toolServer: kind === 'tool' ? 'alpha' : null,
    toolOutcome: outcome,
  };
}

/** What a store must answer: the fold of the run's stored steps. */
async function folded(store: RunStore, runId: string): Promise<OpenCallsRead> {
  const steps = await store.readSteps(runId);
  const open = new OpenCallSet<StoredStep>();
  for (const step of steps) open.add(step, step);
  return { starts: open.values(), readTo: steps.length, endedFirst: open.endedFirst() };
}

/** A read with its `endedFirst` sorted: stores give those ids in no particular order. */
function sortedEnds(read: OpenCallsRead | null): OpenCallsRead | null {
  return read === null ? null : { ...read, endedFirst: [...read.endedFirst].sort() };
}

/** A history of calls: each starts, ends, both in either order, or neither; with other steps between. */
const histories = fc.array(
  fc.record({ call: fc.integer({ min: 0, max: 11 }), kind: fc.constantFrom('tool_start', 'tool', 'tool_start', 'llm') }),
  { maxLength: 30 },
);

/** The store as one that reads open calls; a store without readOpenCalls skips these tests (it is optional on RunStore). */
function reading(store: RunStore, skip: (note: string) => void): OpenCallsRunStore {
  if (!canReadOpenCalls(store)) skip('this store has no readOpenCalls');
  return store as OpenCallsRunStore;
}

/**
 * The open-calls part of the contract: readOpenCalls answers what folding the run's steps with
 * OpenCallSet gives, whatever the order of starts and ends, for appended and imported runs.
 * Called by {@link runRunStoreContract}.
 */
export function runOpenCallsContract(name: string, harness: RunStoreContractHarness): void {
  describe(`RunStore contract: ${name}`, () => {
    const { open } = contractStores(harness);

    describe('readOpenCalls', () => {
      it(
        'answers the fold of the run’s steps after every append (generated histories, call ids reused too)',
        { timeout: 60_000 },
        async ({ skip }) => {
          const store = reading(await open(), skip);
          await fc.assert(
            fc.asyncProperty(histories, async (history) => {
              const run = await store.createRun({ configuration: 'open-calls' });
              expect(await store.readOpenCalls(run.id)).toEqual({ starts: [], readTo: 0, endedFirst: [] });
              for (const [i, event] of history.entries()) {
                const at = BASE + i;
                await store.appendStep(
                  run.id,
                  event.kind === 'llm' ? llmStep(at) : callStep(event.kind as 'tool_start' | 'tool', `call-${event.call}`, at),
                );
              }
              expect(sortedEnds(await store.readOpenCalls(run.id))).toEqual(sortedEnds(await folded(store, run.id)));
            }),
            { numRuns: 25 },
          );
        },
      );

      it('keeps an end that came before its start: the start then opens nothing', async ({ skip }) => {
        const store = reading(await open(), skip);
        const run = await store.createRun({ configuration: 'open-calls' });
        await store.appendStep(run.id, callStep('tool', 'early', BASE));
        await store.appendStep(run.id, callStep('tool_start', 'late', BASE + 1));
        await store.appendStep(run.id, callStep('tool_start', 'early', BASE + 2));
        let read = await store.readOpenCalls(run.id);
        expect(read?.readTo).toBe(3);
        expect(read?.starts.map((step) => step.sequence)).toEqual([1]);
        expect(read?.endedFirst).toEqual([]);
        await store.appendStep(run.id, callStep('tool', 'later', BASE + 3));
        read = await store.readOpenCalls(run.id);
        expect(read?.endedFirst).toEqual(['later']);
        // a refused or repeated append changes nothing
        await store.appendStep(run.id, { ...callStep('tool_start', 'late', BASE + 1), sequence: 1 });
        await expectStoreError(store.appendStep(run.id, { ...callStep('tool', 'late', BASE + 9), sequence: 1 }), 'sequence_conflict');
        expect(await store.readOpenCalls(run.id)).toEqual(read);
      });

      it('answers for an imported run as for the same steps appended', async ({ skip }) => {
        const store = reading(await open(), skip);
        const source = InMemoryRunStore.create();
        const run = await source.createRun({ configuration: 'open-calls-import' });
        for (const [i, [kind, id]] of (
          [
            ['tool_start', 'a'],
            ['tool_start', 'b'],
            ['tool', 'a'],
            ['tool', 'c'],
            ['tool_start', 'c'],
            ['tool_start', 'd'],
          ] as const
        ).entries())
          await source.appendStep(run.id, callStep(kind, id, BASE + i));
        const stored = (await source.getRun(run.id))!;
        expect(await store.importRun(stored, await source.readSteps(run.id))).toBe(true);
        const read = await store.readOpenCalls(run.id);
        expect(sortedEnds(read)).toEqual(sortedEnds(await folded(store, run.id)));
        expect(read?.starts.map((step) => step.sequence)).toEqual([1, 5]);
      });

      it('answers null for a run it does not have, and names the runId rule', async ({ skip }) => {
        const store = reading(await open(), skip);
        expect(await store.readOpenCalls('00000000-0000-4000-8000-00000000dead')).toBeNull();
        expect(await store.readOpenCalls('not-a-uuid')).toBeNull();
        await expectStoreError(store.readOpenCalls(42 as unknown as string), 'invalid_input', /runId/);
      });

      it('forgets a run’s open calls with the run when it is pruned', async ({ skip }) => {
        const store = reading(await open(), skip);
        if (store.pruneRuns === undefined) skip('this store has no pruneRuns');
        const run = await store.createRun({ configuration: 'open-calls-prune', createdAt: BASE });
        await store.appendStep(run.id, callStep('tool_start', 'left-open', BASE + 1));
        await store.finishRun(run.id, { status: 'failed', finishedAt: BASE + 2, terminationReason: 'crashed mid-call' });
        expect((await store.readOpenCalls(run.id))?.starts).toHaveLength(1);
        await store.pruneRuns!({ olderThan: BASE + 3 });
        expect(await store.readOpenCalls(run.id)).toBeNull();
      });
    });
  });
}
