// The createRun and getRun part of the RunStore contract: a run created with its fields reads back
// equal; ids, defaults and refusals. Called by runRunStoreContract.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BASE, contractStores, expectStoreError } from './contractSteps.js';
import type { RunStoreContractHarness } from './RunStoreContractHarness.js';

/** The createRun / getRun part of the contract. Called by {@link runRunStoreContract}. */
export function runCreateRunContract(name: string, harness: RunStoreContractHarness): void {
  describe(`RunStore contract: ${name}`, () => {
    const { open } = contractStores(harness);

    describe('createRun and getRun', () => {
      it('creates a running run with the given fields and reads it back equal', async () => {
        const store = await open();
        const id = randomUUID();
        const run = await store.createRun({ id, configuration: 'support-bot', actor: 'ops@example.com', createdAt: BASE + 5 });
        expect(run).toEqual({
          id,
          status: 'running',
          configuration: 'support-bot',
          actor: 'ops@example.com',
          title: null,
          createdAt: BASE + 5,
          startedAt: BASE + 5,
          finishedAt: null,
          terminationReason: null,
          termination: null,
          cancelRequestedAt: null,
          heartbeatAt: run.heartbeatAt,
          stepCount: 0,
          outcomeCounts: { ok: 0, failed: 0, cancelled: 0 },
          tokens: 0,
          unstoredSteps: 0,
        });
        expect([null, BASE + 5]).toContain(run.heartbeatAt);
        expect(await store.getRun(id)).toEqual(run);
      });

      it('makes a UUID and takes the current time when none are given; actor defaults to null', async () => {
        const store = await open();
        const before = Date.now();
        const run = await store.createRun({ configuration: 'c' });
        const after = Date.now();
        expect(run.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
        expect(run.createdAt).toBeGreaterThanOrEqual(before);
        expect(run.createdAt).toBeLessThanOrEqual(after);
        expect(run.actor).toBeNull();
        const other = await store.createRun({ configuration: 'c' });
        expect(other.id).not.toBe(run.id);
      });

      it('refuses a duplicate id, an id that is not a UUID and an empty configuration', async () => {
        const store = await open();
        const id = randomUUID();
        await store.createRun({ id, configuration: 'c', createdAt: BASE });
        await expectStoreError(store.createRun({ id, configuration: 'other' }), 'invalid_input', /id/);
        expect((await store.getRun(id))?.configuration).toBe('c');
        await expectStoreError(store.createRun({ id: 'run-1', configuration: 'c' }), 'invalid_input', /CreateRunInput\.id/);
        await expectStoreError(store.createRun({ configuration: '' }), 'invalid_input', /CreateRunInput\.configuration/);
        expect((await store.listRuns()).runs).toHaveLength(1);
      });

      it('returns null for a run that does not exist', async () => {
        const store = await open();
        expect(await store.getRun(randomUUID())).toBeNull();
      });
    });
  });
}
