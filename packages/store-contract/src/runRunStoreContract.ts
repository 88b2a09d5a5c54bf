import { randomUUID } from 'node:crypto';
import { type ToolFailureCause, type ToolOutcome, ToolOutcome as Outcome } from '@runledger/core';
import {
  type AppendStepInput,
  InMemoryRunStore,
  type RunStatus,
  type RunStore,
  RunStoreError,
  type RunStoreErrorCode,
  type StoredRun,
  type StoredStep,
  isLateCancel,
  serverHealth,
} from '@runledger/trace';
import { afterEach, describe, expect, it } from 'vitest';
import { runInputRuleExamples } from './inputRules.examples.js';
import { runInputRulesContract } from './inputRules.property.js';
import type { RunStoreContractHarness } from './RunStoreContractHarness.js';

/** 2026-01-01T00:00:00Z: all explicit times of the suite are offsets from it. */
const BASE = 1_767_225_600_000;
const WATCH_TIMEOUT_MS = 5_000;

/** A tool step as the recorder appends it. */
function toolStep(options: {
  server: string | null;
  outcome: ToolOutcome | null;
  createdAt: number;
  durationMs?: number;
  toolName?: string;
  round?: number;
  /** Write the payload as before outcomes existed: only toolIsError, no toolOutcome, no toolServer. */
  legacy?: boolean;
  /** Why a failed call failed (recorded as the recorder does: toolFailureCause in the payload). */
  cause?: ToolFailureCause;
}): AppendStepInput {
  const toolName = options.toolName ?? `mcp_${options.server ?? 'unknown'}_lookup`;
  const isError = options.outcome === null ? undefined : options.outcome !== Outcome.OK;
  const payload: Record<string, unknown> = options.legacy
    ? { kind: 'tool', round: options.round ?? 0, durationMs: options.durationMs ?? 1, toolName, toolIsError: isError }
    : {
        kind: 'tool',
        round: options.round ?? 0,
        durationMs: options.durationMs ?? 1,
        toolName,
        ...(options.server === null ? {} : { toolServer: options.server }),
        toolIsError: isError,
        toolOutcome: options.outcome ?? undefined,
        ...(options.cause === undefined ? {} : { toolFailureCause: options.cause }),
      };
  return {
    kind: 'tool',
    round: options.round ?? 0,
    durationMs: options.durationMs ?? 1,
    createdAt: options.createdAt,
    payload,
    toolServer: options.legacy ? null : options.server,
    toolOutcome: options.legacy ? null : options.outcome,
  };
}

function llmStep(createdAt: number, extra: Record<string, unknown> = {}): AppendStepInput {
  return {
    kind: 'llm',
    round: 0,
    durationMs: 12.5,
    createdAt,
    payload: { kind: 'llm', round: 0, durationMs: 12.5, model: 'm', promptTokens: 10, ...extra },
    toolServer: null,
    toolOutcome: null,
  };
}

async function expectStoreError(promise: Promise<unknown>, code: RunStoreErrorCode, message?: RegExp): Promise<RunStoreError> {
  let caught: unknown;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  expect(caught, `expected a RunStoreError with code ${code}`).toBeDefined();
  expect(RunStoreError.is(caught), `expected a RunStoreError, got ${String(caught)}`).toBe(true);
  const error = caught as RunStoreError;
  expect(error.code).toBe(code);
  if (message) expect(error.message).toMatch(message);
  return error;
}

function waitFor(register: (done: () => void) => void, what: string, timeoutMs = WATCH_TIMEOUT_MS): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const started = Date.now();
    const timer = setTimeout(() => reject(new Error(`${what} did not happen within ${timeoutMs} ms`)), timeoutMs);
    register(() => {
      clearTimeout(timer);
      resolve(Date.now() - started);
    });
  });
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Newest first: createdAt descending, then id descending (code unit order). */
function newestFirst(a: { createdAt: number; id: string }, b: { createdAt: number; id: string }): number {
  if (a.createdAt !== b.createdAt) return b.createdAt - a.createdAt;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

async function listAll(store: RunStore, query: Parameters<RunStore['listRuns']>[0] = {}): Promise<StoredRun[]> {
  const runs: StoredRun[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 1000; page++) {
    const result = await store.listRuns({ ...query, cursor });
    runs.push(...result.runs);
    cursor = result.nextCursor;
    if (cursor === null) return runs;
  }
  throw new Error('listRuns never returned a last page');
}

/**
 * Defines the shared {@link RunStore} contract suite (vitest `describe`/`it` blocks) for one
 * store; a store's test file calls it once.
 *
 * @public
 */
export function runRunStoreContract(name: string, harness: RunStoreContractHarness): void {
  describe(`RunStore contract: ${name}`, () => {
    let opened: RunStore[] = [];

    async function open(): Promise<RunStore> {
      const store = await harness.open();
      opened.push(store);
      return store;
    }

    async function openPeer(): Promise<RunStore> {
      if (!harness.openPeer) throw new Error('the harness has no openPeer()');
      const store = await harness.openPeer();
      opened.push(store);
      return store;
    }

    const withPeer = harness.openPeer ? it : it.skip;

    afterEach(async () => {
      const stores = opened.reverse();
      opened = [];
      for (const store of stores) {
        await store.close().catch(() => undefined);
      }
      await harness.cleanup?.();
    });

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
          createdAt: BASE + 5,
          startedAt: BASE + 5,
          finishedAt: null,
          terminationReason: null,
          cancelRequestedAt: null,
          heartbeatAt: run.heartbeatAt,
          stepCount: 0,
          outcomeCounts: { ok: 0, failed: 0, cancelled: 0 },
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
        await expectStoreError(store.appendStep(run.id, { ...good, payload: [] as unknown as Record<string, unknown> }), 'invalid_input', /payload/);
        await expectStoreError(store.appendStep(run.id, { ...good, toolOutcome: 'timeout' as ToolOutcome }), 'invalid_input', /toolOutcome/);
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
        const runs = await Promise.all(Array.from({ length: 16 }, (_, i) => store.createRun({ configuration: `c${i}`, createdAt: BASE + i })));
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
        expect(done).toMatchObject({ status: 'completed', finishedAt: BASE + 100, terminationReason: 'all done' });
        const again = await store.finishRun(run.id, { status: 'failed', finishedAt: BASE + 200, terminationReason: 'boom', unstoredSteps: 3 });
        expect(again).toEqual(done);
        // a cancel after the finish changes nothing but is kept, as a late one
        const late = { ...done, cancelRequestedAt: BASE + 300 };
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

      withPeer("calls watchCancel when another store instance requests the cancel", async () => {
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
        const error = await expectStoreError(store.appendStep(run.id, { ...llmStep(BASE + 9), sequence: 0 }), 'sequence_conflict', /sequence 0/);
        expect(error.message).toContain(run.id);
        await expectStoreError(store.appendStep(run.id, { ...llmStep(BASE + 1), sequence: 5 }), 'invalid_input', /AppendStepInput\.sequence.*gap-free/);
        await expectStoreError(store.appendStep(run.id, { ...llmStep(BASE + 1), sequence: -1 }), 'invalid_input', /AppendStepInput\.sequence/);
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
          expect(done.terminationReason).toBe(
            status === 'cancelled'
              ? 'operator'
              : `cancel requested while the run was running (the run reported "${status}"${reason === null ? '' : `: ${reason}`})`,
          );
          expect(isLateCancel(done)).toBe(false);
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
        expect(late).toMatchObject({ status: 'completed', finishedAt: BASE + 20, cancelRequestedAt: BASE + 30, terminationReason: null });
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
        expect(cancelled?.terminationReason).toMatch(/^cancel requested; no sign of life since 2026-01-01T00:00:00\.000Z$/);
        expect(isLateCancel(cancelled!)).toBe(false);
        expect((await store.getRun(silent.id))?.status).toBe('interrupted');
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
        await expectStoreError(store.finishRun(other.id, { status: 'completed', unstoredSteps: -1 }), 'invalid_input', /FinishRunInput\.unstoredSteps/);
        await expectStoreError(store.finishRun(other.id, { status: 'completed', unstoredSteps: 1.5 }), 'invalid_input', /FinishRunInput\.unstoredSteps/);
        expect((await store.getRun(other.id))?.status).toBe('running');
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
          expect(typeof run?.terminationReason).toBe('string');
        }
        expect((await store.getRun(fresh.id))?.status).toBe('running');
        expect((await store.getRun(youngAndSilent.id))?.status).toBe('running');
        expect(await store.getRun(finished.id)).toEqual(done);
        expect(await store.recoverInterrupted(BASE + 2_000)).toEqual([]);
        const interrupted = await store.listRuns({ status: 'interrupted' });
        expect(interrupted.runs.map((r) => r.id).sort()).toEqual([stale.id, neverBeat.id].sort());
      });
    });

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
        expect(odd.map((r) => r.id)).toEqual([...created].filter((r) => r.configuration === 'odd').sort(newestFirst).map((r) => r.id));

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
          [one.id, toolStep({ server: 'alpha', outcome: 'failed', createdAt: t(1500), durationMs: 60, toolName: 'mcp_alpha_lookup', legacy: true })],
          [one.id, toolStep({ server: 'alpha', outcome: 'ok', createdAt: t(1600), durationMs: 70, toolName: 'mcp_alpha_get_item', legacy: true })],
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
          failureCauses: [{ cause: 'invalid_arguments', calls: 2 }],
          answered: 3,
          failureRate: 0,
          lastFailureAt: null,
          p50DurationMs: 3,
          p95DurationMs: 4,
          flaky: false,
          tooFewCalls: true,
        });
        expect(zeta).toMatchObject({ calls: 1, ok: 1, failureRate: 0, p50DurationMs: 1, p95DurationMs: 1, flaky: false, tooFewCalls: true });
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

      it('agrees with the pure serverHealth over the same rows', async () => {
        const store = await open();
        await seedHealth(store);
        const run = await store.createRun({ configuration: 'c', createdAt: BASE });
        const outcomes: ToolOutcome[] = ['ok', 'failed', 'cancelled'];
        const causes: (ToolFailureCause | undefined)[] = [undefined, 'server_error', 'invalid_arguments', 'mcp_timeout', 'mcp_transport_failure'];
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
  runInputRuleExamples(name, harness);
  runInputRulesContract(name, harness);
}
