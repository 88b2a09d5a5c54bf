import { InMemoryRunStore } from '@runledger/trace';
import { describe, expect, it } from 'vitest';
import { BASE, contractStores, expectStoreError } from './contractSteps.js';
import type { RunStoreContractHarness } from './RunStoreContractHarness.js';

/**
 * The who, where and why of a cancel request: `requestCancel`'s request is kept with the first
 * request's time as `cancelRequest` (a later one changes nothing), read back by `getRun`,
 * `listRuns`, a peer and a copy; a request outside the rule is refused naming the field, storing
 * nothing. Called by {@link runRunStoreContract}.
 */
export function runCancelRequestContract(name: string, harness: RunStoreContractHarness): void {
  describe(`RunStore contract: ${name}`, () => {
    const { open, openPeer, withPeer } = contractStores(harness);

    describe('who asked for a cancel, from where and why', () => {
      it('keeps the first request with its time, reads it from getRun, listRuns and the finished run; a later one changes nothing', async () => {
        const store = await open();
        const run = await store.createRun({ configuration: 'c', createdAt: BASE });
        const asked = { at: BASE + 10, from: 'cli', by: 'ops — ä 😀', reason: 'stuck on the slow server' } as const;
        const first = await store.requestCancel(run.id, BASE + 10, { from: 'cli', by: asked.by, reason: asked.reason });
        expect(first).toMatchObject({ status: 'running', cancelRequestedAt: BASE + 10, cancelRequest: asked });
        const second = await store.requestCancel(run.id, BASE + 20, { from: 'app', by: 'someone else', reason: 'again' });
        expect(second.cancelRequest).toEqual(asked);
        expect((await store.getRun(run.id))?.cancelRequest).toEqual(asked);
        expect((await store.listRuns()).runs[0]?.cancelRequest).toEqual(asked);
        const finished = await store.finishRun(run.id, { status: 'completed', finishedAt: BASE + 30 });
        expect(finished).toMatchObject({ status: 'cancelled', cancelRequest: asked });
      });

      it('keeps a request without who or why as from alone, and a cancel requested without one reads without a request', async () => {
        const store = await open();
        const bare = await store.createRun({ configuration: 'c', createdAt: BASE });
        expect((await store.requestCancel(bare.id, BASE + 1, { from: 'signal' })).cancelRequest).toEqual({
          at: BASE + 1,
          from: 'signal',
          by: null,
          reason: null,
        });
        const nulls = await store.createRun({ configuration: 'c', createdAt: BASE });
        expect((await store.requestCancel(nulls.id, BASE + 2, { from: 'api', by: null, reason: null })).cancelRequest).toEqual({
          at: BASE + 2,
          from: 'api',
          by: null,
          reason: null,
        });
        // the first request said nothing of where from: a later one does not fill it in
        const unsaid = await store.createRun({ configuration: 'c', createdAt: BASE });
        await store.requestCancel(unsaid.id, BASE + 3);
        const later = await store.requestCancel(unsaid.id, BASE + 4, { from: 'app', by: 'token' });
        expect(later.cancelRequestedAt).toBe(BASE + 3);
        expect(later.cancelRequest ?? null).toBeNull();
        expect((await store.getRun(unsaid.id))?.cancelRequest ?? null).toBeNull();
      });

      it('keeps a late request on a finished run with who asked, changing nothing else', async () => {
        const store = await open();
        const run = await store.createRun({ configuration: 'c', createdAt: BASE });
        await store.finishRun(run.id, { status: 'completed', finishedAt: BASE + 5 });
        const late = await store.requestCancel(run.id, BASE + 6, { from: 'app', by: 'token', reason: 'too late' });
        expect(late).toMatchObject({ status: 'completed', cancelRequestedAt: BASE + 6 });
        expect(late.cancelRequest).toEqual({ at: BASE + 6, from: 'app', by: 'token', reason: 'too late' });
      });

      it('refuses a request outside the rule naming the field and the rule, and stores nothing', async () => {
        const store = await open();
        const run = await store.createRun({ configuration: 'c', createdAt: BASE });
        const line = (field: string, max: number): RegExp =>
          new RegExp(`CancelRequestInput\\.${field} must be a string of 1 to ${max} characters without control characters, or null`);
        const refusals: [unknown, RegExp][] = [
          [{ from: 'browser' }, /CancelRequestInput\.from must be "app", "cli", "api" or "signal", got "browser"/],
          [{}, /CancelRequestInput\.from must be/],
          [null, /CancelRequestInput must be an object, got null/],
          [{ from: 'cli', by: 'x'.repeat(201) }, line('by', 200)],
          [{ from: 'cli', by: '' }, line('by', 200)],
          [{ from: 'cli', by: 'two\nlines' }, /CancelRequestInput\.by .*U\+000A/],
          [{ from: 'cli', by: 42 }, line('by', 200)],
          [{ from: 'cli', reason: 'r'.repeat(501) }, line('reason', 500)],
          [{ from: 'cli', reason: 'bell\u0007' }, /CancelRequestInput\.reason .*U\+0007/],
        ];
        for (const [request, message] of refusals) {
          await expectStoreError(store.requestCancel(run.id, BASE + 1, request as never), 'invalid_input', message);
        }
        expect(await store.getRun(run.id)).toMatchObject({ cancelRequestedAt: null });
        expect((await store.getRun(run.id))?.cancelRequest ?? null).toBeNull();
        // the limits are inclusive
        const longest = { from: 'cli', by: '😀'.repeat(200), reason: 'r'.repeat(500) } as const;
        expect((await store.requestCancel(run.id, BASE + 2, longest)).cancelRequest).toEqual({ at: BASE + 2, ...longest });
      });

      withPeer('is visible with who asked to another store instance on the same database', async () => {
        const store = await open();
        const peer = await openPeer();
        const run = await store.createRun({ configuration: 'c', createdAt: BASE });
        await peer.requestCancel(run.id, BASE + 7, { from: 'cli', by: 'alice', reason: 'wrong prompt' });
        expect((await store.getRun(run.id))?.cancelRequest).toEqual({ at: BASE + 7, from: 'cli', by: 'alice', reason: 'wrong prompt' });
      });

      it('copies the request with importRun, and refuses a request on a run without a cancel time', async () => {
        const source = InMemoryRunStore.create();
        const run = await source.createRun({ configuration: 'c', createdAt: BASE });
        await source.requestCancel(run.id, BASE + 3, { from: 'app', by: 'token', reason: 'copied' });
        const stored = (await source.finishRun(run.id, { status: 'completed', finishedAt: BASE + 4 }))!;
        const store = await open();
        expect(await store.importRun(stored, [])).toBe(true);
        expect(await store.getRun(run.id)).toEqual(stored);
        expect((await store.getRun(run.id))?.cancelRequest).toEqual({ at: BASE + 3, from: 'app', by: 'token', reason: 'copied' });
        const other = { ...stored, id: crypto.randomUUID(), cancelRequestedAt: null };
        await expectStoreError(
          store.importRun(other, []),
          'invalid_input',
          /StoredRun\.cancelRequest must be null when StoredRun\.cancelRequestedAt is null/,
        );
        const badFrom = { ...stored, id: crypto.randomUUID(), cancelRequest: { ...stored.cancelRequest!, from: 'mail' } };
        await expectStoreError(store.importRun(badFrom as never, []), 'invalid_input', /StoredRun\.cancelRequest\.from must be/);
      });
    });
  });
}
