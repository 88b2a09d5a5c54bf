import type { ToolOutcome } from '@runledger/core';
import type { RunStore, RunStatus, StoredRun } from '@runledger/trace';
import { describe, expect, it } from 'vitest';
import { BASE, contractStores, expectStoreError, listAll, llmStep, newestFirst, toolStep } from './contractSteps.js';
import type { RunStoreContractHarness } from './RunStoreContractHarness.js';

/**
 * The run listing part of the contract: order, filters, keyset paging. Called by {@link runRunStoreContract}.
 */
export function runListRunsContract(name: string, harness: RunStoreContractHarness): void {
  describe(`RunStore contract: ${name}`, () => {
    const { open } = contractStores(harness);

    describe('listRuns', () => {
      async function seed(store: RunStore): Promise<Record<string, StoredRun>> {
        const make = async (key: string, configuration: string, createdAt: number): Promise<[string, StoredRun]> => [
          key,
          await store.createRun({ configuration, createdAt }),
        ];
        const runs = Object.fromEntries(
          await Promise.all([
            make('a', 'support', BASE + 100),
            make('b', 'support', BASE + 200),
            make('c', 'research', BASE + 300),
            make('d', 'research', BASE + 400),
            make('e', 'support', BASE + 500),
            make('f', 'support', BASE + 600),
          ]),
        );
        await store.appendStep(runs.a!.id, toolStep({ server: 's', outcome: 'ok', createdAt: BASE + 101 }));
        await store.appendStep(runs.b!.id, toolStep({ server: 's', outcome: 'failed', createdAt: BASE + 201 }));
        await store.appendStep(runs.b!.id, toolStep({ server: 's', outcome: 'ok', createdAt: BASE + 202 }));
        await store.appendStep(runs.c!.id, toolStep({ server: 's', outcome: 'cancelled', createdAt: BASE + 301 }));
        // a legacy row: outcome only in the payload's toolIsError
        await store.appendStep(runs.d!.id, toolStep({ server: 's', outcome: 'failed', createdAt: BASE + 401, legacy: true }));
        await store.appendStep(runs.e!.id, llmStep(BASE + 501, { toolIsError: true }));
        await store.finishRun(runs.a!.id, { status: 'completed', finishedAt: BASE + 150 });
        await store.finishRun(runs.b!.id, { status: 'failed', finishedAt: BASE + 250 });
        await store.finishRun(runs.c!.id, { status: 'cancelled', finishedAt: BASE + 350 });
        return runs;
      }

      it('lists newest first with outcome counts, legacy rows included', async () => {
        const store = await open();
        const runs = await seed(store);
        const page = await store.listRuns();
        expect(page.runs.map((r) => r.id)).toEqual(['f', 'e', 'd', 'c', 'b', 'a'].map((k) => runs[k]!.id));
        expect(page.nextCursor).toBeNull();
        const byId = new Map(page.runs.map((r) => [r.id, r]));
        expect(byId.get(runs.b!.id)?.outcomeCounts).toEqual({ ok: 1, failed: 1, cancelled: 0 });
        expect(byId.get(runs.d!.id)?.outcomeCounts).toEqual({ ok: 0, failed: 1, cancelled: 0 });
        expect(byId.get(runs.e!.id)?.outcomeCounts).toEqual({ ok: 0, failed: 0, cancelled: 0 });
        expect(byId.get(runs.e!.id)?.stepCount).toBe(1);
        expect(byId.get(runs.b!.id)).toEqual(await store.getRun(runs.b!.id));
      });

      it('filters by status, configuration, outcome and time range, alone and together', async () => {
        const store = await open();
        const runs = await seed(store);
        const ids = async (query: Parameters<RunStore['listRuns']>[0]): Promise<string[]> => {
          const page = await store.listRuns(query);
          return page.runs.map((r) => Object.keys(runs).find((k) => runs[k]!.id === r.id)!);
        };
        expect(await ids({ status: 'running' })).toEqual(['f', 'e', 'd']);
        expect(await ids({ status: ['completed', 'cancelled'] })).toEqual(['c', 'a']);
        expect(await ids({ status: [] as RunStatus[] })).toEqual([]);
        expect(await ids({ configuration: 'research' })).toEqual(['d', 'c']);
        expect(await ids({ configuration: 'nope' })).toEqual([]);
        expect(await ids({ hasOutcome: 'failed' })).toEqual(['d', 'b']);
        expect(await ids({ hasOutcome: 'ok' })).toEqual(['b', 'a']);
        expect(await ids({ hasOutcome: 'cancelled' })).toEqual(['c']);
        expect(await ids({ createdFrom: BASE + 200, createdTo: BASE + 500 })).toEqual(['d', 'c', 'b']);
        expect(await ids({ createdFrom: BASE + 600 })).toEqual(['f']);
        expect(await ids({ createdTo: BASE + 100 })).toEqual([]);
        expect(await ids({ configuration: 'support', status: 'running', createdFrom: BASE + 500 })).toEqual(['f', 'e']);
        expect(await ids({ configuration: 'support', hasOutcome: 'failed' })).toEqual(['b']);
        expect(await ids({ limit: 2, status: 'running' })).toEqual(['f', 'e']);
      });

      it('refuses a malformed cursor, limit or filter with invalid_input', async () => {
        const store = await open();
        await seed(store);
        await expectStoreError(store.listRuns({ cursor: 'not a cursor' }), 'invalid_input', /cursor/);
        await expectStoreError(store.listRuns({ cursor: 'eyJ4IjoxfQ' }), 'invalid_input', /cursor/);
        await expectStoreError(store.listRuns({ limit: 0 }), 'invalid_input', /limit/);
        await expectStoreError(store.listRuns({ status: 'paused' as RunStatus }), 'invalid_input', /status/);
        await expectStoreError(store.listRuns({ hasOutcome: 'timeout' as ToolOutcome }), 'invalid_input', /hasOutcome/);
      });

      it('pages through a few hundred runs with keyset cursors, without duplicates or gaps', async () => {
        const store = await open();
        const created: StoredRun[] = [];
        // 300 runs, three per millisecond, so the id decides the order within each millisecond
        for (let batch = 0; batch < 300; batch += 50) {
          created.push(
            ...(await Promise.all(
              Array.from({ length: 50 }, (_, i) =>
                store.createRun({ configuration: (batch + i) % 2 === 0 ? 'even' : 'odd', createdAt: BASE + Math.floor((batch + i) / 3) }),
              ),
            )),
          );
        }
        const expected = [...created].sort(newestFirst).map((r) => r.id);

        const firstPage = await store.listRuns();
        expect(firstPage.runs).toHaveLength(50);
        expect(firstPage.runs.map((r) => r.id)).toEqual(expected.slice(0, 50));
        expect(typeof firstPage.nextCursor).toBe('string');
        expect((await store.listRuns({ limit: 1000 })).runs).toHaveLength(200);

        const seen: string[] = [];
        let cursor: string | null = null;
        let pages = 0;
        do {
          const page = await store.listRuns({ limit: 37, cursor });
          expect(page.runs.length).toBeLessThanOrEqual(37);
          seen.push(...page.runs.map((r) => r.id));
          cursor = page.nextCursor;
          pages++;
          // a run created between pages is newer than every cursor: it never shifts later pages
          if (pages === 2) await store.createRun({ configuration: 'even', createdAt: BASE + 10_000 });
        } while (cursor !== null);
        expect(pages).toBe(Math.ceil(300 / 37));
        expect(seen).toEqual(expected);

        const odd = await listAll(store, { configuration: 'odd', limit: 40 });
        expect(odd.map((r) => r.id)).toEqual(
          [...created]
            .filter((r) => r.configuration === 'odd')
            .sort(newestFirst)
            .map((r) => r.id),
        );

        const exact = await store.listRuns({ limit: 101, configuration: 'odd', createdTo: BASE + 10_000 });
        expect(exact.runs).toHaveLength(101);
        const rest = await store.listRuns({ limit: 101, configuration: 'odd', createdTo: BASE + 10_000, cursor: exact.nextCursor });
        expect(rest.runs).toHaveLength(49);
        expect(rest.nextCursor).toBeNull();
      });

      it('returns nextCursor null when the last page is exactly full', async () => {
        const store = await open();
        for (let i = 0; i < 4; i++) await store.createRun({ configuration: 'c', createdAt: BASE + i });
        const first = await store.listRuns({ limit: 2 });
        const second = await store.listRuns({ limit: 2, cursor: first.nextCursor });
        expect(second.runs).toHaveLength(2);
        expect(second.nextCursor).toBeNull();
        expect((await store.listRuns({ limit: 4 })).nextCursor).toBeNull();
      });
    });
  });
}
