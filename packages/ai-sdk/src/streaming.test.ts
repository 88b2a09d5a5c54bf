import type { McpServerRegistry, McpTool } from '@runledger/mcp';
import { InMemoryRunStore, RunTrace, startRun } from '@runledger/trace';
import { simulateReadableStream, stepCountIs, streamText, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpToolSet } from './mcpToolSet.js';
import { recordingMiddleware } from './recordingMiddleware.js';
import { fixtureRegistry, type StreamPart, viewSteps } from './testing/harness.js';

const ECHO = 'mcp_fixture_echo';
const usage = (input: number, output: number) => ({
  inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: output, text: output, reasoning: undefined },
});

describe('streamText through the recording middleware', () => {
  let registry: McpServerRegistry;
  let tools: readonly McpTool[];

  beforeAll(async () => {
    registry = fixtureRegistry();
    tools = await registry.tools();
  });
  afterAll(() => registry.close());

  it('records each streamed LLM call when its stream finishes, and the tool calls it asked for in its round', async () => {
    const store = InMemoryRunStore.create();
    const run = await startRun(store, { configuration: 'stream', privacy: 'full', spoolDir: false });
    const chunks: StreamPart[][] = [
      [
        { type: 'stream-start', warnings: [] },
        { type: 'reasoning-start', id: 'r' },
        { type: 'reasoning-delta', id: 'r', delta: 'Need the echo.' },
        { type: 'reasoning-end', id: 'r' },
        { type: 'tool-call', toolCallId: 'call-s1', toolName: ECHO, input: '{"text":"streamed"}' },
        { type: 'finish', usage: usage(90, 12), finishReason: { unified: 'tool-calls', raw: 'tool_calls' } },
      ],
      [
        { type: 'text-start', id: 't' },
        { type: 'text-delta', id: 't', delta: 'It said ' },
        { type: 'text-delta', id: 't', delta: 'streamed.' },
        { type: 'text-end', id: 't' },
        { type: 'finish', usage: usage(140, 6), finishReason: { unified: 'stop', raw: 'stop' } },
      ],
    ];
    const model = new MockLanguageModelV3({
      modelId: 'streamer-1',
      doStream: chunks.map((parts) => ({
        stream: simulateReadableStream({ chunks: parts, chunkDelayInMs: null, initialDelayInMs: null }),
      })),
    });
    const result = streamText({
      model: wrapLanguageModel({ model, middleware: recordingMiddleware(run) }),
      tools: mcpToolSet(tools, { run }),
      stopWhen: stepCountIs(5),
      abortSignal: run.signal,
      prompt: 'Echo, streaming.',
    });
    expect(await result.text).toBe('It said streamed.');
    const stored = await run.complete();

    expect(stored.outcomeCounts).toEqual({ ok: 1, failed: 0, cancelled: 0 });
    expect(viewSteps(await store.readSteps(run.id))).toEqual([
      {
        kind: 'llm',
        round: 1,
        model: 'streamer-1',
        finishReason: 'tool-calls',
        promptTokens: 90,
        completionTokens: 12,
        requestedToolCalls: [{ id: 'call-s1', name: ECHO, arguments: { text: 'streamed' } }],
      },
      { kind: 'tool_start', round: 1, toolName: ECHO, toolServer: 'fixture', toolArguments: { text: 'streamed' } },
      {
        kind: 'tool',
        round: 1,
        toolName: ECHO,
        toolServer: 'fixture',
        toolArguments: { text: 'streamed' },
        toolResult: 'streamed',
        toolIsError: false,
        toolOutcome: 'ok',
      },
      {
        kind: 'llm',
        round: 2,
        model: 'streamer-1',
        content: 'It said streamed.',
        finishReason: 'stop',
        promptTokens: 140,
        completionTokens: 6,
        requestedToolCalls: [],
      },
    ]);
    expect((await store.readSteps(run.id))[0]?.payload).toContain('"thinking":"Need the echo."');
  });

  it('records a stream that fails with what it had and finish reason error', async () => {
    const trace = RunTrace.create({ privacy: 'full' });
    const failing = new ReadableStream<StreamPart>({
      start(controller) {
        controller.enqueue({ type: 'text-delta', id: 't', delta: 'Half an ans' });
      },
      pull(controller) {
        controller.error(new Error('connection reset by the provider'));
      },
    });
    const model = new MockLanguageModelV3({ modelId: 'streamer-1', doStream: { stream: failing } });
    const wrapped = wrapLanguageModel({ model, middleware: recordingMiddleware({ trace, signal: new AbortController().signal }) });
    const { stream } = await wrapped.doStream({ prompt: [] });
    await expect(stream.pipeTo(new WritableStream())).rejects.toThrow('connection reset by the provider');
    expect(trace.steps.map((s) => [s.kind, s.round, s.content, s.finishReason])).toEqual([['llm', 1, 'Half an ans', 'error']]);
  });

  it('records a stream its consumer cancels once, with finish reason aborted', async () => {
    const trace = RunTrace.create({ privacy: 'full' });
    const model = new MockLanguageModelV3({
      doStream: {
        stream: simulateReadableStream({
          chunks: [
            { type: 'text-delta', id: 't', delta: 'One' } as StreamPart,
            { type: 'text-delta', id: 't', delta: 'Two' } as StreamPart,
          ],
          chunkDelayInMs: null,
        }),
      },
    });
    const wrapped = wrapLanguageModel({ model, middleware: recordingMiddleware({ trace, signal: new AbortController().signal }) });
    const { stream } = await wrapped.doStream({ prompt: [] });
    const reader = stream.getReader();
    await reader.read();
    await reader.cancel('not needed');
    expect(trace.steps.map((s) => [s.kind, s.finishReason])).toEqual([['llm', 'aborted']]);
  });
});
