import {
  InMemoryRunStore,
  type RunStore,
  type AppendStepInput,
  type RunStatus,
  RunStoreError,
  type StoredRun,
  type StoredStep,
} from '@runledger/trace';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunStoreContractHarness } from './RunStoreContractHarness.js';
import {
  anyCursor,
  anyNumber,
  anyText,
  BASE,
  goodDuration,
  goodRound,
  goodText,
  goodTime,
  mostly,
  oddPayload,
  outcome,
  type PayloadMaker,
  payloadMaker,
  uuidOf,
} from './inputArbitraries.js';

/**
 * The seed of every property: each store runs exactly the same generated inputs, so "every store
 * refuses or accepts alike" is checked across all of them, each compared to the in-memory
 * reference. A failure prints the seed and the shrunk counterexample.
 */
const SEED = Number(process.env['RUNLEDGER_INPUT_SEED'] ?? 20_261_130);
/** Few enough to keep the suite at a second or two per store; raise with RUNLEDGER_INPUT_RUNS to explore. */
const NUM_RUNS = Number(process.env['RUNLEDGER_INPUT_RUNS'] ?? 60);

// --- comparing verdicts ---------------------------------------------------------------------------

/** How many actions of the current property both stores accepted and both refused: neither may stay near 0. */
const tally = { accepted: 0, refused: 0 };

/** Fails when a property tested only one side of the rules (all inputs refused, or all accepted). */
function expectBothSides(): void {
  expect(tally.accepted, 'accepted actions (a property must test values that are kept)').toBeGreaterThanOrEqual(NUM_RUNS / 5);
  expect(tally.refused, 'refused actions (a property must test values that are refused)').toBeGreaterThanOrEqual(NUM_RUNS / 5);
}

type Verdict<T> =
  { readonly accepted: true; readonly value: T } | { readonly accepted: false; readonly code: string; readonly message: string };

async function attempt<T>(action: () => Promise<T>): Promise<Verdict<T>> {
  try {
    return { accepted: true, value: await action() };
  } catch (error) {
    if (RunStoreError.is(error)) return { accepted: false, code: error.code, message: error.message };
    return { accepted: false, code: `not a RunStoreError (${error instanceof Error ? error.name : typeof error})`, message: String(error) };
  }
}

/**
 * Runs one action on the in-memory reference and on the store under test: both refuse with the
 * same code and message, or both accept. Returns the store's value, or null when refused; with
 * `same`, an accepted value must also equal the reference's (for reads).
 */
async function alike<T>(
  what: string,
  store: RunStore,
  reference: RunStore,
  action: (s: RunStore) => Promise<T>,
  same = false,
): Promise<{ value: T } | null> {
  const expected = await attempt(() => action(reference));
  const actual = await attempt(() => action(store));
  if (!expected.accepted) {
    expect(actual, `${what}: both must refuse with the same error`).toEqual({
      accepted: false,
      code: expected.code,
      message: expected.message,
    });
    expect(expected.code, `${what}: a refusal of an input is invalid_input`).toBe('invalid_input');
    tally.refused++;
    return null;
  }
  if (!actual.accepted) throw new Error(`${what}: the reference accepted, the store refused with ${actual.code}: ${actual.message}`);
  if (same) expect(actual.value, `${what}: the store must read what the reference reads`).toEqual(expected.value);
  tally.accepted++;
  return { value: actual.value };
}

/** −0 reads back as 0; every other accepted number reads back as given. */
const n0 = (value: number): number => value + 0;

/**
 * Generated inputs against one store and the in-memory reference: every string, number and cursor
 * is either refused by both with the identical `invalid_input` error, or accepted by both and read
 * back exactly as given. Called by {@link runRunStoreContract}.
 */
export function runInputRulesContract(name: string, harness: RunStoreContractHarness): void {
  describe(`RunStore input rules (generated, seed ${SEED}): ${name}`, () => {
    let opened: RunStore[] = [];
    let next = 1;

    async function open(): Promise<{ store: RunStore; reference: RunStore }> {
      const store = await harness.open();
      const reference = InMemoryRunStore.create();
      opened.push(store, reference);
      tally.accepted = 0;
      tally.refused = 0;
      return { store, reference };
    }

    afterEach(async () => {
      const stores = opened.reverse();
      opened = [];
      for (const store of stores) await store.close().catch(() => undefined);
      await harness.cleanup?.();
    });

    it('run fields: configuration, actor, title, times and termination reason', async () => {
      const { store, reference } = await open();
      await fc.assert(
        fc.asyncProperty(
          fc.record({
            configuration: mostly(goodText, anyText),
            actor: fc.option(mostly(goodText, anyText), { nil: null }),
            title: fc.option(mostly(goodText, anyText), { nil: null }),
            createdAt: mostly(goodTime, anyNumber),
            heartbeatAt: mostly(goodTime, anyNumber),
            cancelAt: mostly(goodTime, anyNumber),
            finishedAt: mostly(goodTime, anyNumber),
            reason: fc.option(mostly(goodText, anyText), { nil: null }),
            from: fc.option(mostly(goodTime, anyNumber), { nil: undefined }),
            to: fc.option(mostly(goodTime, anyNumber), { nil: undefined }),
          }),
          async (input) => {
            const id = uuidOf(next++);
            const created = await alike('createRun', store, reference, (s) =>
              s.createRun({ id, configuration: input.configuration, actor: input.actor, title: input.title, createdAt: input.createdAt }),
            );
            await alike(
              'listRuns',
              store,
              reference,
              async (s) =>
                (
                  await s.listRuns({ configuration: input.configuration, createdFrom: input.from, createdTo: input.to, limit: 200 })
                ).runs.map((run) => run.id),
              true,
            );
            if (created === null) return;
            expect(created.value).toMatchObject({
              id,
              configuration: input.configuration,
              actor: input.actor,
              title: input.title,
              createdAt: n0(input.createdAt),
              startedAt: n0(input.createdAt),
            });
            expect(await store.getRun(id)).toEqual(created.value);

            const beat = await alike('heartbeat', store, reference, (s) => s.heartbeat(id, input.heartbeatAt));
            if (beat !== null) expect((await store.getRun(id))?.heartbeatAt).toBe(n0(input.heartbeatAt));
            const cancel = await alike('requestCancel', store, reference, (s) => s.requestCancel(id, input.cancelAt));
            if (cancel !== null) expect((await store.getRun(id))?.cancelRequestedAt).toBe(n0(input.cancelAt));
            const finished = await alike('finishRun', store, reference, (s) =>
              s.finishRun(id, { status: 'failed', finishedAt: input.finishedAt, terminationReason: input.reason }),
            );
            if (finished !== null) {
              // a cancel that landed first decides (the store's rule): cancelled, saying what the run reported
              expect(finished.value).toMatchObject(
                cancel === null
                  ? {
                      status: 'failed',
                      finishedAt: n0(input.finishedAt),
                      termination: input.reason === null ? null : { kind: 'other', text: input.reason },
                    }
                  : {
                      status: 'cancelled',
                      finishedAt: n0(input.finishedAt),
                      termination: { kind: 'cancel_while_running', reported: 'failed', reason: input.reason },
                    },
              );
              expect(await store.getRun(id)).toEqual(finished.value);
              expect(await store.getRun(id)).toEqual(await reference.getRun(id));
            }
          },
        ),
        { seed: SEED, numRuns: NUM_RUNS },
      );
      expectBothSides();
    });

    it('step fields: kind, round, duration, time, server and payload text; step reads and health windows', async () => {
      const { store, reference } = await open();
      await fc.assert(
        fc.asyncProperty(
          fc.record({
            kind: mostly(fc.oneof(fc.constant('tool'), goodText), anyText),
            round: mostly(goodRound, anyNumber),
            durationMs: mostly(goodDuration, anyNumber),
            createdAt: mostly(goodTime, anyNumber),
            toolServer: fc.option(mostly(goodText, anyText), { nil: null }),
            toolOutcome: outcome,
            note: anyText,
            fromSequence: fc.option(mostly(goodRound, anyNumber), { nil: undefined }),
            limit: fc.option(mostly(goodRound, anyNumber), { nil: undefined }),
            since: fc.option(mostly(goodTime, anyNumber), { nil: undefined }),
            until: fc.option(mostly(goodTime, anyNumber), { nil: undefined }),
          }),
          async (input) => {
            const id = uuidOf(next++);
            for (const s of [store, reference]) await s.createRun({ id, configuration: 'steps', createdAt: BASE });
            const step: AppendStepInput = {
              kind: input.kind,
              round: input.round,
              durationMs: input.durationMs,
              createdAt: input.createdAt,
              payload: { kind: input.kind, note: input.note },
              toolServer: input.toolServer,
              toolOutcome: input.kind === 'tool' ? input.toolOutcome : null,
            };
            const appended = await alike('appendStep', store, reference, (s) => s.appendStep(id, step));
            if (appended !== null) {
              expect(appended.value).toBe(0);
              const expected: StoredStep = {
                runId: id,
                sequence: 0,
                kind: input.kind,
                round: n0(input.round),
                durationMs: n0(input.durationMs),
                createdAt: n0(input.createdAt),
                payload: JSON.stringify(step.payload),
                toolServer: input.toolServer,
                toolOutcome: step.toolOutcome,
              };
              expect(await store.readSteps(id)).toEqual([expected]);
            }
            await alike(
              'readSteps',
              store,
              reference,
              (s) => s.readSteps(id, { fromSequence: input.fromSequence, limit: input.limit }),
              true,
            );
            await alike(
              'serverHealth',
              store,
              reference,
              async (s) =>
                (await s.serverHealth({ since: input.since, until: input.until })).map((h) => [h.server, h.ok, h.failed, h.cancelled]),
              true,
            );
          },
        ),
        { seed: SEED, numRuns: NUM_RUNS },
      );
      expectBothSides();
    });

    it('payloads: what JSON.stringify makes of one decides, alike in every store, with appends of several runs at once', async () => {
      const { store, reference } = await open();
      const anyPayload: fc.Arbitrary<PayloadMaker> = fc.oneof(
        fc
          .record({ note: anyText, json: fc.jsonValue({ maxDepth: 2 }) })
          .map((payload) => payloadMaker(fc.stringify(payload), () => payload)),
        fc
          .record({ kind: fc.constant('tool'), toolName: goodText, toolCallId: goodText })
          .map((payload) => payloadMaker(fc.stringify(payload), () => payload)),
        oddPayload,
      );
      await fc.assert(
        fc.asyncProperty(fc.array(anyPayload, { minLength: 1, maxLength: 4 }), async (makers) => {
          const payloads = makers.map((make) => make());
          const ids = payloads.map(() => uuidOf(next++));
          const steps = payloads.map((payload): AppendStepInput => ({
            kind: 'llm',
            round: 0,
            durationMs: 1,
            createdAt: BASE,
            payload: payload as Record<string, unknown>,
            toolServer: null,
            toolOutcome: null,
          }));
          for (const s of [store, reference])
            await Promise.all(ids.map((id) => s.createRun({ id, configuration: 'payloads', createdAt: BASE })));
          const expected: Verdict<number>[] = [];
          for (const [i, id] of ids.entries()) expected.push(await attempt(() => reference.appendStep(id, steps[i]!)));
          // at once, as runs record: a store that batches appends puts them in one batch
          const actual = await Promise.all(ids.map((id, i) => attempt(() => store.appendStep(id, steps[i]!))));
          for (const [i, id] of ids.entries()) {
            const verdict = expected[i]!;
            if (verdict.accepted) {
              expect(actual[i], `appendStep ${i}: the reference accepted`).toEqual(verdict);
              expect(await store.readSteps(id)).toEqual(await reference.readSteps(id));
              expect((await store.readSteps(id))[0]?.payload).toBe(JSON.stringify(payloads[i]));
              tally.accepted++;
            } else {
              expect(actual[i], `appendStep ${i}: both must refuse with the same error`).toEqual(verdict);
              expect(verdict.code, `appendStep ${i}: a refusal of an input is invalid_input`).toBe('invalid_input');
              expect(await store.readSteps(id)).toEqual([]);
              tally.refused++;
            }
          }
        }),
        { seed: SEED, numRuns: NUM_RUNS },
      );
      expectBothSides();
    });

    it('cursors: made by listRuns, crafted, or broken', async () => {
      const { store, reference } = await open();
      for (const s of [store, reference]) {
        for (let n = 0; n < 6; n++) await s.createRun({ id: uuidOf(n), configuration: 'paged', createdAt: BASE + (n % 3) });
      }
      await fc.assert(
        fc.asyncProperty(anyCursor, fc.option(anyNumber, { nil: undefined }), async (cursor, limit) => {
          await alike(
            'listRuns',
            store,
            reference,
            async (s) => {
              const result = await s.listRuns({ cursor, limit });
              return { ids: result.runs.map((run) => run.id), nextCursor: result.nextCursor };
            },
            true,
          );
        }),
        { seed: SEED, numRuns: NUM_RUNS },
      );
      expectBothSides();
    });

    it('recoverInterrupted: one time rule for staleBefore', async () => {
      const { store, reference } = await open();
      await fc.assert(
        fc.asyncProperty(anyNumber, async (staleBefore) => {
          const id = uuidOf(next++);
          for (const s of [store, reference]) await s.createRun({ id, configuration: 'stale', createdAt: BASE });
          const recovered = await alike(
            'recoverInterrupted',
            store,
            reference,
            async (s) => [...(await s.recoverInterrupted(staleBefore))].sort(),
            true,
          );
          if (recovered !== null) expect((await store.getRun(id))?.status).toBe(BASE < staleBefore ? 'interrupted' : 'running');
        }),
        { seed: SEED, numRuns: NUM_RUNS },
      );
      expectBothSides();
    });

    it('run ids: one rule for every method (a string; any case of a UUID finds the run)', async () => {
      const { store, reference } = await open();
      const id = uuidOf(next++);
      for (const s of [store, reference]) await s.createRun({ id, configuration: 'ids', createdAt: BASE });
      const anyRunId: fc.Arbitrary<unknown> = fc.oneof(
        { arbitrary: fc.constantFrom(id, id.toUpperCase(), id.replace(/0/g, 'A').toLowerCase(), uuidOf(next + 1_000)), weight: 3 },
        { arbitrary: anyText, weight: 2 },
        { arbitrary: fc.oneof(anyNumber, fc.constantFrom(null, undefined, true), fc.jsonValue()), weight: 4 },
      );
      await fc.assert(
        fc.asyncProperty(anyRunId, async (runId) => {
          const given = runId as string;
          await alike('getRun', store, reference, (s) => s.getRun(given), true);
          await alike('readSteps', store, reference, (s) => s.readSteps(given), true);
          await alike('heartbeat', store, reference, (s) => s.heartbeat(given, BASE + 1), true);
        }),
        { seed: SEED, numRuns: NUM_RUNS },
      );
      expectBothSides();
    });

    it('importRun: every run and step field', async () => {
      const { store, reference } = await open();
      const good = {
        status: fc.constantFrom<RunStatus>('running', 'completed', 'failed', 'cancelled', 'interrupted'),
        configuration: goodText,
        actor: fc.option(goodText, { nil: null }),
        title: fc.option(goodText, { nil: null }),
        createdAt: goodTime,
        startedAt: fc.option(goodTime, { nil: null }),
        finishedAt: fc.option(goodTime, { nil: null }),
        terminationReason: fc.option(goodText, { nil: null }),
        cancelRequestedAt: fc.option(goodTime, { nil: null }),
        heartbeatAt: fc.option(goodTime, { nil: null }),
        kind: goodText,
        round: goodRound,
        durationMs: goodDuration,
        stepCreatedAt: goodTime,
        payload: goodText,
        toolServer: fc.option(goodText, { nil: null }),
      };
      type Field = keyof typeof good;
      const texts: Field[] = ['configuration', 'actor', 'title', 'terminationReason', 'kind', 'payload', 'toolServer'];
      const times: Field[] = ['createdAt', 'startedAt', 'finishedAt', 'cancelRequestedAt', 'heartbeatAt', 'stepCreatedAt'];
      // a whole good record, then one field (or none) replaced by anything
      const broken = fc.oneof(
        fc.tuple(fc.constantFrom(...texts), anyText),
        fc.tuple(fc.constantFrom(...times, 'round', 'durationMs'), anyNumber),
      );
      await fc.assert(
        fc.asyncProperty(
          fc
            .tuple(fc.record(good), fc.option(broken, { nil: null }))
            .map(([record, replaced]) => (replaced === null ? record : { ...record, [replaced[0]]: replaced[1] })),
          async (input) => {
            const id = uuidOf(next++);
            const run: StoredRun = {
              id,
              status: input.status,
              configuration: input.configuration,
              actor: input.actor,
              title: input.title,
              createdAt: input.createdAt,
              startedAt: input.startedAt,
              finishedAt: input.finishedAt,
              terminationReason: input.terminationReason,
              cancelRequestedAt: input.cancelRequestedAt,
              heartbeatAt: input.heartbeatAt,
              stepCount: 1,
              outcomeCounts: { ok: 0, failed: 0, cancelled: 0 },
              tokens: 0,
              unstoredSteps: 0,
            };
            const step: StoredStep = {
              runId: id,
              sequence: 0,
              kind: input.kind,
              round: input.round,
              durationMs: input.durationMs,
              createdAt: input.stepCreatedAt,
              payload: input.payload,
              toolServer: input.toolServer,
              toolOutcome: null,
            };
            const imported = await alike('importRun', store, reference, (s) => s.importRun(run, [step]));
            if (imported === null) return;
            expect(imported.value).toBe(true);
            const orNull = (value: number | null): number | null => (value === null ? null : n0(value));
            expect(await store.getRun(id)).toEqual({
              ...run,
              createdAt: n0(run.createdAt),
              startedAt: orNull(run.startedAt),
              finishedAt: orNull(run.finishedAt),
              cancelRequestedAt: orNull(run.cancelRequestedAt),
              heartbeatAt: orNull(run.heartbeatAt),
              // words given without a kind read as the run's own reason
              termination: run.terminationReason === null ? null : { kind: 'other', text: run.terminationReason },
            });
            expect(await store.readSteps(id)).toEqual([
              { ...step, round: n0(step.round), durationMs: n0(step.durationMs), createdAt: n0(step.createdAt) },
            ]);
          },
        ),
        { seed: SEED, numRuns: NUM_RUNS },
      );
      expectBothSides();
    });
  });
}
