import { describe, expect, it } from 'vitest';
import { BASE, contractStores } from './contractSteps.js';
import type { RunStoreContractHarness } from './RunStoreContractHarness.js';
import { RunStoreError } from '@runledger/trace';

const TIME_RULE = 'integer milliseconds since the epoch from 0 to 8640000000000000';

async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (!RunStoreError.is(error)) throw error;
    return { code: error.code, message: error.message };
  }
  throw new Error('expected a refusal, but the store accepted');
}

function invalid(message: string): { code: string; message: string } {
  return { code: 'invalid_input', message };
}

function encodeCursor(createdAt: number, id: string): string {
  return Buffer.from(JSON.stringify([createdAt, id]), 'utf8').toString('base64url');
}

/**
 * The inputs issue 11 found treated differently by different stores, each with the one answer
 * every store now gives. Called by {@link runRunStoreContract}.
 */
export function runInputRuleExamples(name: string, harness: RunStoreContractHarness): void {
  describe(`RunStore input rules (examples): ${name}`, () => {
    const { open } = contractStores(harness);

    it('refuses NUL in a configuration and in a termination reason (PostgreSQL text cannot hold it)', async () => {
      const store = await open();
      expect(await refusal(store.createRun({ configuration: 'a\0b', createdAt: BASE }))).toEqual(
        invalid('CreateRunInput.configuration must not contain NUL (U+0000), found at index 1, got "a\\u0000b"'),
      );
      const run = await store.createRun({ configuration: 'c', createdAt: BASE });
      expect(await refusal(store.finishRun(run.id, { status: 'failed', finishedAt: BASE + 1, terminationReason: 'boom\0' }))).toEqual(
        invalid('FinishRunInput.terminationReason must not contain NUL (U+0000), found at index 4, got "boom\\u0000"'),
      );
      expect((await store.getRun(run.id))?.status).toBe('running');
      expect(await refusal(store.listRuns({ configuration: '\0' }))).toEqual(
        invalid('RunQuery.configuration must not contain NUL (U+0000), found at index 0, got "\\u0000"'),
      );
    });

    it('refuses lone surrogates and keeps emoji, controls and other well-formed text exactly', async () => {
      const store = await open();
      expect(await refusal(store.createRun({ configuration: 'x\uD800', createdAt: BASE }))).toEqual(
        invalid('CreateRunInput.configuration must be well-formed UTF-16 (no lone surrogate), found U+D800 at index 1, got "x\\ud800"'),
      );
      expect(await refusal(store.createRun({ configuration: 'c', actor: '\uDC00a', createdAt: BASE }))).toEqual(
        invalid('CreateRunInput.actor must be well-formed UTF-16 (no lone surrogate), found U+DC00 at index 0, got "\\udc00a"'),
      );
      const text = '😀 👩‍👩‍👧 \u0001\u001F\u007F \uFEFF\uFFFF ä';
      const run = await store.createRun({ configuration: text, actor: text, createdAt: BASE });
      const finished = await store.finishRun(run.id, { status: 'failed', finishedAt: BASE + 1, terminationReason: text });
      expect(finished).toMatchObject({ configuration: text, actor: text, terminationReason: text });
      expect(await store.getRun(run.id)).toEqual(finished);
      const run2 = await store.createRun({ configuration: 'c', createdAt: BASE });
      expect(
        await refusal(
          store.appendStep(run2.id, {
            kind: 'tool',
            round: 0,
            durationMs: 1,
            createdAt: BASE,
            payload: {},
            toolServer: 'gh\uDBFF',
            toolOutcome: 'ok',
          }),
        ),
      ).toEqual(
        invalid('AppendStepInput.toolServer must be well-formed UTF-16 (no lone surrogate), found U+DBFF at index 2, got "gh\\udbff"'),
      );
    });

    it('keeps round 2^31−1 and refuses 2^31 (PostgreSQL integer)', async () => {
      const store = await open();
      const run = await store.createRun({ configuration: 'c', createdAt: BASE });
      const step = { kind: 'llm', durationMs: 1, createdAt: BASE, payload: {}, toolServer: null, toolOutcome: null };
      expect(await refusal(store.appendStep(run.id, { ...step, round: 2 ** 31 }))).toEqual(
        invalid('AppendStepInput.round must be an integer from 0 to 2147483647, got 2147483648'),
      );
      expect(await store.appendStep(run.id, { ...step, round: 2 ** 31 - 1 })).toBe(0);
      expect((await store.readSteps(run.id))[0]?.round).toBe(2 ** 31 - 1);
      expect(await refusal(store.readSteps(run.id, { fromSequence: 2 ** 31 }))).toEqual(
        invalid('StepQuery.fromSequence must be an integer from 0 to 2147483647, got 2147483648'),
      );
    });

    it('keeps times up to 8.64e15 ms and refuses 2^63, 1e300 and fractions (PostgreSQL bigint, whole ms)', async () => {
      const store = await open();
      expect(await refusal(store.createRun({ configuration: 'c', createdAt: 2 ** 63 }))).toEqual(
        invalid(`CreateRunInput.createdAt must be ${TIME_RULE}, got 9223372036854776000`),
      );
      expect(await refusal(store.createRun({ configuration: 'c', createdAt: 1e300 }))).toEqual(
        invalid(`CreateRunInput.createdAt must be ${TIME_RULE}, got 1e+300`),
      );
      expect(await refusal(store.createRun({ configuration: 'c', createdAt: BASE + 0.5 }))).toEqual(
        invalid(`CreateRunInput.createdAt must be ${TIME_RULE}, got ${BASE + 0.5}`),
      );
      const latest = await store.createRun({ configuration: 'c', createdAt: 8.64e15 });
      expect((await store.getRun(latest.id))?.createdAt).toBe(8.64e15);
      const run = await store.createRun({ configuration: 'c', createdAt: BASE });
      expect(await refusal(store.finishRun(run.id, { status: 'completed', finishedAt: 1e300 }))).toEqual(
        invalid(`FinishRunInput.finishedAt must be ${TIME_RULE}, got 1e+300`),
      );
      const step = { kind: 'llm', round: 0, durationMs: 1, payload: {}, toolServer: null, toolOutcome: null };
      expect(await refusal(store.appendStep(run.id, { ...step, createdAt: 2 ** 63 }))).toEqual(
        invalid(`AppendStepInput.createdAt must be ${TIME_RULE}, got 9223372036854776000`),
      );
      expect(await refusal(store.listRuns({ createdFrom: 1e300 }))).toEqual(
        invalid(`RunQuery.createdFrom must be ${TIME_RULE}, got 1e+300`),
      );
      expect(await refusal(store.serverHealth({ until: 2 ** 63 }))).toEqual(
        invalid(`ServerHealthQuery.until must be ${TIME_RULE}, got 9223372036854776000`),
      );
    });

    it('refuses a duration of 1e307 and keeps fractions of a ms', async () => {
      const store = await open();
      const run = await store.createRun({ configuration: 'c', createdAt: BASE });
      const step = { kind: 'llm', round: 0, createdAt: BASE, payload: {}, toolServer: null, toolOutcome: null };
      expect(await refusal(store.appendStep(run.id, { ...step, durationMs: 1e307 }))).toEqual(
        invalid('AppendStepInput.durationMs must be a number of milliseconds from 0 to 8640000000000000, got 1e+307'),
      );
      await store.appendStep(run.id, { ...step, durationMs: 1 / 3 });
      expect((await store.readSteps(run.id))[0]?.durationMs).toBe(1 / 3);
    });

    it('refuses a crafted cursor whose time is 1e300 with invalid_input, never a storage failure', async () => {
      const store = await open();
      const id = 'a0000000-0000-4000-8000-000000000000';
      expect(await refusal(store.listRuns({ cursor: encodeCursor(1e300, id) }))).toEqual(
        invalid(
          `RunQuery.cursor must be a nextCursor returned by listRuns (its time must be ${TIME_RULE}, got 1e+300), got ${JSON.stringify(encodeCursor(1e300, id))}`,
        ),
      );
      expect((await refusal(store.listRuns({ cursor: encodeCursor(-1, id) }))).code).toBe('invalid_input');
      expect((await refusal(store.listRuns({ cursor: encodeCursor(1.5, id) }))).code).toBe('invalid_input');
      expect(await store.listRuns({ cursor: encodeCursor(8.64e15, id.toUpperCase()) })).toEqual({ runs: [], nextCursor: null });
    });

    it('checks requestCancel, heartbeat and recoverInterrupted times by the same rule (no Infinity)', async () => {
      const store = await open();
      const run = await store.createRun({ configuration: 'c', createdAt: BASE });
      expect(await refusal(store.recoverInterrupted(Number.POSITIVE_INFINITY))).toEqual(
        invalid(`recoverInterrupted staleBefore must be ${TIME_RULE}, got Infinity`),
      );
      expect(await refusal(store.recoverInterrupted(Number.NaN))).toEqual(
        invalid(`recoverInterrupted staleBefore must be ${TIME_RULE}, got NaN`),
      );
      expect(await refusal(store.requestCancel(run.id, 1e300))).toEqual(invalid(`requestCancel at must be ${TIME_RULE}, got 1e+300`));
      expect(await refusal(store.heartbeat(run.id, 2 ** 63))).toEqual(
        invalid(`heartbeat at must be ${TIME_RULE}, got 9223372036854776000`),
      );
      expect(await store.getRun(run.id)).toMatchObject({ status: 'running', cancelRequestedAt: null });
      expect(await store.recoverInterrupted(8.64e15)).toEqual([run.id]);
    });

    it('checks the run id of every method by one rule: a string, any case of a UUID finds the run', async () => {
      const store = await open();
      const run = await store.createRun({ configuration: 'c', createdAt: BASE });
      const upper = run.id.toUpperCase();
      const step = { kind: 'llm', round: 0, durationMs: 1, createdAt: BASE, payload: {}, toolServer: null, toolOutcome: null };
      expect(await store.appendStep(upper, step)).toBe(0);
      expect(await store.readSteps(upper)).toHaveLength(1);
      await store.heartbeat(upper, BASE + 5);
      expect(await store.getRun(upper)).toMatchObject({ id: run.id, heartbeatAt: BASE + 5, stepCount: 1 });
      const notAString = 42 as unknown as string;
      const refused = invalid('runId must be a string, got 42');
      expect(await refusal(store.getRun(notAString))).toEqual(refused);
      expect(await refusal(store.readSteps(notAString))).toEqual(refused);
      expect(await refusal(store.appendStep(notAString, step))).toEqual(refused);
      expect(await refusal(store.finishRun(notAString, { status: 'completed', finishedAt: BASE + 1 }))).toEqual(refused);
      expect(await refusal(store.requestCancel(notAString, BASE + 1))).toEqual(refused);
      expect(await refusal(store.heartbeat(notAString, BASE + 1))).toEqual(refused);
      expect(() => store.watchCancel(notAString, () => undefined)).toThrow('runId must be a string, got 42');
      expect(await store.getRun('not-a-uuid')).toBeNull();
      expect(await store.readSteps('not-a-uuid')).toEqual([]);
      expect((await refusal(store.appendStep('not-a-uuid', step))).code).toBe('run_not_found');
      expect((await refusal(store.finishRun('not-a-uuid', { status: 'completed', finishedAt: BASE + 1 }))).code).toBe('run_not_found');
    });

    it('refuses a payload JSON.stringify cannot make a JSON object of, with invalid_input, and stores nothing', async () => {
      const store = await open();
      const run = await store.createRun({ configuration: 'c', createdAt: BASE });
      const step = (payload: unknown) =>
        store.appendStep(run.id, {
          kind: 'llm',
          round: 0,
          durationMs: 1,
          createdAt: BASE,
          payload: payload as Record<string, unknown>,
          toolServer: null,
          toolOutcome: null,
        });
      const rule = 'AppendStepInput.payload must serialise to a JSON object';
      expect(await refusal(step({ toJSON: () => undefined }))).toEqual(invalid(`${rule}, but JSON.stringify gave undefined`));
      expect(await refusal(step({ toJSON: () => () => 1 }))).toEqual(invalid(`${rule}, but JSON.stringify gave undefined`));
      expect(await refusal(step({ toJSON: () => 42 }))).toEqual(invalid(`${rule}, but JSON.stringify gave "42"`));
      expect(await refusal(step({ toJSON: () => ['a'] }))).toEqual(invalid(`${rule}, but JSON.stringify gave "[\\"a\\"]"`));
      expect(await refusal(step({ n: 1n }))).toEqual(
        invalid(`${rule}, but JSON.stringify threw TypeError: Do not know how to serialize a BigInt`),
      );
      const cycle: Record<string, unknown> = {};
      cycle['self'] = cycle;
      const circular = await refusal(step({ nested: cycle }));
      expect(circular.code).toBe('invalid_input');
      expect(circular.message).toMatch(
        /^AppendStepInput\.payload must serialise to a JSON object, but JSON.stringify threw TypeError: Converting circular structure to JSON/,
      );
      const throwsString = {
        get note(): string {
          throw 'not an Error'; // a caller's getter may throw anything
        },
      };
      expect(await refusal(step(throwsString))).toEqual(invalid(`${rule}, but JSON.stringify threw "not an Error"`));
      const throwsBare = {
        get note(): string {
          throw Object.create(null) as Error; // no toString: String() of it throws
        },
      };
      expect(await refusal(step(throwsBare))).toEqual(invalid(`${rule}, but JSON.stringify threw object`));
      const revoked = Proxy.revocable({}, {});
      revoked.revoke();
      expect(await refusal(step(revoked.proxy))).toEqual(invalid('AppendStepInput.payload must be a plain object, got a revoked proxy'));
      expect(await store.readSteps(run.id)).toEqual([]);
      // what JSON.stringify leaves out or turns into null inside the object is kept as it says
      const nested = { a: { toJSON: () => undefined }, list: [{ toJSON: () => undefined }, () => 1], f: () => 1, s: Symbol('s') };
      expect(await step(nested)).toBe(0);
      const viaToJSON = { toJSON: () => ({ note: 'from toJSON' }) };
      expect(await step(viaToJSON)).toBe(1);
      expect((await store.readSteps(run.id)).map((stored) => stored.payload)).toEqual(['{"list":[null,null]}', '{"note":"from toJSON"}']);
      expect((await store.getRun(run.id))?.stepCount).toBe(2);
    });

    it('checks every field of importRun by the same rules, importing nothing when one is refused', async () => {
      const store = await open();
      const id = 'b0000000-0000-4000-8000-000000000001';
      const run = {
        id,
        status: 'completed' as const,
        configuration: 'c',
        actor: null,
        title: null,
        createdAt: BASE,
        startedAt: BASE,
        finishedAt: BASE + 2,
        terminationReason: null,
        cancelRequestedAt: null,
        heartbeatAt: null,
        stepCount: 1,
        outcomeCounts: { ok: 0, failed: 0, cancelled: 0 },
        tokens: 0,
        unstoredSteps: 0,
      };
      const step = {
        runId: id,
        sequence: 0,
        kind: 'llm',
        round: 0,
        durationMs: 1,
        createdAt: BASE + 1,
        payload: '{}',
        toolServer: null,
        toolOutcome: null,
      };
      expect(await refusal(store.importRun({ ...run, actor: 'a\0' }, [step]))).toEqual(
        invalid('StoredRun.actor must not contain NUL (U+0000), found at index 1, got "a\\u0000"'),
      );
      expect(await refusal(store.importRun({ ...run, title: 'x'.repeat(201) }, [step]))).toEqual(
        invalid(
          `StoredRun.title must be a string of 1 to 200 characters without control characters, or null: it has more than 200 characters, got ${JSON.stringify(`${'x'.repeat(80)}…`)}`,
        ),
      );
      expect(await refusal(store.importRun({ ...run, finishedAt: 1e300 }, [step]))).toEqual(
        invalid(`StoredRun.finishedAt must be ${TIME_RULE}, got 1e+300`),
      );
      expect(await refusal(store.importRun(run, [{ ...step, payload: '"\uD800"' }]))).toEqual(
        invalid('steps[0].payload must be well-formed UTF-16 (no lone surrogate), found U+D800 at index 1, got "\\"\\ud800\\""'),
      );
      expect(await refusal(store.importRun(run, [{ ...step, round: 2 ** 31 }]))).toEqual(
        invalid('steps[0].round must be an integer from 0 to 2147483647, got 2147483648'),
      );
      expect(await store.getRun(id)).toBeNull();
      expect(await store.importRun({ ...run, heartbeatAt: -0 }, [{ ...step, durationMs: -0 }])).toBe(true);
      expect(await store.getRun(id)).toEqual({ ...run, heartbeatAt: 0, termination: null });
      expect(await store.readSteps(id)).toEqual([{ ...step, durationMs: 0 }]);
    });
  });
}
