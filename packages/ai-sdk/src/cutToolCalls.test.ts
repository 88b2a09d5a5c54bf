// A model answer cut by its output limit (finish reason `length`) may stop in the middle of a tool
// call. The AI SDK executes no tool call of such an answer, so every call of it ends as one failed
// tool step (`malformed_arguments`: the model's arguments are not whole), never sent, never
// charged to the server — also a streamed call whose input started but whose tool-call part never
// came.
import type { McpServerRegistry, McpTool } from '@runledger/mcp';
import { InMemoryRunStore, startRun } from '@runledger/trace';
import { generateText, stepCountIs, streamText, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpToolSet } from './mcpToolSet.js';
import { recordingMiddleware } from './recordingMiddleware.js';
import { fixtureRegistry, streamAnswer, toolCallsAnswer, viewSteps } from './testing/harness.js';

const LENGTH = { unified: 'length', raw: 'max_tokens' } as const;

describe('tool calls of an answer cut by its output limit', () => {
  let registry: McpServerRegistry;
  let tools: readonly McpTool[];

  beforeAll(async () => {
    registry = fixtureRegistry();
    tools = await registry.tools();
  });
  afterAll(async () => {
    await registry.close();
  });

  it('generateText: each call of the cut answer is one failed tool step (malformed_arguments), not sent, not charged', async () => {
    const store = InMemoryRunStore.create();
    const run = await startRun(store, { configuration: 'cut-generate', privacy: 'full', spoolDir: false });
    const answer = toolCallsAnswer([
      { id: 'whole', name: 'mcp_fixture_echo', input: { text: 'first' } },
      { id: 'cut', name: 'mcp_fixture_echo', input: '{"text": "sec' },
    ]);
    const model = new MockLanguageModelV3({ doGenerate: [{ ...answer, finishReason: LENGTH }] });
    const result = await generateText({
      model: wrapLanguageModel({ model, middleware: recordingMiddleware(run) }),
      tools: mcpToolSet(tools, { run }),
      stopWhen: stepCountIs(5),
      prompt: 'Echo twice.',
    });
    expect(result.finishReason).toBe('length');
    const stored = await run.complete();
    expect(stored.outcomeCounts).toEqual({ ok: 0, failed: 2, cancelled: 0 });
    const steps = viewSteps(await store.readSteps(run.id));
    expect(steps.map((s) => [s.kind, s.round, s.toolName, s.toolOutcome, s.toolFailureCause])).toEqual([
      ['llm', 1, undefined, undefined, undefined],
      ['tool', 1, 'mcp_fixture_echo', 'failed', 'malformed_arguments'],
      ['tool', 1, 'mcp_fixture_echo', 'failed', 'malformed_arguments'],
    ]);
    expect(steps.filter((s) => s.kind === 'tool').map((s) => s.toolArguments)).toEqual([{ text: 'first' }, { input: '{"text": "sec' }]);
    const [health] = await store.serverHealth();
    expect(health).toMatchObject({ server: 'fixture', failed: 2, notCharged: 2, failureRate: null });
  });

  it('streamText: a call whose input was cut before its tool-call part is one failed tool step too', async () => {
    const store = InMemoryRunStore.create();
    const run = await startRun(store, { configuration: 'cut-stream', privacy: 'full', spoolDir: false });
    const model = new MockLanguageModelV3({
      doStream: streamAnswer(
        [
          { type: 'tool-call', toolCallId: 's0', toolName: 'mcp_fixture_echo', input: '{"text":"whole"}' },
          { type: 'tool-input-start', id: 's1', toolName: 'mcp_fixture_echo' },
          { type: 'tool-input-delta', id: 's1', delta: '{"text": "cu' },
        ],
        LENGTH,
      ),
    });
    const result = streamText({
      model: wrapLanguageModel({ model, middleware: recordingMiddleware(run) }),
      tools: mcpToolSet(tools, { run }),
      stopWhen: stepCountIs(5),
      prompt: 'Echo twice.',
    });
    expect(await result.finishReason).toBe('length');
    const stored = await run.complete();
    expect(stored.outcomeCounts).toEqual({ ok: 0, failed: 2, cancelled: 0 });
    const toolSteps = viewSteps(await store.readSteps(run.id)).filter((s) => s.kind !== 'llm');
    expect(toolSteps.map((s) => [s.kind, s.round, s.toolName, s.toolOutcome, s.toolFailureCause, s.toolArguments])).toEqual([
      ['tool', 1, 'mcp_fixture_echo', 'failed', 'malformed_arguments', { text: 'whole' }],
      ['tool', 1, 'mcp_fixture_echo', 'failed', 'malformed_arguments', { input: '{"text": "cu' }],
    ]);
  });
});
