import type { ToolFailureCause, ToolOutcome } from '@runledger/core';
import { canPruneRuns, InMemoryRunStore, type PruningRunStore, type RunStore, type ServerHealth } from '@runledger/trace';
import { DURATION_HISTOGRAM_MAX_RELATIVE_ERROR, serverHealth } from '@runledger/trace/store';
import { describe, expect, it } from 'vitest';
import { BASE, contractStores, expectStoreError, listAll, llmStep, toolStep } from './contractSteps.js';
import type { RunStoreContractHarness } from './RunStoreContractHarness.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** The cutoff of the prunes below: runs that ended before it go. */
const CUTOFF = BASE + 2 * HOUR;
const SERVERS = ['alpha', 'beta', 'gamma'] as const;
const OUTCOMES: readonly ToolOutcome[] = ['ok', 'ok', 'ok', 'failed', 'cancelled'];
const CAUSES: readonly ToolFailureCause[] = ['server_error', 'mcp_timeout', 'invalid_arguments'];

interface Seeded {
  /** Ended before the cutoff: pruned. */
  readonly old: readonly string[];
  /** Running (created long before the cutoff), ended at the cutoff, ended after it: kept. */
  readonly kept: readonly string[];
  readonly running: string;
  readonly oldSteps: number;
}

/** A run made in memory, then imported: bulk steps without one append each. */
async function seedRun(
  store: RunStore,
  options: { createdAt: number; steps: number; spanMs: number; finishedAt: number | null; salt: number },
): Promise<string> {
  const source = InMemoryRunStore.create();
  const run = await source.createRun({ configuration: `c${options.salt % 3}`, createdAt: options.createdAt });
  for (let i = 0; i < options.steps; i++) {
    const at = options.createdAt + Math.floor((i * options.spanMs) / Math.max(1, options.steps));
    const k = i * 7 + options.salt;
    if (i % 10 === 9) {
      await source.appendStep(run.id, llmStep(at));
      continue;
    }
    const outcome = OUTCOMES[k % OUTCOMES.length]!;
    await source.appendStep(
      run.id,
      toolStep({
        server: SERVERS[k % SERVERS.length]!,
        outcome,
        createdAt: at,
        durationMs: 1 + ((k * 37) % 500) * (options.salt + 1),
        ...(outcome === 'failed' ? { cause: CAUSES[k % CAUSES.length]! } : {}),
      }),
    );
  }
  if (options.finishedAt !== null) await source.finishRun(run.id, { status: 'completed', finishedAt: options.finishedAt });
  expect(await store.importRun((await source.getRun(run.id))!, await source.readSteps(run.id))).toBe(true);
  return run.id;
}

/** Two old runs (one bigger than a small batch) and four kept ones whose steps share the old runs' buckets; > 2000 calls before and after. */
async function seed(store: RunStore): Promise<Seeded> {
  const oldA = await seedRun(store, { createdAt: BASE, steps: 1500, spanMs: 40 * MINUTE, finishedAt: BASE + 41 * MINUTE, salt: 1 });
  const oldB = await seedRun(store, {
    createdAt: BASE + 5 * MINUTE,
    steps: 300,
    spanMs: 90 * MINUTE,
    finishedAt: BASE + 100 * MINUTE,
    salt: 2,
  });
  const running = await seedRun(store, { createdAt: BASE, steps: 900, spanMs: 3 * HOUR, finishedAt: null, salt: 3 });
  const atCutoff = await seedRun(store, { createdAt: BASE + 10 * MINUTE, steps: 50, spanMs: HOUR, finishedAt: CUTOFF, salt: 4 });
  const straddling = await seedRun(store, {
    createdAt: BASE + 30 * MINUTE,
    steps: 900,
    spanMs: 2 * HOUR,
    finishedAt: BASE + 3 * HOUR,
    salt: 5,
  });
  const late = await seedRun(store, { createdAt: BASE + 3 * HOUR, steps: 400, spanMs: HOUR, finishedAt: BASE + 5 * HOUR, salt: 6 });
  return { old: [oldA, oldB], kept: [running, atCutoff, straddling, late], running, oldSteps: 1800 };
}

/** What a store that never held the pruned runs would say: trace's own definition over the steps left. */
async function healthOfSteps(
  store: RunStore,
  runIds: readonly string[],
  query: { since?: number; until?: number },
): Promise<ServerHealth[]> {
  const steps = (await Promise.all(runIds.map((id) => store.readSteps(id)))).flat();
  return serverHealth(steps, query);
}

/** Equal counts, causes and last failure; percentiles within the rollup histogram's error. */
function expectHealthClose(actual: readonly ServerHealth[], expected: readonly ServerHealth[]): void {
  expect(actual.map((h) => h.server)).toEqual(expected.map((h) => h.server));
  for (const [i, want] of expected.entries()) {
    const got = actual[i]!;
    const { p50DurationMs: gotP50, p95DurationMs: gotP95, ...gotRest } = got;
    const { p50DurationMs: wantP50, p95DurationMs: wantP95, ...wantRest } = want;
    expect(gotRest).toEqual(wantRest);
    for (const [g, w] of [
      [gotP50, wantP50],
      [gotP95, wantP95],
    ] as const) {
      if (w === null) expect(g).toBeNull();
      else expect(Math.abs(g! - w)).toBeLessThanOrEqual(w * DURATION_HISTOGRAM_MAX_RELATIVE_ERROR * 2 + 1e-9);
    }
  }
}

/** The store as one that prunes; a store without pruneRuns skips these tests (it is optional on RunStore). */
function pruning(store: RunStore, skip: (note: string) => void): PruningRunStore {
  if (!canPruneRuns(store)) skip('this store has no pruneRuns');
  return store as PruningRunStore;
}

/**
 * The retention part of the contract: pruneRuns deletes whole runs that ended before the cutoff,
 * never a running one; dry runs delete nothing; health stays what the steps left say. Called by
 * {@link runRunStoreContract}.
 */
export function runPruneContract(name: string, harness: RunStoreContractHarness): void {
  describe(`RunStore contract: ${name}`, () => {
    const { open } = contractStores(harness);

    // each test imports 4 000 steps in six runs and prunes 1 800 of them in one or two prunes (each
    // transaction's log synced): seconds on a quiet machine, more than vitest's 20 s once on a loaded CI one
    describe('pruneRuns', { timeout: 60_000 }, () => {
      it('deletes whole runs that ended before the cutoff and keeps running ones, ones that ended at or after it', async ({ skip }) => {
        const store = pruning(await open(), skip);
        const seeded = await seed(store);
        const keptBefore = await Promise.all(seeded.kept.map(async (id) => [await store.getRun(id), await store.readSteps(id)]));
        const result = await store.pruneRuns({ olderThan: CUTOFF });
        expect(result).toEqual({
          runs: 2,
          steps: seeded.oldSteps,
          oldestFinishedAt: BASE + 41 * MINUTE,
          newestFinishedAt: BASE + 100 * MINUTE,
          batches: result.batches,
          dryRun: false,
          complete: true,
        });
        expect(result.batches).toBeGreaterThanOrEqual(1);
        for (const id of seeded.old) {
          expect(await store.getRun(id)).toBeNull();
          expect(await store.readSteps(id)).toEqual([]);
        }
        const keptAfter = await Promise.all(seeded.kept.map(async (id) => [await store.getRun(id), await store.readSteps(id)]));
        expect(keptAfter).toEqual(keptBefore);
        expect((await listAll(store)).map((r) => r.id).sort()).toEqual([...seeded.kept].sort());
        // the running run goes on recording
        expect(await store.appendStep(seeded.running, llmStep(BASE + 6 * HOUR))).toBe(900);
      });

      it('deletes nothing on a dry run and reports the counts the prune then deletes', async ({ skip }) => {
        const store = pruning(await open(), skip);
        const seeded = await seed(store);
        const before = await listAll(store);
        const health = await store.serverHealth();
        const dry = await store.pruneRuns({ olderThan: CUTOFF, dryRun: true });
        expect(dry).toMatchObject({ runs: 2, steps: seeded.oldSteps, batches: 0, dryRun: true, complete: true });
        expect(await listAll(store)).toEqual(before);
        expect(await store.serverHealth()).toEqual(health);
        const real = await store.pruneRuns({ olderThan: CUTOFF });
        expect({ ...real, batches: 0, dryRun: true }).toEqual(dry);
      });

      it('is idempotent: a second prune with the same cutoff finds nothing', async ({ skip }) => {
        const store = pruning(await open(), skip);
        await seed(store);
        await store.pruneRuns({ olderThan: CUTOFF });
        const runs = await listAll(store);
        expect(await store.pruneRuns({ olderThan: CUTOFF })).toEqual({
          runs: 0,
          steps: 0,
          oldestFinishedAt: null,
          newestFinishedAt: null,
          batches: 0,
          dryRun: false,
          complete: true,
        });
        expect(await listAll(store)).toEqual(runs);
      });

      it('deletes in batches of whole runs: a small batch size deletes the same runs, a bigger run whole', async ({ skip }) => {
        const store = pruning(await open(), skip);
        const seeded = await seed(store);
        const result = await store.pruneRuns({ olderThan: CUTOFF, batchSize: 100 });
        expect(result).toMatchObject({ runs: 2, steps: seeded.oldSteps, complete: true });
        expect(result.batches).toBeGreaterThanOrEqual(2);
        for (const id of seeded.old) expect(await store.getRun(id)).toBeNull();
        expect((await listAll(store)).length).toBe(4);
      });

      it('keeps server health after the cutoff as it was, and before it what the steps left say', async ({ skip }) => {
        const store = pruning(await open(), skip);
        const seeded = await seed(store);
        const windows = [
          { since: CUTOFF },
          { since: BASE + 3 * HOUR, until: BASE + 4 * HOUR + 7 },
          { since: CUTOFF + 1234, until: BASE + 5 * HOUR },
        ];
        const after = await Promise.all(windows.map((w) => store.serverHealth(w)));
        await store.pruneRuns({ olderThan: CUTOFF, batchSize: 250 });
        expect(await Promise.all(windows.map((w) => store.serverHealth(w)))).toEqual(after);
        // windows over pruned time: the rollup (above 2000 calls) and the exact path (below)
        for (const window of [{}, { since: BASE, until: CUTOFF }, { since: BASE + 7 * MINUTE + 13, until: BASE + 23 * MINUTE }]) {
          expectHealthClose(await store.serverHealth(window), await healthOfSteps(store, seeded.kept, window));
        }
      });

      it('never shows a run in part while it is being pruned', async ({ skip }) => {
        const store = pruning(await open(), skip);
        const seeded = await seed(store);
        const [big] = seeded.old;
        let pruning_ = true;
        const seen: string[] = [];
        const reader = (async () => {
          while (pruning_) {
            const run = await store.getRun(big!);
            const steps = await store.readSteps(big!);
            // read one after the other, the run may go between the two reads: never a part of its steps
            if (run === null) seen.push(steps.length === 0 ? 'gone' : `orphan steps ${steps.length}`);
            else
              seen.push(steps.length === run.stepCount ? 'whole' : steps.length === 0 ? 'gone' : `part ${steps.length}/${run.stepCount}`);
            await new Promise((resolve) => setTimeout(resolve, 0));
          }
        })();
        const writer = (async () => {
          let n = 0;
          while (pruning_) {
            await store.appendStep(
              seeded.running,
              toolStep({ server: 'alpha', outcome: 'ok', createdAt: BASE + 4 * HOUR + n, durationMs: 3 }),
            );
            n++;
            // a recorder waits for its model and tools between steps
            await new Promise((resolve) => setTimeout(resolve, 0));
          }
          return n;
        })();
        await store.pruneRuns({ olderThan: CUTOFF, batchSize: 100 });
        pruning_ = false;
        await reader;
        const appended = await writer;
        expect(seen.filter((s) => s !== 'whole' && s !== 'gone')).toEqual([]);
        expect(await store.getRun(big!)).toBeNull();
        expect((await store.getRun(seeded.running))?.stepCount).toBe(900 + appended);
      });

      it('stops between batches when its signal is aborted', async ({ skip }) => {
        const store = pruning(await open(), skip);
        await seed(store);
        const controller = new AbortController();
        controller.abort();
        expect(await store.pruneRuns({ olderThan: CUTOFF, signal: controller.signal })).toMatchObject({ runs: 0, complete: false });
        expect((await listAll(store)).length).toBe(6);
      });

      it('refuses a bad cutoff, batch size or dry-run flag, naming the field', async ({ skip }) => {
        const store = pruning(await open(), skip);
        const run = await store.createRun({ configuration: 'c', createdAt: BASE });
        await store.finishRun(run.id, { status: 'completed', finishedAt: BASE + 1 });
        const bad: [unknown, RegExp][] = [
          [undefined, /PruneRunsQuery must be an object/],
          [{}, /PruneRunsQuery\.olderThan is required/],
          [{ olderThan: -1 }, /PruneRunsQuery\.olderThan must be integer milliseconds/],
          [{ olderThan: 1.5 }, /PruneRunsQuery\.olderThan/],
          [{ olderThan: '2026-01-01' }, /PruneRunsQuery\.olderThan/],
          [{ olderThan: BASE + 2, batchSize: 0 }, /PruneRunsQuery\.batchSize must be an integer from 1 to 100000/],
          [{ olderThan: BASE + 2, batchSize: 100_001 }, /PruneRunsQuery\.batchSize/],
          [{ olderThan: BASE + 2, batchSize: 2.5 }, /PruneRunsQuery\.batchSize/],
          [{ olderThan: BASE + 2, dryRun: 'yes' }, /PruneRunsQuery\.dryRun must be a boolean/],
        ];
        for (const [query, message] of bad) {
          await expectStoreError(store.pruneRuns(query as Parameters<PruningRunStore['pruneRuns']>[0]), 'invalid_input', message);
        }
        expect(await store.getRun(run.id)).not.toBeNull();
      });
    });
  });
}
