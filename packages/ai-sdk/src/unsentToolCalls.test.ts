// Every tool call the model asks for ends as exactly one `tool` step: a call that is sent ends
// with its outcome; a call the AI SDK refuses before it reaches the tool (an unknown tool name,
// arguments that are not a JSON object) or that approval refuses ends `failed` with a cause of its
// own, and none of those count against the server's failure rate.
import type { McpServerRegistry, McpTool } from '@runledger/mcp';
import { InMemoryRunStore, startRun } from '@runledger/trace';
import { generateText, type ModelMessage, simulateReadableStream, stepCountIs, streamText, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { McpToolNotApprovedError } from './McpToolNotApprovedError.js';
import { mcpToolSet } from './mcpToolSet.js';
import { recordingMiddleware } from './recordingMiddleware.js';
import {
  fixtureRegistry,
  openStore,
  scratch,
  type StreamPart,
  startsPaired,
  textAnswer,
  toolCallsAnswer,
  viewSteps,
} from './testing/harness.js';

/** A kind of call the model may ask for, and how it must end. */
const CALLS = {
  ok: { name: 'mcp_fixture_echo', input: '{"text":"hi"}', outcome: 'ok', cause: undefined, sent: true },
  serverError: { name: 'mcp_fixture_fail', input: '{}', outcome: 'failed', cause: 'server_error', sent: true },
  unknownTool: { name: 'mcp_fixture_nope', input: '{"text":"hi"}', outcome: 'failed', cause: 'unknown_tool', sent: false },
  unparsable: { name: 'mcp_fixture_echo', input: '{"text": "cut of', outcome: 'failed', cause: 'malformed_arguments', sent: false },
  notAnObject: { name: 'mcp_fixture_echo', input: '"just text"', outcome: 'failed', cause: 'malformed_arguments', sent: false },
} as const;
type CallKind = keyof typeof CALLS;
const KINDS = Object.keys(CALLS) as CallKind[];

const USAGE = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

describe('every tool call the model asks for ends as exactly one tool step', () => {
  let registry: McpServerRegistry;
  let tools: readonly McpTool[];
  let guardedRegistry: McpServerRegistry;
  let guarded: readonly McpTool[];

  beforeAll(async () => {
    registry = fixtureRegistry();
    guardedRegistry = fixtureRegistry({ id: 'guarded', requiresApproval: true });
    [tools, guarded] = await Promise.all([registry.tools(), guardedRegistry.tools()]);
  });
  afterAll(async () => {
    await registry.close();
    await guardedRegistry.close();
  });

  it('generateText: sent or refused, each call is one tool step with its outcome and cause; refusals never count against the server', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.constantFrom(...KINDS), { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 3 }),
        async (rounds) => {
          const store = InMemoryRunStore.create();
          const run = await startRun(store, { configuration: 'every-call', privacy: 'full', spoolDir: false });
          const asked = rounds.map((kinds, r) => kinds.map((kind, i) => ({ id: `r${r}c${i}`, kind, ...CALLS[kind] })));
          const model = new MockLanguageModelV3({
            doGenerate: [...asked.map((calls) => toolCallsAnswer(calls)), textAnswer('Done.')],
          });
          const result = await generateText({
            model: wrapLanguageModel({ model, middleware: recordingMiddleware(run) }),
            tools: mcpToolSet(tools, { run }),
            stopWhen: stepCountIs(10),
            prompt: 'Call the tools.',
          });
          expect(result.text).toBe('Done.');
          const stored = await run.complete();
          const all = asked.flat();
          const modelCalls = result.steps.flatMap((step) => step.content.filter((part) => part.type === 'tool-call'));
          expect(modelCalls).toHaveLength(all.length);

          const steps = await store.readSteps(run.id);
          expect(startsPaired(steps)).toBe(true);
          const toolSteps = viewSteps(steps).filter((s) => s.kind === 'tool');
          // a refused call is recorded with the LLM step that asked for it, a sent one when it ends: compare as sets
          const order = (rows: unknown[][]) => rows.map((row) => JSON.stringify(row)).sort();
          expect(order(toolSteps.map((s) => [s.round, s.toolName, s.toolOutcome, s.toolFailureCause ?? null]))).toEqual(
            order(asked.flatMap((calls, r) => calls.map((c) => [r + 1, c.name, c.outcome, c.cause ?? null]))),
          );
          expect(viewSteps(steps).filter((s) => s.kind === 'tool_start')).toHaveLength(all.filter((c) => c.sent).length);
          const count = (outcome: string) => all.filter((c) => c.outcome === outcome).length;
          expect(stored.outcomeCounts).toEqual({ ok: count('ok'), failed: count('failed'), cancelled: 0 });

          const oks = count('ok');
          const serverErrors = all.filter((c) => c.kind === 'serverError').length;
          const [health] = await store.serverHealth();
          expect(health).toMatchObject({
            server: 'fixture',
            ok: oks,
            failed: count('failed'),
            failureRate: oks + serverErrors === 0 ? null : serverErrors / (oks + serverErrors),
          });
        },
      ),
      { numRuns: 12 },
    );
  });

  it('streamText: an unknown tool and unparsable arguments in a stream are each one failed tool step', async () => {
    const store = InMemoryRunStore.create();
    const run = await startRun(store, { configuration: 'every-call-stream', spoolDir: false });
    const calls = [CALLS.ok, CALLS.unknownTool, CALLS.unparsable];
    const model = new MockLanguageModelV3({
      doStream: [
        {
          stream: simulateReadableStream({
            chunks: [
              ...calls.map((c, i): StreamPart => ({ type: 'tool-call', toolCallId: `s${i}`, toolName: c.name, input: c.input })),
              { type: 'finish', usage: USAGE, finishReason: { unified: 'tool-calls', raw: 'tool_calls' } },
            ] as StreamPart[],
            chunkDelayInMs: null,
          }),
        },
        {
          stream: simulateReadableStream({
            chunks: [
              { type: 'text-start', id: 't' },
              { type: 'text-delta', id: 't', delta: 'Done.' },
              { type: 'text-end', id: 't' },
              { type: 'finish', usage: USAGE, finishReason: { unified: 'stop', raw: 'stop' } },
            ] as StreamPart[],
            chunkDelayInMs: null,
          }),
        },
      ],
    });
    const result = streamText({
      model: wrapLanguageModel({ model, middleware: recordingMiddleware(run) }),
      tools: mcpToolSet(tools, { run }),
      stopWhen: stepCountIs(5),
      prompt: 'Call the tools.',
    });
    expect(await result.text).toBe('Done.');
    const stored = await run.complete();
    expect(stored.outcomeCounts).toEqual({ ok: 1, failed: 2, cancelled: 0 });
    const toolSteps = viewSteps(await store.readSteps(run.id)).filter((s) => s.kind === 'tool');
    expect(toolSteps.map((s) => [s.round, s.toolName, s.toolOutcome, s.toolFailureCause]).sort()).toEqual(
      calls.map((c) => [1, c.name, c.outcome, c.cause]).sort(),
    );
  });

  it('a call refused by approve is one failed tool step (not_approved), never sent (a SQLite store)', async () => {
    const store = await openStore(scratch().dbPath);
    onTestFinished(() => store.close());
    const run = await startRun(store, { configuration: 'every-call-approve', spoolDir: false });
    const model = new MockLanguageModelV3({
      doGenerate: [toolCallsAnswer([{ id: 'call-1', name: 'mcp_guarded_echo', input: { text: 'no' } }]), textAnswer('Done.')],
    });
    const result = await generateText({
      model: wrapLanguageModel({ model, middleware: recordingMiddleware(run) }),
      tools: mcpToolSet(guarded, { run, approve: () => false }),
      stopWhen: stepCountIs(5),
      prompt: 'Echo it.',
    });
    const refused = result.steps[0]?.content.find((part) => part.type === 'tool-error');
    expect(McpToolNotApprovedError.is(refused?.error)).toBe(true);
    const stored = await run.complete();
    expect(stored.outcomeCounts).toEqual({ ok: 0, failed: 1, cancelled: 0 });
    expect(viewSteps(await store.readSteps(run.id)).map((s) => [s.kind, s.round, s.toolServer, s.toolOutcome, s.toolFailureCause])).toEqual(
      [
        ['llm', 1, undefined, undefined, undefined],
        ['tool', 1, 'guarded', 'failed', 'not_approved'],
        ['llm', 2, undefined, undefined, undefined],
      ],
    );
    expect((await store.serverHealth())[0]).toMatchObject({ server: 'guarded', failed: 1, failureRate: null });
  });

  it('a call denied with a tool-approval-response is one failed tool step (not_approved) in the round that asked for it', async () => {
    const store = InMemoryRunStore.create();
    const run = await startRun(store, { configuration: 'every-call-denied', spoolDir: false });
    const model = new MockLanguageModelV3({
      doGenerate: [toolCallsAnswer([{ id: 'call-1', name: 'mcp_guarded_echo', input: { text: 'no' } }]), textAnswer('Understood.')],
    });
    const wrapped = wrapLanguageModel({ model, middleware: recordingMiddleware(run) });
    const toolSet = mcpToolSet(guarded, { run });
    const first = await generateText({ model: wrapped, tools: toolSet, stopWhen: stepCountIs(5), prompt: 'Echo it.' });
    const request = first.content.find((part) => part.type === 'tool-approval-request');
    expect(request).toBeDefined();
    const messages: ModelMessage[] = [
      { role: 'user', content: 'Echo it.' },
      ...first.response.messages,
      {
        role: 'tool',
        content: [{ type: 'tool-approval-response', approvalId: request!.approvalId, approved: false, reason: 'not today' }],
      },
    ];
    const second = await generateText({ model: wrapped, tools: toolSet, stopWhen: stepCountIs(5), messages });
    expect(second.text).toBe('Understood.');
    const stored = await run.complete();
    expect(stored.outcomeCounts).toEqual({ ok: 0, failed: 1, cancelled: 0 });
    expect(viewSteps(await store.readSteps(run.id)).map((s) => [s.kind, s.round, s.toolOutcome, s.toolFailureCause, s.toolResult])).toEqual(
      [
        ['llm', 1, undefined, undefined, undefined],
        ['tool', 1, 'failed', 'not_approved', undefined],
        ['llm', 2, undefined, undefined, undefined],
      ],
    );
  });
});
