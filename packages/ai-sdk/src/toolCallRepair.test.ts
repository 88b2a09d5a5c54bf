// A tool call the AI SDK repairs (`experimental_repairToolCall`) is one call: through
// recordingToolCallRepair it ends as exactly one tool step — the repaired call as sent, under the
// model's call id — and a call the repair gives up on (null, a throw, a repair the SDK still
// refuses) as one refused step. Real fixture server over stdio, the AI SDK's mock model.
import type { McpServerRegistry, McpTool } from '@runledger/mcp';
import { InMemoryRunStore, startRun } from '@runledger/trace';
import { generateText, stepCountIs, streamText, type ToolCallRepairFunction, type ToolSet, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpToolSet } from './mcpToolSet.js';
import { recordingMiddleware } from './recordingMiddleware.js';
import { recordingToolCallRepair } from './toolCallRepair.js';
import {
  fixtureRegistry,
  startsPaired,
  streamAnswer,
  textAnswer,
  textStreamAnswer,
  toolCallsAnswer,
  viewSteps,
} from './testing/harness.js';

/** Fixes a misspelt echo and an unclosed input; gives up on `mcp_fixture_nope`; throws on `mcp_fixture_boom`. */
const repair: ToolCallRepairFunction<ToolSet> = async ({ toolCall }) => {
  if (toolCall.toolName === 'mcp_fixture_boom') throw new Error('the repair model is down');
  if (toolCall.toolName === 'mcp_fixture_nope') return null;
  if (toolCall.toolName === 'mcp_fixture_ehco') return { ...toolCall, toolName: 'mcp_fixture_echo' };
  if (toolCall.toolName === 'mcp_fixture_still_bad') return { ...toolCall, toolName: 'mcp_fixture_gone' };
  return { ...toolCall, input: `${toolCall.input}"}` };
};

describe('repaired tool calls', () => {
  let registry: McpServerRegistry;
  let tools: readonly McpTool[];

  beforeAll(async () => {
    registry = fixtureRegistry();
    tools = await registry.tools();
  });
  afterAll(async () => {
    await registry.close();
  });

  it('generateText: a repaired call is one step (sent, under the model call id); a call the repair gives up on is one refused step', async () => {
    const store = InMemoryRunStore.create();
    const run = await startRun(store, { configuration: 'repair-generate', privacy: 'full', spoolDir: false });
    const model = new MockLanguageModelV3({
      doGenerate: [
        toolCallsAnswer([
          { id: 'typo', name: 'mcp_fixture_ehco', input: { text: 'one' } },
          { id: 'unclosed', name: 'mcp_fixture_echo', input: '{"text": "two' },
          { id: 'nope', name: 'mcp_fixture_nope', input: {} },
          { id: 'boom', name: 'mcp_fixture_boom', input: {} },
          { id: 'still', name: 'mcp_fixture_still_bad', input: {} },
        ]),
        textAnswer('Done.'),
      ],
    });
    const result = await generateText({
      model: wrapLanguageModel({ model, middleware: recordingMiddleware(run) }),
      tools: mcpToolSet(tools, { run }),
      experimental_repairToolCall: recordingToolCallRepair(run, repair),
      stopWhen: stepCountIs(5),
      prompt: 'Echo.',
    });
    expect(result.text).toBe('Done.');
    const stored = await run.complete();
    expect(stored.outcomeCounts).toEqual({ ok: 2, failed: 3, cancelled: 0 });
    const steps = await store.readSteps(run.id);
    expect(startsPaired(steps)).toBe(true);
    const ends = steps.filter((s) => s.kind === 'tool').map((s) => JSON.parse(s.payload) as Record<string, unknown>);
    const byId = Object.fromEntries(ends.map((p) => [p['toolCallId'], [p['toolName'], p['toolOutcome'], p['toolFailureCause'] ?? null]]));
    expect(ends).toHaveLength(5);
    expect(byId).toEqual({
      typo: ['mcp_fixture_echo', 'ok', null],
      unclosed: ['mcp_fixture_echo', 'ok', null],
      nope: ['mcp_fixture_nope', 'failed', 'unknown_tool'],
      boom: ['mcp_fixture_boom', 'failed', 'unknown_tool'],
      still: ['mcp_fixture_still_bad', 'failed', 'unknown_tool'],
    });
    expect(
      viewSteps(steps)
        .filter((s) => s.kind === 'tool' && s.toolOutcome === 'ok')
        .map((s) => s.toolResult),
    ).toEqual(['one', 'two']);
  });

  it('streamText: a repaired call is one step too', async () => {
    const store = InMemoryRunStore.create();
    const run = await startRun(store, { configuration: 'repair-stream', spoolDir: false });
    const model = new MockLanguageModelV3({
      doStream: [
        streamAnswer([
          { type: 'tool-call', toolCallId: 's0', toolName: 'mcp_fixture_ehco', input: '{"text":"hi"}' },
          { type: 'tool-call', toolCallId: 's1', toolName: 'mcp_fixture_nope', input: '{}' },
        ]),
        textStreamAnswer('Done.'),
      ],
    });
    const result = streamText({
      model: wrapLanguageModel({ model, middleware: recordingMiddleware(run) }),
      tools: mcpToolSet(tools, { run }),
      experimental_repairToolCall: recordingToolCallRepair(run, repair),
      stopWhen: stepCountIs(5),
      prompt: 'Echo.',
    });
    expect(await result.text).toBe('Done.');
    const stored = await run.complete();
    expect(stored.outcomeCounts).toEqual({ ok: 1, failed: 1, cancelled: 0 });
    const ends = (await store.readSteps(run.id))
      .filter((s) => s.kind === 'tool')
      .map((s) => JSON.parse(s.payload) as Record<string, unknown>);
    expect(ends.map((p) => [p['toolCallId'], p['toolName'], p['toolOutcome']]).sort()).toEqual([
      ['s0', 'mcp_fixture_echo', 'ok'],
      ['s1', 'mcp_fixture_nope', 'failed'],
    ]);
  });

  it('a refused call the repair never saw (a loop without it) is recorded once, when the next prompt carries its tool error', async () => {
    const store = InMemoryRunStore.create();
    const run = await startRun(store, { configuration: 'repair-not-passed', spoolDir: false });
    recordingToolCallRepair(run, repair);
    const model = new MockLanguageModelV3({
      doGenerate: [toolCallsAnswer([{ id: 'typo', name: 'mcp_fixture_ehco', input: { text: 'one' } }]), textAnswer('Done.')],
    });
    await generateText({
      model: wrapLanguageModel({ model, middleware: recordingMiddleware(run) }),
      tools: mcpToolSet(tools, { run }),
      stopWhen: stepCountIs(5),
      prompt: 'Echo.',
    });
    const stored = await run.complete();
    expect(stored.outcomeCounts).toEqual({ ok: 0, failed: 1, cancelled: 0 });
    expect(viewSteps(await store.readSteps(run.id)).map((s) => [s.kind, s.round, s.toolFailureCause])).toEqual([
      ['llm', 1, undefined],
      ['tool', 1, 'unknown_tool'],
      ['llm', 2, undefined],
    ]);
  });
});
