// The tool set and the recording middleware inside an AI SDK 7 loop (`ai7` is `npm:ai@7`, the line a
// team on ai 7 installs as `ai`): a real MCP server process, ai 7's own mock model (V4). ai 7 needs
// Node >= 22: on Node 20 this suite is skipped, by name, and the test command's Node 24 pass
// (tools/src/node24.ts) runs it.
import { createRequire } from 'node:module';
import type { McpServerRegistry, McpTool } from '@runledger/mcp';
import { InMemoryRunStore, RunCancelledError, startRun } from '@runledger/trace';
import type * as Ai7Module from 'ai7';
import type * as Ai7TestModule from 'ai7/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpToolSet } from './mcpToolSet.js';
import { recordingMiddleware } from './recordingMiddleware.js';
import { fixtureRegistry, textAnswer, toolCallsAnswer } from './testing/harness.js';

const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
/** ai 7's engines: Node >= 22. */
const AI7_RUNS_HERE = NODE_MAJOR >= 22;
const ECHO = 'mcp_fixture_echo';
const SLOW = 'mcp_fixture_slow';
const GUARDED_ECHO = 'mcp_guarded_echo';

type Ai7 = typeof Ai7Module;
type Ai7Test = typeof Ai7TestModule;
type Ai7Model = InstanceType<Ai7Test['MockLanguageModelV4']>;

// This package compiles against the `ai` of its devDependencies (6), so mcpToolSet and
// recordingMiddleware carry ai 6's types here; a team on ai 7 gets ai 7's types for the same names
// (aiSdk7Types.test.ts checks the sources against ai 7). The casts below are only that.
const toolsFor7 = (set: ReturnType<typeof mcpToolSet>) => set as unknown as Ai7Module.ToolSet;
const middlewareFor7 = (m: ReturnType<typeof recordingMiddleware>) => m as unknown as Ai7Module.LanguageModelMiddleware;
/** The tool set typed with a context of its own keys, as docs/ai-sdk.md tells a team passing `toolsContext` to write. */
const withToolContext = (set: Ai7Module.ToolSet) =>
  set as Record<string, Ai7Module.Tool<unknown, unknown, { readonly runId?: string; readonly tenant?: string }>>;
const answersFor7 = (answers: readonly unknown[]) => answers as Awaited<ReturnType<Ai7Model['doGenerate']>>[];

/** The stored steps as [kind, round, outcome or finish reason, failure cause]. */
async function stepsOf(store: InMemoryRunStore, runId: string) {
  return (await store.readSteps(runId)).map((step) => {
    const p = JSON.parse(step.payload) as { toolOutcome?: string; finishReason?: string; toolFailureCause?: string };
    return [step.kind, step.round, p.toolOutcome ?? p.finishReason ?? null, p.toolFailureCause ?? null] as const;
  });
}

/** The toolApproval of each tool step (null when it has none). */
async function approvalsOf(store: InMemoryRunStore, runId: string) {
  return (await store.readSteps(runId))
    .filter((s) => s.kind === 'tool')
    .map((s) => (JSON.parse(s.payload) as { toolApproval?: unknown }).toolApproval ?? null);
}

const TITLE = AI7_RUNS_HERE
  ? `AI SDK 7 loop on Node ${process.versions.node}`
  : `AI SDK 7 loop — SKIPPED on Node ${process.versions.node}: ai 7 needs Node >= 22 (the Node 24 pass runs it)`;

describe.skipIf(!AI7_RUNS_HERE)(TITLE, () => {
  let ai: Ai7;
  let AI7_VERSION = '';
  let MockLanguageModelV4: Ai7Test['MockLanguageModelV4'];
  let registry: McpServerRegistry;
  let guarded: McpServerRegistry;
  let tools: readonly McpTool[];
  let guardedTools: readonly McpTool[];

  beforeAll(async () => {
    ai = await import('ai7');
    AI7_VERSION = (createRequire(import.meta.url)('ai7/package.json') as { version: string }).version;
    ({ MockLanguageModelV4 } = await import('ai7/test'));
    registry = fixtureRegistry();
    guarded = fixtureRegistry({ id: 'guarded', requiresApproval: true });
    [tools, guardedTools] = await Promise.all([registry.tools(), guarded.tools()]);
  });
  afterAll(async () => {
    await Promise.all([registry?.close(), guarded?.close()]);
  });

  it('is ai 7 on Node >= 22', () => {
    expect(NODE_MAJOR).toBeGreaterThanOrEqual(22);
    expect(typeof ai.generateText).toBe('function');
    expect(AI7_VERSION).toMatch(/^7\./);
  });

  it('records each LLM call and the tool call of an ai 7 loop', async () => {
    const store = InMemoryRunStore.create();
    const run = await startRun(store, { configuration: 'ai7-loop', spoolDir: false });
    const model = new MockLanguageModelV4({
      modelId: 'scripted-7',
      doGenerate: answersFor7([toolCallsAnswer([{ id: 'call-1', name: ECHO, input: { text: 'hello 7' } }]), textAnswer('Echoed.')]),
    });
    const result = await ai.generateText({
      model: ai.wrapLanguageModel({ model, middleware: middlewareFor7(recordingMiddleware(run)) }),
      tools: toolsFor7(mcpToolSet(tools, { run })),
      stopWhen: ai.isStepCount(5),
      abortSignal: run.signal,
      prompt: 'Echo hello 7.',
    });
    expect(result.text).toBe('Echoed.');
    const toolResult = result.steps[0]?.content.find((part) => part.type === 'tool-result');
    expect(toolResult).toMatchObject({ toolName: ECHO, output: expect.stringContaining('hello 7') });
    await run.complete();
    expect(await stepsOf(store, run.id)).toEqual([
      ['llm', 1, 'tool-calls', null],
      ['tool_start', 1, null, null],
      ['tool', 1, 'ok', null],
      ['llm', 2, 'stop', null],
    ]);
  });

  it('records a call its timeout.toolMs ends as failed with a deadline cause, and the loop goes on', async () => {
    const store = InMemoryRunStore.create();
    const run = await startRun(store, { configuration: 'ai7-tool-timeout', spoolDir: false });
    const model = new MockLanguageModelV4({
      doGenerate: answersFor7([
        toolCallsAnswer([{ id: 'call-1', name: SLOW, input: { ms: 60_000, tag: 'ai7-timeout' } }]),
        textAnswer('It timed out.'),
      ]),
    });
    const started = Date.now();
    const result = await ai.generateText({
      model: ai.wrapLanguageModel({ model, middleware: middlewareFor7(recordingMiddleware(run)) }),
      tools: toolsFor7(mcpToolSet(tools, { run })),
      stopWhen: ai.isStepCount(5),
      abortSignal: run.signal,
      timeout: { toolMs: 300 },
      prompt: 'Run the slow export.',
    });
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(result.text).toBe('It timed out.');
    const toolError = result.steps[0]?.content.find((part) => part.type === 'tool-error');
    expect(String((toolError as { error?: unknown } | undefined)?.error)).toMatch(/tool timeout ended the call/);
    await run.complete();
    expect(await stepsOf(store, run.id)).toEqual([
      ['llm', 1, 'tool-calls', null],
      ['tool_start', 1, null, null],
      ['tool', 1, 'failed', 'mcp_deadline_exhausted'],
      ['llm', 2, 'stop', null],
    ]);
    const tool = (await store.readSteps(run.id)).find((s) => s.kind === 'tool');
    expect(tool?.toolOutcome).toBe('failed');
  });

  it('records a call the run’s cancel ends as cancelled, and the loop rejects with the run’s own reason', async () => {
    const store = InMemoryRunStore.create();
    const run = await startRun(store, { configuration: 'ai7-cancel', spoolDir: false });
    const model = new MockLanguageModelV4({
      doGenerate: answersFor7([
        toolCallsAnswer([{ id: 'call-1', name: SLOW, input: { ms: 60_000, tag: 'ai7-cancel' } }]),
        textAnswer('never'),
      ]),
    });
    const loop = ai
      .generateText({
        model: ai.wrapLanguageModel({ model, middleware: middlewareFor7(recordingMiddleware(run)) }),
        tools: toolsFor7(mcpToolSet(tools, { run })),
        stopWhen: ai.isStepCount(5),
        abortSignal: run.signal,
        timeout: { toolMs: 30_000 },
        prompt: 'Run the slow export.',
      })
      .then(
        () => null,
        (error: unknown) => error,
      );
    for (let i = 0; i < 200 && !(await store.readSteps(run.id)).some((s) => s.kind === 'tool_start'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    await run.cancel();
    const error = await loop;
    expect(RunCancelledError.is(error)).toBe(true);
    expect(error).toBe(run.signal.reason);
    const stored = await run.fail(error);
    expect(stored.status).toBe('cancelled');
    expect(await stepsOf(store, run.id)).toEqual([
      ['llm', 1, 'tool-calls', null],
      ['tool_start', 1, null, null],
      ['tool', 1, 'cancelled', null],
    ]);
  });

  // on a server that requires approval and on one that does not: ai 7 asks toolApproval first for every tool
  for (const gated of [true, false]) {
    it(`records ai 7’s toolApproval denial of a call as a not_approved step with its reason (${gated ? 'a server that requires approval' : 'a server that needs none'})`, async () => {
      const store = InMemoryRunStore.create();
      const run = await startRun(store, { configuration: 'ai7-approval', spoolDir: false });
      const name = gated ? GUARDED_ECHO : ECHO;
      const model = new MockLanguageModelV4({
        doGenerate: answersFor7([toolCallsAnswer([{ id: 'call-1', name, input: { text: 'no' } }]), textAnswer('Refused.')]),
      });
      const result = await ai.generateText({
        model: ai.wrapLanguageModel({ model, middleware: middlewareFor7(recordingMiddleware(run)) }),
        tools: toolsFor7(mcpToolSet(gated ? guardedTools : tools, { run })),
        toolApproval: { [name]: { type: 'denied', reason: 'not on a Sunday' } },
        stopWhen: ai.isStepCount(5),
        abortSignal: run.signal,
        prompt: 'Echo no.',
      });
      expect(result.text).toBe('Refused.');
      await run.complete();
      expect(await stepsOf(store, run.id)).toEqual([
        ['llm', 1, 'tool-calls', null],
        ['tool', 1, 'failed', 'not_approved'],
        ['llm', 2, 'stop', null],
      ]);
      expect(await approvalsOf(store, run.id)).toEqual([{ approved: false, by: null, reason: 'not on a Sunday' }]);
    });
  }

  it('records ai 7’s toolApproval approval of a call on its tool step, and the approve option’s decision with who and why', async () => {
    const store = InMemoryRunStore.create();
    const run = await startRun(store, { configuration: 'ai7-approved', spoolDir: false });
    const model = new MockLanguageModelV4({
      doGenerate: answersFor7([toolCallsAnswer([{ id: 'call-1', name: GUARDED_ECHO, input: { text: 'yes' } }]), textAnswer('Done.')]),
    });
    await ai.generateText({
      model: ai.wrapLanguageModel({ model, middleware: middlewareFor7(recordingMiddleware(run)) }),
      tools: toolsFor7(mcpToolSet(guardedTools, { run })),
      toolApproval: { [GUARDED_ECHO]: 'approved' },
      stopWhen: ai.isStepCount(5),
      abortSignal: run.signal,
      prompt: 'Echo yes.',
    });
    await run.complete();
    expect(await approvalsOf(store, run.id)).toEqual([{ approved: true, by: null, reason: null }]);

    const decided = await startRun(store, { configuration: 'ai7-approve-option', spoolDir: false });
    const model2 = new MockLanguageModelV4({
      doGenerate: answersFor7([toolCallsAnswer([{ id: 'call-2', name: GUARDED_ECHO, input: { text: 'maybe' } }]), textAnswer('Done.')]),
    });
    await ai.generateText({
      model: ai.wrapLanguageModel({ model: model2, middleware: middlewareFor7(recordingMiddleware(decided)) }),
      tools: toolsFor7(
        mcpToolSet(guardedTools, { run: decided, approve: () => ({ approved: false, by: 'ops@example.com', reason: 'change freeze' }) }),
      ),
      stopWhen: ai.isStepCount(5),
      abortSignal: decided.signal,
      prompt: 'Echo maybe.',
    });
    await decided.complete();
    expect(await stepsOf(store, decided.id)).toEqual([
      ['llm', 1, 'tool-calls', null],
      ['tool', 1, 'failed', 'not_approved'],
      ['llm', 2, 'stop', null],
    ]);
    expect(await approvalsOf(store, decided.id)).toEqual([{ approved: false, by: 'ops@example.com', reason: 'change freeze' }]);
  });

  it('records a call ai 7’s toolApproval holds for the app on a server that needs no approval: approved with the response’s reason, or refused', async () => {
    const store = InMemoryRunStore.create();
    for (const [approved, reason] of [
      [true, 'ops said yes'],
      [false, 'ops said no'],
    ] as const) {
      const run = await startRun(store, { configuration: `ai7-held-open-${approved}`, spoolDir: false });
      const model = new MockLanguageModelV4({
        doGenerate: answersFor7([toolCallsAnswer([{ id: 'call-1', name: ECHO, input: { text: 'held' } }]), textAnswer('Done.')]),
      });
      const wrapped = ai.wrapLanguageModel({ model, middleware: middlewareFor7(recordingMiddleware(run)) });
      const toolSet = toolsFor7(mcpToolSet(tools, { run }));
      const toolApproval = { [ECHO]: 'user-approval' as const };
      const first = await ai.generateText({
        model: wrapped,
        tools: toolSet,
        toolApproval,
        stopWhen: ai.isStepCount(5),
        prompt: 'Echo held.',
      });
      const request = first.content.find((part) => part.type === 'tool-approval-request');
      expect(request).toMatchObject({ toolCall: { toolName: ECHO, toolCallId: 'call-1' } });
      const messages: Ai7Module.ModelMessage[] = [
        { role: 'user', content: 'Echo held.' },
        ...first.response.messages,
        { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: request!.approvalId, approved, reason }] },
      ];
      await ai.generateText({ model: wrapped, tools: toolSet, toolApproval, stopWhen: ai.isStepCount(5), messages });
      await run.complete();
      expect((await stepsOf(store, run.id)).filter(([kind]) => kind === 'tool')).toEqual([
        ['tool', 1, approved ? 'ok' : 'failed', approved ? null : 'not_approved'],
      ]);
      expect(await approvalsOf(store, run.id)).toEqual([{ approved, by: null, reason }]);
    }
  });

  it('hands the run’s id to ai 7 through the tool context: execute, a per-tool toolApproval function and the tool callbacks see it', async () => {
    const store = InMemoryRunStore.create();
    const run = await startRun(store, { configuration: 'ai7-tools-context', spoolDir: false });
    const model = new MockLanguageModelV4({
      doGenerate: answersFor7([toolCallsAnswer([{ id: 'call-1', name: ECHO, input: { text: 'ctx' } }]), textAnswer('Done.')]),
    });
    const seen: unknown[] = [];
    await ai.generateText({
      model: ai.wrapLanguageModel({ model, middleware: middlewareFor7(recordingMiddleware(run)) }),
      tools: withToolContext(toolsFor7(mcpToolSet(tools, { run }))),
      toolsContext: { [ECHO]: { tenant: 'acme' } },
      toolApproval: {
        [ECHO]: (_input, { toolContext }) => {
          seen.push(['approval', toolContext]);
          return 'not-applicable';
        },
      },
      onToolExecutionStart: (event) => void seen.push(['start', event.toolContext]),
      stopWhen: ai.isStepCount(5),
      abortSignal: run.signal,
      prompt: 'Echo ctx.',
    });
    await run.complete();
    expect(seen).toEqual([
      ['approval', { tenant: 'acme', runId: run.id }],
      ['start', { tenant: 'acme', runId: run.id }],
    ]);
    expect((await stepsOf(store, run.id)).map(([kind, , outcome]) => [kind, outcome])).toContainEqual(['tool', 'ok']);
    // 'not-applicable' is no decision: the step claims no approval
    expect(await approvalsOf(store, run.id)).toEqual([null]);

    // a context naming another run fails ai 7's check of it: the loop rejects before the call is sent
    const other = await startRun(store, { configuration: 'ai7-tools-context-other', spoolDir: false });
    const model2 = new MockLanguageModelV4({
      doGenerate: answersFor7([toolCallsAnswer([{ id: 'call-2', name: ECHO, input: { text: 'ctx' } }]), textAnswer('Done.')]),
    });
    const refused = await ai
      .generateText({
        model: ai.wrapLanguageModel({ model: model2, middleware: middlewareFor7(recordingMiddleware(other)) }),
        tools: withToolContext(toolsFor7(mcpToolSet(tools, { run: other }))),
        toolsContext: { [ECHO]: { runId: run.id } },
        stopWhen: ai.isStepCount(5),
        abortSignal: other.signal,
        prompt: 'Echo ctx.',
      })
      .then(
        () => null,
        (e: unknown) => e,
      );
    await other.fail(refused);
    expect(String((refused as { cause?: unknown } | null)?.cause)).toContain(
      `toolsContext.${ECHO}.runId must be absent or the id of the run`,
    );
    expect((await stepsOf(store, other.id)).map(([kind]) => kind)).not.toContain('tool_start');
  });
});
