import type { McpServerRegistry, McpTool } from '@runledger/mcp';
import type { SqliteRunStore } from '@runledger/store-sqlite';
import { startRun } from '@runledger/trace';
import { generateText, stepCountIs, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpToolSet } from './mcpToolSet.js';
import { recordingMiddleware } from './recordingMiddleware.js';
import { fixtureRegistry, openStore, scratch, startsPaired, textAnswer, toolCallsAnswer, viewSteps } from './testing/harness.js';

const ECHO = 'mcp_fixture_echo';
const FAIL = 'mcp_fixture_fail';

describe('an AI SDK agent loop with MCP tools of a real stdio server, recorded into a SQLite file', () => {
  let registry: McpServerRegistry;
  let tools: readonly McpTool[];
  let store: SqliteRunStore;

  beforeAll(async () => {
    registry = fixtureRegistry();
    tools = await registry.tools();
    store = await openStore(scratch().dbPath);
  });
  afterAll(async () => {
    await registry.close();
    await store.close();
  });

  it('records every LLM call and tool call of a multi-step run, in order, with rounds and outcomes', async () => {
    const model = new MockLanguageModelV3({
      modelId: 'scripted-1',
      doGenerate: [
        toolCallsAnswer([{ id: 'call-a', name: ECHO, input: { text: 'first' } }], [120, 15]),
        toolCallsAnswer(
          [
            { id: 'call-b', name: ECHO, input: { text: 'second' } },
            { id: 'call-c', name: ECHO, input: { text: 'third' } },
          ],
          [180, 25],
        ),
        textAnswer('All three echoed.', [260, 9]),
      ],
    });
    const run = await startRun(store, { configuration: 'ai-sdk-test', privacy: 'full', spoolDir: false });
    const result = await generateText({
      model: wrapLanguageModel({ model, middleware: recordingMiddleware(run) }),
      tools: mcpToolSet(tools, { run }),
      stopWhen: stepCountIs(10),
      abortSignal: run.signal,
      prompt: 'Echo three words.',
    });
    const stored = await run.complete();

    expect(result.text).toBe('All three echoed.');
    // the model was handed each result's content as the tool output
    expect(model.doGenerateCalls[1]?.prompt.at(-1)).toMatchObject({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'call-a', output: { type: 'text', value: 'first' } }],
    });
    expect(stored.status).toBe('completed');
    expect(stored.outcomeCounts).toEqual({ ok: 3, failed: 0, cancelled: 0 });
    const steps = await store.readSteps(run.id);
    expect(startsPaired(steps)).toBe(true);
    // Each tool step carries the model's own call id: it links to the LLM step that asked for it.
    expect(
      steps
        .filter((s) => s.kind === 'tool')
        .map((s) => (JSON.parse(s.payload) as { toolCallId?: string }).toolCallId)
        .sort(),
    ).toEqual(['call-a', 'call-b', 'call-c']);
    const echo = (text: string, round: number) => [
      { kind: 'tool_start', round, toolName: ECHO, toolServer: 'fixture', toolArguments: { text } },
      {
        kind: 'tool',
        round,
        toolName: ECHO,
        toolServer: 'fixture',
        toolArguments: { text },
        toolResult: text,
        toolIsError: false,
        toolOutcome: 'ok',
      },
    ];
    const view = viewSteps(steps);
    expect(view.slice(0, 3)).toEqual([
      {
        kind: 'llm',
        round: 1,
        model: 'scripted-1',
        finishReason: 'tool-calls',
        promptTokens: 120,
        completionTokens: 15,
        requestedToolCalls: [{ id: 'call-a', name: ECHO, arguments: { text: 'first' } }],
      },
      ...echo('first', 1),
    ]);
    expect(view[3]).toEqual({
      kind: 'llm',
      round: 2,
      model: 'scripted-1',
      finishReason: 'tool-calls',
      promptTokens: 180,
      completionTokens: 25,
      requestedToolCalls: [
        { id: 'call-b', name: ECHO, arguments: { text: 'second' } },
        { id: 'call-c', name: ECHO, arguments: { text: 'third' } },
      ],
    });
    // the two calls of round 2 run in parallel: each start comes before its own end
    const round2 = view.slice(4, 8);
    expect(round2.filter((s) => s.kind === 'tool_start')).toEqual(expect.arrayContaining([echo('second', 2)[0], echo('third', 2)[0]]));
    expect(round2.filter((s) => s.kind === 'tool')).toEqual(expect.arrayContaining([echo('second', 2)[1], echo('third', 2)[1]]));
    expect(round2[0]?.kind).toBe('tool_start');
    expect(view.slice(8)).toEqual([
      {
        kind: 'llm',
        round: 3,
        model: 'scripted-1',
        content: 'All three echoed.',
        finishReason: 'stop',
        promptTokens: 260,
        completionTokens: 9,
        requestedToolCalls: [],
      },
    ]);
    expect(steps.every((s) => s.durationMs >= 0)).toBe(true);
    expect(steps.find((s) => s.kind === 'tool')!.durationMs).toBeGreaterThan(0);
  });

  it('hands a failed call to the model as the tool error, and the model recovers', async () => {
    const model = new MockLanguageModelV3({
      modelId: 'scripted-1',
      doGenerate: [
        toolCallsAnswer([{ id: 'call-1', name: FAIL, input: {} }]),
        toolCallsAnswer([{ id: 'call-2', name: ECHO, input: { text: 'plan b' } }]),
        textAnswer('Recovered with plan b.'),
      ],
    });
    const run = await startRun(store, { configuration: 'ai-sdk-test', privacy: 'full', spoolDir: false });
    const result = await generateText({
      model: wrapLanguageModel({ model, middleware: recordingMiddleware(run) }),
      tools: mcpToolSet(tools, { run }),
      stopWhen: stepCountIs(10),
      abortSignal: run.signal,
      prompt: 'Try the failing tool first.',
    });
    const stored = await run.complete();

    expect(result.text).toBe('Recovered with plan b.');
    expect(result.steps[0]?.content.find((part) => part.type === 'tool-error')).toMatchObject({
      toolName: FAIL,
      error: { name: 'McpToolCallError', outcome: 'failed' },
    });
    expect(model.doGenerateCalls[1]?.prompt.at(-1)).toMatchObject({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'call-1', output: { type: 'error-text', value: 'the fixture failed on purpose' } }],
    });
    expect(stored.status).toBe('completed');
    expect(stored.outcomeCounts).toEqual({ ok: 1, failed: 1, cancelled: 0 });
    const view = viewSteps(await store.readSteps(run.id));
    expect(view.map((s) => [s.kind, s.round, s.toolOutcome ?? s.finishReason])).toEqual([
      ['llm', 1, 'tool-calls'],
      ['tool_start', 1, undefined],
      ['tool', 1, 'failed'],
      ['llm', 2, 'tool-calls'],
      ['tool_start', 2, undefined],
      ['tool', 2, 'ok'],
      ['llm', 3, 'stop'],
    ]);
    expect(view[2]).toMatchObject({
      toolName: FAIL,
      toolResult: 'the fixture failed on purpose',
      toolIsError: true,
      toolFailureCause: 'server_error',
    });
  });
});
