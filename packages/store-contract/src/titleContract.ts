import { InMemoryRunStore } from '@runledger/trace';
import { describe, expect, it } from 'vitest';
import { BASE, contractStores, expectStoreError } from './contractSteps.js';
import type { RunStoreContractHarness } from './RunStoreContractHarness.js';

/**
 * The run title part of the contract: a title given at creation comes back from `getRun`,
 * `listRuns` and a copy; none reads as null; a title outside the rule is refused naming the field.
 * Called by {@link runRunStoreContract}.
 */
export function runTitleContract(name: string, harness: RunStoreContractHarness): void {
  describe(`RunStore contract: ${name}`, () => {
    const { open } = contractStores(harness);

    describe('run titles', () => {
      it('gives a title back from createRun, getRun and listRuns; a run without one reads null', async () => {
        const store = await open();
        const titled = await store.createRun({ configuration: 'support', title: 'Triage the inbox — ä 😀', createdAt: BASE + 1 });
        const untitled = await store.createRun({ configuration: 'support', createdAt: BASE + 2 });
        const nulled = await store.createRun({ configuration: 'support', title: null, createdAt: BASE + 3 });
        expect(titled.title).toBe('Triage the inbox — ä 😀');
        expect(untitled.title).toBeNull();
        expect(nulled.title).toBeNull();
        expect((await store.getRun(titled.id))?.title).toBe('Triage the inbox — ä 😀');
        expect((await store.getRun(untitled.id))?.title).toBeNull();
        expect((await store.listRuns()).runs.map((r) => [r.id, r.title])).toEqual([
          [nulled.id, null],
          [untitled.id, null],
          [titled.id, 'Triage the inbox — ä 😀'],
        ]);
        const finished = await store.finishRun(titled.id, { status: 'completed', finishedAt: BASE + 4 });
        expect(finished.title).toBe('Triage the inbox — ä 😀');
      });

      it('keeps a title of 200 characters and refuses a longer one, an empty one and one with a control character, naming the field', async () => {
        const store = await open();
        const longest = '😀'.repeat(200);
        expect((await store.createRun({ configuration: 'c', title: longest, createdAt: BASE })).title).toBe(longest);
        const field = /CreateRunInput\.title must be a string of 1 to 200 characters without control characters, or null/;
        for (const title of ['x'.repeat(201), '', 'two\nlines', 'tab\there', 'del\u007f', 'nul\0']) {
          await expectStoreError(store.createRun({ configuration: 'c', title, createdAt: BASE }), 'invalid_input', /CreateRunInput\.title/);
        }
        await expectStoreError(store.createRun({ configuration: 'c', title: 'x'.repeat(201), createdAt: BASE }), 'invalid_input', field);
        await expectStoreError(store.createRun({ configuration: 'c', title: 'a\u0001b', createdAt: BASE }), 'invalid_input', /U\+0001/);
        // nothing was stored by a refusal
        expect((await store.listRuns()).runs.map((r) => r.title)).toEqual([longest]);
      });

      it('copies a title with importRun', async () => {
        const source = InMemoryRunStore.create();
        const run = await source.createRun({ configuration: 'c', title: 'Copied title', createdAt: BASE });
        const store = await open();
        expect(await store.importRun((await source.getRun(run.id))!, [])).toBe(true);
        expect(await store.getRun(run.id)).toEqual(await source.getRun(run.id));
        expect((await store.getRun(run.id))?.title).toBe('Copied title');
      });
    });
  });
}
