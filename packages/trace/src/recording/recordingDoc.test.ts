// The examples of docs/recording.md, run as written (with a fake McpTool), so the page cannot
// drift from the API.
import { ToolResult, WriteTarget } from '@runledger/core';
import { describe, expect, it } from 'vitest';
import { applyPrivacy } from '../privacy/applyPrivacy.js';
import { copyRuns } from '../store/copyRuns.js';
import { InMemoryRunStore } from '../store/InMemoryRunStore.js';
import { RunRecordError } from './RunRecordError.js';
import { RunStep } from '../step/RunStep.js';
import { buildRunTimeline } from '../timeline/buildRunTimeline.js';
import { RunTrace } from './RunTrace.js';
import { startRun } from './startRun.js';

const githubSearch = {
  name: 'mcp_github_search',
  server: 'github',
  async execute(_args: Record<string, unknown>, _options: { signal?: AbortSignal }): Promise<ToolResult> {
    return ToolResult.text('2 issues');
  },
};

describe('docs/recording.md', () => {
  it('start, record, end', async () => {
    const store = InMemoryRunStore.create();
    const run = await startRun(store, { configuration: 'support-bot', actor: 'ops@example.com' });
    try {
      await run.trace.recordRequest({ content: 'Why did the nightly export fail?' });
      await run.trace.recordLlmCall({
        round: 0,
        durationMs: 812.4,
        model: 'gpt-x',
        provider: 'openai.chat', // who serves the model: gen_ai.provider.name in OpenTelemetry
        promptTokens: 1200,
        completionTokens: 80,
        requestedToolCalls: [{ name: 'mcp_github_search', arguments: { q: 'export failed' } }],
      });
      const start = await run.trace.recordToolStart({
        toolName: githubSearch.name,
        toolServer: githubSearch.server,
        toolArguments: { q: 'export failed' },
      });
      const started = performance.now();
      const result = await githubSearch.execute({ q: 'export failed' }, { signal: run.signal });
      await run.trace.recordToolResult({
        toolCallId: start.toolCallId,
        toolName: githubSearch.name,
        toolServer: githubSearch.server,
        toolArguments: { q: 'export failed' },
        result,
        round: 0,
        durationMs: performance.now() - started,
      });
      await run.complete();
    } catch (error) {
      await run.fail(error);
    }
    const stored = await run.finished;
    expect(stored).toMatchObject({ status: 'completed', stepCount: 4, outcomeCounts: { ok: 1, failed: 0, cancelled: 0 } });

    const runRow = await store.getRun(run.id);
    const steps = await store.readSteps(run.id);
    const entries = buildRunTimeline(runRow, steps);
    expect(entries.map((e) => e.event ?? e.kind)).toEqual(['started', 'request', 'llm', 'tool', 'completed']);
    const health = await store.serverHealth({ since: Date.now() - 24 * 3600_000 });
    expect(health.map((h) => [h.server, h.ok])).toEqual([['github', 1]]);

    const postgres = InMemoryRunStore.create();
    const seen: number[] = [];
    const copied = await copyRuns(store, postgres, { onProgress: ({ runsSeen }) => seen.push(runsSeen) });
    expect(copied).toEqual({ runsSeen: 1, runsCopied: 1, runsSkipped: 0, stepsCopied: 4 });
  });

  it('calls on the wire', async () => {
    const store = InMemoryRunStore.create();
    const run = await startRun(store, { configuration: 'support-bot', heartbeatMs: 0, spoolDir: false });
    const tool = githubSearch;
    const args = { q: 'x' };
    const round = 0;
    const start = await run.trace.recordToolStart({
      toolName: tool.name,
      toolServer: tool.server,
      toolArguments: args,
      round,
      writes: true,
    });
    const onTheWire = buildRunTimeline(await store.getRun(run.id), await store.readSteps(run.id)).filter((e) => e.callState !== null);
    expect(onTheWire.map((e) => [e.kind, e.callState, e.source])).toEqual([['tool_start', 'on_the_wire', 'github']]);
    const result = await tool.execute(args, { signal: run.signal });
    const durationMs = 3;
    await run.trace.recordToolResult({
      toolCallId: start.toolCallId,
      toolName: tool.name,
      toolServer: tool.server,
      result,
      round,
      durationMs,
    });
    const ended = buildRunTimeline(await store.getRun(run.id), await store.readSteps(run.id));
    expect(ended.filter((e) => e.callState !== null)).toEqual([]);
    expect(ended.filter((e) => e.kind === 'tool').map((e) => e.outcome)).toEqual(['ok']);
    await run.complete();
  });

  it('long runs: memory', async () => {
    const store = InMemoryRunStore.create();
    const run = await startRun(store, { configuration: 'nightly-crawler', keepSteps: 1000, heartbeatMs: 0 });
    for (let i = 0; i < 1500; i++) {
      await run.trace.recordToolResult({
        toolName: githubSearch.name,
        toolServer: githubSearch.server,
        result: ToolResult.text('x'),
        round: i,
      });
    }
    expect(run.trace.steps).toHaveLength(1000);
    expect(run.trace.steps[0]!.round).toBe(500);
    expect(run.trace.stepCount).toBe(1500);
    const rounds: number[] = [];
    for await (const stored of run.readSteps()) {
      const step = RunStep.fromPayload(stored.payload);
      rounds.push(step.round);
    }
    expect(rounds).toEqual(Array.from({ length: 1500 }, (_, i) => i));
    await run.complete();
  });

  it('writes fail closed; RunTrace on its own; applyPrivacy', async () => {
    const store = InMemoryRunStore.create();
    const lost: string[] = [];
    const run = await startRun(store, {
      configuration: 'c',
      heartbeatMs: 0,
      spoolDir: false, // no spool, one try: a step the store refuses is lost (loudly)
      retry: { attempts: 1 },
      onRecordError: (_error, step) => lost.push(step.kind),
    });
    await store.close(); // every append now fails
    await expect(run.trace.recordLlmCall({ round: 0 })).resolves.toBeDefined();
    expect(run.trace.recordFailures).toBe(1);
    expect(lost).toEqual(['llm']);
    const result = ToolResult.written('created', WriteTarget.created('ticket', 'T-1'));
    let caught: unknown;
    try {
      await run.trace.recordToolResult({ toolName: 'mcp_jira_create', result, round: 0, durationMs: 1, writes: true });
    } catch (error) {
      caught = error;
    }
    expect(RunRecordError.is(caught)).toBe(true);

    const written: unknown[] = [];
    const sink = { write: async (row: unknown) => void written.push(row) };
    const warnings: RunStep[] = [];
    const trace = RunTrace.create({
      privacy: 'metadata',
      onRecord: async (_step, { index, recordedAt, payload, isWrite }) => {
        await sink.write({ index, recordedAt, payload, isWrite });
      },
      onRecordError: (_error, step) => warnings.push(step),
    });
    await trace.recordContextBudget({ round: 0, tokenBudget: 8000, tokensUsed: 6100 });
    await trace.flush();
    expect(written).toHaveLength(1);
    expect(trace.steps).toHaveLength(1);
    const step = trace.steps[0]!;
    expect(applyPrivacy(step.toPayload(), 'redacted', { maxStringLength: 500 })).toEqual(step.toPayload());
  });
});
