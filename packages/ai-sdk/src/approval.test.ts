import type { McpServerRegistry, McpTool } from '@runledger/mcp';
import { InMemoryRunStore, startRun } from '@runledger/trace';
import { generateText, type ModelMessage, stepCountIs, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpToolNotApprovedError } from './McpToolNotApprovedError.js';
import { mcpToolSet } from './mcpToolSet.js';
import { recordingMiddleware } from './recordingMiddleware.js';
import { fixtureRegistry, textAnswer, toolCallsAnswer } from './testing/harness.js';

const ECHO = 'mcp_guarded_echo';

describe('tools of a server that requires approval', () => {
  let registry: McpServerRegistry;
  let tools: readonly McpTool[];

  beforeAll(async () => {
    registry = fixtureRegistry({ id: 'guarded', requiresApproval: true });
    tools = await registry.tools();
  });
  afterAll(() => registry.close());

  const kinds = async (store: InMemoryRunStore, runId: string) =>
    (await store.readSteps(runId)).map((s) => [s.kind, s.round, s.toolOutcome] as const);
  /** The toolApproval of each tool step, in order (null when it has none). */
  const approvals = async (store: InMemoryRunStore, runId: string) =>
    (await store.readSteps(runId))
      .filter((s) => s.kind === 'tool')
      .map((s) => (JSON.parse(s.payload) as { toolApproval?: unknown }).toolApproval ?? null);

  it('use the AI SDK’s approval: the call waits for a tool-approval-response and runs only once approved', async () => {
    const store = InMemoryRunStore.create();
    const run = await startRun(store, { configuration: 'approval', spoolDir: false });
    const model = new MockLanguageModelV3({
      doGenerate: [toolCallsAnswer([{ id: 'call-1', name: ECHO, input: { text: 'approved' } }]), textAnswer('Done.')],
    });
    const wrapped = wrapLanguageModel({ model, middleware: recordingMiddleware(run) });
    const toolSet = mcpToolSet(tools, { run });
    expect(toolSet[ECHO]?.needsApproval).toBe(true);

    const first = await generateText({
      model: wrapped,
      tools: toolSet,
      stopWhen: stepCountIs(5),
      abortSignal: run.signal,
      prompt: 'Echo it.',
    });
    const request = first.content.find((part) => part.type === 'tool-approval-request');
    expect(request).toMatchObject({ toolCall: { toolName: ECHO, toolCallId: 'call-1' } });
    // nothing was sent: only the LLM call is recorded
    expect(await kinds(store, run.id)).toEqual([['llm', 1, null]]);

    const messages: ModelMessage[] = [
      { role: 'user', content: 'Echo it.' },
      ...first.response.messages,
      {
        role: 'tool',
        content: [{ type: 'tool-approval-response', approvalId: request!.approvalId, approved: true, reason: 'looks safe' }],
      },
    ];
    const second = await generateText({ model: wrapped, tools: toolSet, stopWhen: stepCountIs(5), abortSignal: run.signal, messages });
    expect(second.text).toBe('Done.');
    await run.complete();
    // the approved call belongs to round 1, the LLM call that asked for it
    expect(await kinds(store, run.id)).toEqual([
      ['llm', 1, null],
      ['tool_start', 1, null],
      ['tool', 1, 'ok'],
      ['llm', 2, null],
    ]);
    // ai 6's tool-approval-response names no one; its reason is kept
    expect(await approvals(store, run.id)).toEqual([{ approved: true, by: null, reason: 'looks safe' }]);
  });

  it('a call refused through a tool-approval-response is one failed step whose toolApproval keeps the reason, by null', async () => {
    const store = InMemoryRunStore.create();
    const run = await startRun(store, { configuration: 'approval', spoolDir: false });
    const model = new MockLanguageModelV3({
      doGenerate: [toolCallsAnswer([{ id: 'call-1', name: ECHO, input: { text: 'no' } }]), textAnswer('Fine.')],
    });
    const wrapped = wrapLanguageModel({ model, middleware: recordingMiddleware(run) });
    const toolSet = mcpToolSet(tools, { run });
    const first = await generateText({
      model: wrapped,
      tools: toolSet,
      stopWhen: stepCountIs(5),
      abortSignal: run.signal,
      prompt: 'Echo it.',
    });
    const request = first.content.find((part) => part.type === 'tool-approval-request');
    const messages: ModelMessage[] = [
      { role: 'user', content: 'Echo it.' },
      ...first.response.messages,
      {
        role: 'tool',
        content: [{ type: 'tool-approval-response', approvalId: request!.approvalId, approved: false, reason: 'not on a Friday' }],
      },
    ];
    await generateText({ model: wrapped, tools: toolSet, stopWhen: stepCountIs(5), abortSignal: run.signal, messages });
    await run.complete();
    expect(await kinds(store, run.id)).toEqual([
      ['llm', 1, null],
      ['tool', 1, 'failed'],
      ['llm', 2, null],
    ]);
    expect(await approvals(store, run.id)).toEqual([{ approved: false, by: null, reason: 'not on a Friday' }]);
  });

  it('with an approve callback returning a decision: both the refused and the approved call keep who decided and why', async () => {
    const store = InMemoryRunStore.create();
    const run = await startRun(store, { configuration: 'approval', spoolDir: false });
    const model = new MockLanguageModelV3({
      doGenerate: [
        toolCallsAnswer([{ id: 'call-1', name: ECHO, input: { text: 'no' } }]),
        toolCallsAnswer([{ id: 'call-2', name: ECHO, input: { text: 'yes' } }]),
        toolCallsAnswer([{ id: 'call-3', name: ECHO, input: { text: 'bad' } }]),
        textAnswer('Done.'),
      ],
    });
    const toolSet = mcpToolSet(tools, {
      run,
      approve: ({ input }) =>
        input.text === 'yes'
          ? { approved: true, by: 'alice' }
          : input.text === 'no'
            ? { approved: false, by: 'bob', reason: 'too risky' }
            : { approved: true, by: '' },
    });
    const result = await generateText({
      model: wrapLanguageModel({ model, middleware: recordingMiddleware(run) }),
      tools: toolSet,
      stopWhen: stepCountIs(5),
      abortSignal: run.signal,
      prompt: 'Echo it.',
    });
    await run.complete();
    expect(await kinds(store, run.id)).toEqual([
      ['llm', 1, null],
      ['tool', 1, 'failed'],
      ['llm', 2, null],
      ['tool_start', 2, null],
      ['tool', 2, 'ok'],
      ['llm', 3, null],
      ['tool', 3, 'failed'],
      ['llm', 4, null],
    ]);
    // a decision a step cannot keep is refused (fail closed), naming the field and the rule; no one is recorded as deciding
    expect(await approvals(store, run.id)).toEqual([
      { approved: false, by: 'bob', reason: 'too risky' },
      { approved: true, by: 'alice', reason: null },
      null,
    ]);
    const broken = result.steps[2]?.content.find((part) => part.type === 'tool-error');
    expect(String((broken?.error as Error).message)).toBe(
      'McpToolSetOptions.approve returned a decision a step cannot keep: McpToolApprovalDecision.by must be a string of 1 to 200 characters without control characters, or null, got ""; the call was not sent',
    );
  });

  it('with an approve callback: a refused call is not sent, recorded as one failed step (not_approved), and the model reads why', async () => {
    const store = InMemoryRunStore.create();
    const run = await startRun(store, { configuration: 'approval', spoolDir: false });
    const asked: string[] = [];
    const model = new MockLanguageModelV3({
      doGenerate: [
        toolCallsAnswer([{ id: 'call-1', name: ECHO, input: { text: 'no' } }]),
        toolCallsAnswer([{ id: 'call-2', name: ECHO, input: { text: 'yes' } }]),
        textAnswer('Done.'),
      ],
    });
    const toolSet = mcpToolSet(tools, {
      run,
      approve: ({ tool, input, toolCallId }) => {
        asked.push(`${tool.name} ${toolCallId} ${String(input.text)}`);
        return input.text === 'yes';
      },
    });
    expect(toolSet[ECHO]?.needsApproval).toBe(false);
    const result = await generateText({
      model: wrapLanguageModel({ model, middleware: recordingMiddleware(run) }),
      tools: toolSet,
      stopWhen: stepCountIs(5),
      abortSignal: run.signal,
      prompt: 'Echo it.',
    });
    await run.complete();

    expect(asked).toEqual([`${ECHO} call-1 no`, `${ECHO} call-2 yes`]);
    const refused = result.steps[0]?.content.find((part) => part.type === 'tool-error');
    expect(McpToolNotApprovedError.is(refused?.error)).toBe(true);
    expect(model.doGenerateCalls[1]?.prompt.at(-1)).toMatchObject({
      content: [
        {
          output: {
            type: 'error-text',
            value: `the call of ${ECHO} was not approved (MCP server "guarded" requires approval of each call); it was not sent`,
          },
        },
      ],
    });
    expect(await kinds(store, run.id)).toEqual([
      ['llm', 1, null],
      ['tool', 1, 'failed'],
      ['llm', 2, null],
      ['tool_start', 2, null],
      ['tool', 2, 'ok'],
      ['llm', 3, null],
    ]);
    // a boolean names no one
    expect(await approvals(store, run.id)).toEqual([
      { approved: false, by: null, reason: null },
      { approved: true, by: null, reason: null },
    ]);
  });
});
