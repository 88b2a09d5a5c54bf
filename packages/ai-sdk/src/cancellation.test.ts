import { getEventListeners } from 'node:events';
import { readFileSync } from 'node:fs';
import type { McpServerRegistry, McpTool } from '@runledger/mcp';
import type { SqliteRunStore } from '@runledger/store-sqlite';
import { RunCancelledError, startRun } from '@runledger/trace';
import { generateText, simulateReadableStream, stepCountIs, streamText, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpToolSet } from './mcpToolSet.js';
import { recordingMiddleware } from './recordingMiddleware.js';
import {
  fixtureRegistry,
  openStore,
  scratch,
  stallingStream,
  type StreamPart,
  startsPaired,
  textAnswer,
  toolCallsAnswer,
  toolNamed,
  viewSteps,
} from './testing/harness.js';

const SLOW = 'mcp_fixture_slow';
const ECHO = 'mcp_fixture_echo';
const USAGE = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** Polls until `check` resolves true (a store read, a file). */
async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('cancelling a run of an AI SDK loop', () => {
  let registry: McpServerRegistry;
  let tools: readonly McpTool[];
  let store: SqliteRunStore;
  let eventsFile: string;

  beforeAll(async () => {
    const dir = scratch();
    eventsFile = dir.eventsFile;
    registry = fixtureRegistry({ eventsFile });
    tools = await registry.tools();
    store = await openStore(dir.dbPath);
  });
  afterAll(async () => {
    await registry.close();
    await store.close();
  });

  it.each([
    ['from the store (the app’s Cancel button)', 'store'],
    ['in process (run.cancel)', 'local'],
  ] as const)(
    '%s stops the tool call on the wire: recorded cancelled, no further LLM call, the run ends cancelled, the server’s health untouched',
    async (_, source) => {
      const tag = `${source}-cancel`;
      const before = (await store.serverHealth()).find((h) => h.server === 'fixture') ?? { ok: 0, failed: 0, cancelled: 0 };
      const model = new MockLanguageModelV3({
        modelId: 'scripted-1',
        doGenerate: [toolCallsAnswer([{ id: 'call-1', name: SLOW, input: { ms: 60_000, tag } }]), textAnswer('never reached')],
      });
      const run = await startRun(store, { configuration: 'ai-sdk-cancel', privacy: 'full', spoolDir: false });
      const loop = generateText({
        model: wrapLanguageModel({ model, middleware: recordingMiddleware(run) }),
        tools: mcpToolSet(tools, { run }),
        stopWhen: stepCountIs(10),
        abortSignal: run.signal,
        prompt: 'Run the slow export.',
      });
      const settled = loop.then(
        () => null,
        (error: unknown) => error,
      );
      // the call is on the wire once another reader of the store sees its start, and the server started it
      await until(async () => (await store.readSteps(run.id)).some((s) => s.kind === 'tool_start'), 'the tool_start step');
      await until(() => readFileSync(eventsFile, 'utf8').includes(`"${tag}"`), 'the server to start the call');
      if (source === 'store') await store.requestCancel(run.id);
      else await run.cancel();

      const error = await settled;
      expect(RunCancelledError.is(error)).toBe(true);
      expect(error).toBe(run.signal.reason);
      expect((error as RunCancelledError).requestedBy).toBe(source);
      const stored = await run.fail(error);
      expect(model.doGenerateCalls).toHaveLength(1);
      expect(stored.status).toBe('cancelled');
      expect(stored.outcomeCounts).toEqual({ ok: 0, failed: 0, cancelled: 1 });
      const steps = await store.readSteps(run.id);
      expect(startsPaired(steps)).toBe(true);
      expect(viewSteps(steps).map((s) => [s.kind, s.round, s.toolName ?? s.model, s.toolOutcome ?? s.finishReason])).toEqual([
        ['llm', 1, 'scripted-1', 'tool-calls'],
        ['tool_start', 1, SLOW, undefined],
        ['tool', 1, SLOW, 'cancelled'],
      ]);
      expect(viewSteps(steps)[2]).toMatchObject({ toolIsError: true, toolOutcome: 'cancelled' });
      // the server was told and stopped
      await until(() => readFileSync(eventsFile, 'utf8').includes(`"event":"cancelled","tag":"${tag}"`), 'the server to cancel the call');
      const health = (await store.serverHealth()).find((h) => h.server === 'fixture');
      expect(health).toMatchObject({ ok: before.ok, failed: before.failed, cancelled: before.cancelled + 1 });
      expect(health?.failureRate ?? 0).toBe(0);
      // the server is as good as before: the next run's call answers
      const next = await toolNamed(tools, ECHO).execute({ text: 'still here' });
      expect(next.outcome).toBe('ok');
    },
  );

  it.each([
    ['without an abortSignal, cancelled from the store', 'none', 'store'],
    ['without an abortSignal, cancelled in process', 'none', 'local'],
    ['with the loop’s own signal, cancelled from the store', 'own', 'store'],
    ['with the loop’s own signal, cancelled in process', 'own', 'local'],
  ] as const)(
    'generateText %s: the call on the wire ends cancelled, the model is not called again, the run ends cancelled',
    async (_, signal, source) => {
      const tag = `${signal}-${source}-cancel`;
      const model = new MockLanguageModelV3({
        modelId: 'scripted-1',
        doGenerate: [toolCallsAnswer([{ id: 'call-1', name: SLOW, input: { ms: 60_000, tag } }]), textAnswer('never reached')],
      });
      const run = await startRun(store, { configuration: 'ai-sdk-cancel', privacy: 'full', spoolDir: false });
      const loopOwn = new AbortController();
      const settled = generateText({
        model: wrapLanguageModel({ model, middleware: recordingMiddleware(run) }),
        tools: mcpToolSet(tools, { run }),
        stopWhen: stepCountIs(10),
        ...(signal === 'own' && { abortSignal: loopOwn.signal }),
        prompt: 'Run the slow export.',
      }).then(
        () => null,
        (error: unknown) => error,
      );
      await until(() => readFileSync(eventsFile, 'utf8').includes(`"${tag}"`), 'the server to start the call');
      if (source === 'store') await store.requestCancel(run.id);
      else await run.cancel();

      const error = await settled;
      expect(error).toBe(run.signal.reason);
      expect(RunCancelledError.is(error)).toBe(true);
      expect(model.doGenerateCalls).toHaveLength(1);
      const stored = await run.fail(error);
      expect(stored.status).toBe('cancelled');
      expect(stored.outcomeCounts).toEqual({ ok: 0, failed: 0, cancelled: 1 });
      expect(viewSteps(await store.readSteps(run.id)).map((s) => [s.kind, s.toolOutcome ?? s.finishReason])).toEqual([
        ['llm', 'tool-calls'],
        ['tool_start', undefined],
        ['tool', 'cancelled'],
      ]);
      await until(() => readFileSync(eventsFile, 'utf8').includes(`"event":"cancelled","tag":"${tag}"`), 'the server to cancel the call');
      expect(loopOwn.signal.aborted).toBe(false);
    },
  );

  it('streamText with the loop’s own signal: a cancel stops the call on the wire and no further LLM call is made', async () => {
    const tag = 'stream-own-cancel';
    const model = new MockLanguageModelV3({
      modelId: 'scripted-1',
      doStream: [
        {
          stream: simulateReadableStream({
            chunks: [
              { type: 'tool-call', toolCallId: 'call-s', toolName: SLOW, input: JSON.stringify({ ms: 60_000, tag }) },
              { type: 'finish', usage: USAGE, finishReason: { unified: 'tool-calls', raw: 'tool_calls' } },
            ] as StreamPart[],
            chunkDelayInMs: null,
          }),
        },
        {
          stream: simulateReadableStream({
            chunks: [{ type: 'text-delta', id: 't', delta: 'never' }] as StreamPart[],
            chunkDelayInMs: null,
          }),
        },
      ],
    });
    const run = await startRun(store, { configuration: 'ai-sdk-cancel', privacy: 'full', spoolDir: false });
    const errors: unknown[] = [];
    const result = streamText({
      model: wrapLanguageModel({ model, middleware: recordingMiddleware(run) }),
      tools: mcpToolSet(tools, { run }),
      stopWhen: stepCountIs(10),
      abortSignal: new AbortController().signal,
      prompt: 'Run the slow export.',
      onError: ({ error }) => void errors.push(error),
    });
    await until(() => readFileSync(eventsFile, 'utf8').includes(`"${tag}"`), 'the server to start the call');
    await run.cancel();
    await result.consumeStream();
    // the stream ends with the run's own abort reason, before a second LLM call
    expect(errors).toEqual([run.signal.reason]);
    expect(model.doStreamCalls).toHaveLength(1);
    const stored = await run.complete();
    expect(stored.status).toBe('cancelled');
    expect(stored.outcomeCounts).toEqual({ ok: 0, failed: 0, cancelled: 1 });
  });

  it('releases the listeners it adds to the run’s and the loop’s signals once each call ended', async () => {
    const run = await startRun(store, { configuration: 'ai-sdk-listeners', spoolDir: false });
    const loopOwn = new AbortController();
    const before = [getEventListeners(run.signal, 'abort').length, getEventListeners(loopOwn.signal, 'abort').length];
    const calls = Array.from({ length: 5 }, (_, i) => ({ id: `call-${i}`, name: ECHO, input: { text: `n${i}` } }));
    const model = new MockLanguageModelV3({
      doGenerate: [toolCallsAnswer(calls), toolCallsAnswer(calls.map((c) => ({ ...c, id: `${c.id}b` }))), textAnswer('done')],
    });
    const result = await generateText({
      model: wrapLanguageModel({ model, middleware: recordingMiddleware(run) }),
      tools: mcpToolSet(tools, { run }),
      stopWhen: stepCountIs(5),
      abortSignal: loopOwn.signal,
      prompt: 'Echo ten times.',
    });
    expect(result.text).toBe('done');
    expect([getEventListeners(run.signal, 'abort').length, getEventListeners(loopOwn.signal, 'abort').length]).toEqual(before);
    expect((await run.complete()).outcomeCounts).toEqual({ ok: 10, failed: 0, cancelled: 0 });
  });

  it.each([
    ['abortSignal: run.signal', 'run'],
    ['the loop’s own signal', 'own'],
    ['no abortSignal', 'none'],
  ] as const)(
    'in process stops a stream mid-answer (%s): the LLM call is recorded with what was received and finish reason aborted, the run ends cancelled',
    async (_, signal) => {
      const stalled = stallingStream([
        { type: 'stream-start', warnings: [] },
        { type: 'response-metadata', id: 'resp-1', modelId: 'scripted-stream-1' },
        { type: 'text-start', id: 't1' },
        { type: 'text-delta', id: 't1', delta: 'Exporting ' },
        { type: 'text-delta', id: 't1', delta: 'the Q3 report' },
      ]);
      const model = new MockLanguageModelV3({ modelId: 'scripted-1', doStream: { stream: stalled.stream } });
      const run = await startRun(store, { configuration: 'ai-sdk-cancel', privacy: 'full', spoolDir: false });
      const result = streamText({
        model: wrapLanguageModel({ model, middleware: recordingMiddleware(run) }),
        tools: mcpToolSet(tools, { run }),
        stopWhen: stepCountIs(10),
        ...(signal === 'run' && { abortSignal: run.signal }),
        ...(signal === 'own' && { abortSignal: new AbortController().signal }),
        prompt: 'Export the Q3 report.',
        onError: () => undefined,
      });
      const received: string[] = [];
      const reading = (async () => {
        for await (const text of result.textStream) {
          received.push(text);
          if (received.join('') === 'Exporting the Q3 report') await run.cancel('operator pressed cancel');
        }
      })().then(
        () => null,
        (error: unknown) => error,
      );
      const readError = await reading;
      // the stream ends as a real provider's aborted fetch does: with the run's own abort reason
      expect(readError).toBe(run.signal.reason);
      expect(await stalled.cancelled).toBe(run.signal.reason);
      const stored = await run.complete();

      expect(received.join('')).toBe('Exporting the Q3 report');
      expect(stored.status).toBe('cancelled');
      expect(stored.terminationReason).toBe('operator pressed cancel');
      const steps = await store.readSteps(run.id);
      expect(viewSteps(steps)).toEqual([
        {
          kind: 'llm',
          round: 1,
          model: 'scripted-stream-1',
          content: 'Exporting the Q3 report',
          finishReason: 'aborted',
          requestedToolCalls: [],
        },
      ]);
    },
  );
});
