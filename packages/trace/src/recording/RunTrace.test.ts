import { ToolArtifact, ToolResult, WriteTarget } from '@runledger/core';
import { describe, expect, it } from 'vitest';
import { RunRecordError } from './RunRecordError.js';
import { type RunRecord, RunTrace } from './RunTrace.js';
import type { RunStep } from '../step/RunStep.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('RunTrace', () => {
  it('records every kind with options objects and keeps them in record order', async () => {
    const trace = RunTrace.create();
    await trace.recordRequest({ content: 'find the bug' });
    await trace.recordContextBudget({ round: 0, tokenBudget: 1000, tokensUsed: 200 });
    await trace.recordDroppedSources({ round: 0, sources: ['old.md'] });
    await trace.recordAssembledMessages({ round: 0, messages: [{ role: 'user', content: 'find the bug' }] });
    await trace.recordLlmCall({
      round: 0,
      durationMs: 10,
      model: 'm',
      promptTokens: 5,
      completionTokens: 2,
      requestedToolCalls: [{ name: 'mcp_gh_search', arguments: { q: 'bug' } }],
    });
    await trace.recordToolResult({
      toolName: 'mcp_gh_search',
      toolArguments: { q: 'bug' },
      result: ToolResult.text('3 hits'),
      round: 0,
      durationMs: 4,
    });
    expect(trace.steps.map((s) => s.kind)).toEqual(['request', 'context', 'dropped', 'assembled', 'llm', 'tool']);
    expect(trace.steps[5]!.toolServer).toBe('gh');
    expect(Object.isFrozen(trace.steps)).toBe(true);
  });

  it('derives toolIsError from the outcome in both tool forms', async () => {
    const trace = RunTrace.create();
    const ok = await trace.recordToolResult({ toolName: 't', result: ToolResult.text('x'), round: 0, durationMs: 1 });
    const failed = await trace.recordToolResult({ toolName: 't', result: ToolResult.error('x'), round: 0, durationMs: 1 });
    const cancelled = await trace.recordToolResult({ toolName: 't', result: ToolResult.cancelled('stopped'), round: 0, durationMs: 1 });
    const boolTrue = await trace.recordToolExecution({ toolName: 't', toolResult: 'x', isError: true, round: 0, durationMs: 1 });
    const boolFalse = await trace.recordToolExecution({ toolName: 't', toolResult: 'x', isError: false, round: 0, durationMs: 1 });
    expect([ok, failed, cancelled, boolTrue, boolFalse].map((s) => [s.toolOutcome, s.toolIsError])).toEqual([
      ['ok', false],
      ['failed', true],
      ['cancelled', true],
      ['failed', true],
      ['ok', false],
    ]);
    expect(cancelled.toPayload()).toMatchObject({ toolIsError: true, toolOutcome: 'cancelled', toolResult: 'stopped' });
    expect(() =>
      trace.recordToolExecution({ toolName: 't', toolResult: 'x', isError: 'yes' as unknown as boolean, round: 0, durationMs: 1 }),
    ).toThrow(/isError must be a boolean/);
    expect(() =>
      trace.recordToolResult({ toolName: 't', result: { outcome: 'ok' } as unknown as ToolResult, round: 0, durationMs: 1 }),
    ).toThrow(/must be a ToolResult/);
  });

  it('keeps artifacts and the write target of an ok result and bounds its content', async () => {
    const trace = RunTrace.create();
    const step = await trace.recordToolResult({
      toolName: 'mcp_jira_create',
      result: ToolResult.written('x'.repeat(100_000), WriteTarget.created('ticket', 'T-1'), ToolArtifact.text('a', 'b')),
      round: 0,
      durationMs: 1,
    });
    expect(step.toolWriteTarget?.id).toBe('T-1');
    expect(step.toolArtifacts).toHaveLength(1);
    expect(step.toolResult!.length).toBeLessThan(100_000);
  });

  it('runs an async hook in record order, one at a time, with the filtered payload', async () => {
    const seen: number[] = [];
    let active = 0;
    let maxActive = 0;
    const records: RunRecord[] = [];
    let now = 1000;
    const trace = RunTrace.create({
      clock: () => now++,
      onRecord: async (_step, record) => {
        active++;
        maxActive = Math.max(maxActive, active);
        await sleep(record.index % 2 === 0 ? 5 : 0);
        seen.push(record.index);
        records.push(record);
        active--;
      },
    });
    const pending: Promise<RunStep>[] = [];
    for (let i = 0; i < 10; i++)
      pending.push(
        trace.recordToolExecution({
          toolName: 'mcp_s_t',
          toolArguments: { secret: 'x' },
          toolResult: 'content',
          isError: i % 3 === 0,
          round: i,
          durationMs: 1,
        }),
      );
    expect(trace.steps).toHaveLength(10);
    await Promise.all(pending);
    await trace.flush();
    expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(maxActive).toBe(1);
    expect(records[0]!.recordedAt).toBe(1000);
    expect(records[0]!.payload).toMatchObject({ toolArgumentCount: 1, toolResultLength: 7, toolOutcome: 'failed' });
    expect(records[0]!.payload).not.toHaveProperty('toolResult');
  });

  it('never lets a hook failure reach the agent loop for an ordinary step', async () => {
    const errors: unknown[] = [];
    const trace = RunTrace.create({
      onRecord: (step) => {
        if (step.kind === 'llm') throw new Error('disk full');
        return Promise.reject(new Error('db down'));
      },
      onRecordError: (error) => errors.push(error),
    });
    await expect(trace.recordLlmCall({ round: 0, durationMs: 1 })).resolves.toBeDefined();
    await expect(trace.recordToolResult({ toolName: 't', result: ToolResult.error('x'), round: 0, durationMs: 1 })).resolves.toBeDefined();
    expect(errors.map((e) => (e as Error).message)).toEqual(['disk full', 'db down']);
    expect(trace.recordFailures).toBe(2);
  });

  it('fails closed with a typed error when the step of a write cannot be recorded', async () => {
    const trace = RunTrace.create({ onRecord: async () => Promise.reject(new Error('db down')) });
    const written = trace.recordToolResult({
      toolName: 'mcp_jira_create',
      result: ToolResult.written('ok', WriteTarget.created('ticket', 'T-9')),
      round: 0,
      durationMs: 1,
    });
    await expect(written).rejects.toSatisfy(
      (error: unknown) => RunRecordError.is(error) && error.code === 'unaudited_write' && error.step.toolWriteTarget?.id === 'T-9',
    );
    await expect(written).rejects.toThrow('the write of tool "mcp_jira_create" (created ticket T-9) could not be recorded: db down');
    const declared = trace.recordToolExecution({
      toolName: 'mcp_fs_write',
      toolResult: 'x',
      isError: true,
      writes: true,
      round: 0,
      durationMs: 1,
    });
    await expect(declared).rejects.toBeInstanceOf(RunRecordError);
    await expect(
      trace.recordToolResult({ toolName: 'mcp_fs_read', result: ToolResult.text('x'), round: 0, durationMs: 1 }),
    ).resolves.toBeDefined();
  });

  it('refuses an unknown privacy level', () => {
    expect(() => RunTrace.create({ privacy: 'everything' as 'full' })).toThrow(/RunTraceOptions\.privacy must be one of/);
  });
});
