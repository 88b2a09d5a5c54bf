import { ToolResult } from '@runledger/core';
import { describe, expect, it } from 'vitest';
import { applyPrivacy } from '../privacy/applyPrivacy.js';
import { InMemoryRunStore } from '../store/InMemoryRunStore.js';
import { RunStep } from '../step/RunStep.js';
import { RunStepKind } from '../step/RunStepKind.js';
import type { StoredRun, StoredStep } from '../store/RunStore.js';
import { RunCallState } from '../timeline/RunTimelineEntry.js';
import { buildRunTimeline } from '../timeline/buildRunTimeline.js';
import { RunTrace } from './RunTrace.js';
import { startRun } from './startRun.js';

const RUN_ID = '0b4e7a0e-5fe1-4b9a-a0c3-0c3e0ab1b6f1';

function stored(sequence: number, kind: string, createdAt: number, payload: Record<string, unknown>): StoredStep {
  return {
    runId: RUN_ID,
    sequence,
    kind,
    round: 0,
    durationMs: 0,
    createdAt,
    payload: JSON.stringify({ kind, round: 0, durationMs: 0, ...payload }),
    toolServer: null,
    toolOutcome: null,
  };
}

function run(status: StoredRun['status']): StoredRun {
  return {
    id: RUN_ID,
    status,
    configuration: 'c',
    actor: null,
    createdAt: 1000,
    startedAt: 1000,
    finishedAt: status === 'running' ? null : 5000,
    terminationReason: null,
    cancelRequestedAt: null,
    heartbeatAt: null,
    stepCount: 0,
    outcomeCounts: { ok: 0, failed: 0, cancelled: 0 },
  };
}

describe('the tool_start step', () => {
  it('is a step kind of its own, naming the call by toolCallId', () => {
    expect(RunStepKind.TOOL_START).toBe('tool_start');
    const step = RunStep.of({
      kind: 'tool_start',
      round: 1,
      durationMs: 0,
      toolName: 'mcp_docs_search',
      toolServer: 'docs',
      toolArguments: { q: 'x' },
      toolCallId: 'call-1',
    });
    expect(step.toPayload()).toEqual({
      kind: 'tool_start',
      round: 1,
      durationMs: 0,
      toolName: 'mcp_docs_search',
      toolServer: 'docs',
      toolArguments: { q: 'x' },
      toolCallId: 'call-1',
    });
    expect(RunStep.fromPayload(JSON.stringify(step)).toPayload()).toEqual(step.toPayload());
  });

  it('refuses a start without a call id or tool name, with an outcome, a result, or a call id on another kind', () => {
    expect(() => RunStep.of({ kind: 'tool_start', round: 0, durationMs: 0, toolName: 't' })).toThrow(
      'RunStep.toolCallId must be set on a "tool_start" step',
    );
    expect(() => RunStep.of({ kind: 'tool_start', round: 0, durationMs: 0, toolCallId: 'c' })).toThrow(
      'RunStep.toolName must be set on a "tool_start" step',
    );
    expect(() => RunStep.of({ kind: 'tool_start', round: 0, durationMs: 0, toolName: 't', toolCallId: 'c', toolOutcome: 'ok' })).toThrow(
      'RunStep.toolOutcome must not be set on a "tool_start" step',
    );
    expect(() => RunStep.of({ kind: 'tool_start', round: 0, durationMs: 0, toolName: 't', toolCallId: 'c', toolIsError: false })).toThrow(
      'no outcome yet',
    );
    expect(() => RunStep.of({ kind: 'tool_start', round: 0, durationMs: 0, toolName: 't', toolCallId: 'c', toolResult: 'r' })).toThrow(
      'no answer yet',
    );
    expect(() => RunStep.of({ kind: 'llm', round: 0, durationMs: 0, toolCallId: 'c' })).toThrow(
      'RunStep.toolCallId must not be set on a "llm" step, got "c"',
    );
    expect(() => RunStep.of({ kind: 'tool', round: 0, durationMs: 0, toolName: 't', toolOutcome: 'ok', toolCallId: '' })).toThrow(
      'RunStep.toolCallId must be 1 to 200 characters',
    );
  });

  it('keeps the call id at every privacy level; arguments only as a count at metadata', async () => {
    const trace = RunTrace.create();
    const start = await trace.recordToolStart({ toolName: 'mcp_github_search', toolArguments: { q: 'secret plan', token: 'x' }, round: 2 });
    expect(start.kind).toBe('tool_start');
    expect(start.toolServer).toBe('github');
    expect(start.toolCallId).toMatch(/^[0-9a-f-]{36}$/);
    expect(applyPrivacy(start.toPayload(), 'none')).toEqual({
      kind: 'tool_start',
      round: 2,
      durationMs: 0,
      toolName: 'mcp_github_search',
      toolServer: 'github',
      toolCallId: start.toolCallId,
    });
    expect(applyPrivacy(start.toPayload(), 'metadata')).toMatchObject({ toolArgumentCount: 2, toolCallId: start.toolCallId });
    const end = await trace.recordToolResult({
      toolName: 'mcp_github_search',
      result: ToolResult.text('found'),
      toolCallId: start.toolCallId!,
      round: 2,
      durationMs: 12,
    });
    expect(end.toPayload()).toMatchObject({ kind: 'tool', toolOutcome: 'ok', toolCallId: start.toolCallId });
    const given = await trace.recordToolStart({ toolName: 'mcp_a_b', toolCallId: 'mine-1' });
    expect(given.toolCallId).toBe('mine-1');
  });
});

describe('calls on the wire in the timeline', () => {
  it('a started call is on the wire for a reader of the store (another process) until its step arrives, then the step replaces it', async () => {
    const store = InMemoryRunStore.create();
    const reader = store.openPeer();
    const active = await startRun(store, { configuration: 'live', heartbeatMs: 0, spoolDir: false });
    await active.trace.recordRequest({ content: 'q' });
    const start = await active.trace.recordToolStart({
      toolName: 'mcp_slow_export_report',
      toolServer: 'slow',
      toolArguments: { report: 'q3' },
      round: 1,
      writes: true,
    });

    const during = buildRunTimeline(await reader.getRun(active.id), await reader.readSteps(active.id));
    const wire = during.filter((entry) => entry.callState !== null);
    expect(wire).toHaveLength(1);
    expect(wire[0]).toMatchObject({
      kind: 'tool_start',
      source: 'slow',
      outcome: '',
      callState: RunCallState.ON_THE_WIRE,
      round: 1,
      durationMs: null,
    });
    expect(wire[0]!.details).toMatchObject({
      toolName: 'mcp_slow_export_report',
      toolCallId: start.toolCallId,
      toolArgumentCount: 1,
      writes: true,
    });
    // a start is not a call: it counts in no outcome and no server health
    expect((await reader.getRun(active.id))!.outcomeCounts).toEqual({ ok: 0, failed: 0, cancelled: 0 });
    expect(await reader.serverHealth()).toEqual([]);

    await active.trace.recordToolResult({
      toolName: 'mcp_slow_export_report',
      toolServer: 'slow',
      result: ToolResult.text('done'),
      toolCallId: start.toolCallId!,
      round: 1,
      durationMs: 40,
    });
    const after = buildRunTimeline(await reader.getRun(active.id), await reader.readSteps(active.id));
    expect(after.filter((entry) => entry.callState !== null)).toEqual([]);
    expect(after.filter((entry) => entry.kind === 'tool_start')).toEqual([]);
    expect(
      after.filter((entry) => entry.kind === 'tool').map((entry) => [entry.outcome, entry.source, entry.details['toolCallId']]),
    ).toEqual([['ok', 'slow', start.toolCallId]]);
    await active.complete();
  });

  it('a run that ended with calls on the wire shows them as interrupted', async () => {
    const store = InMemoryRunStore.create();
    const active = await startRun(store, { configuration: 'dies', heartbeatMs: 0, spoolDir: false });
    await active.trace.recordToolStart({ toolName: 'mcp_docs_search', toolCallId: 'lost-1' });
    await active.fail(new Error('agent crashed'));
    const timeline = buildRunTimeline(await store.getRun(active.id), await store.readSteps(active.id));
    expect(
      timeline.filter((entry) => entry.callState !== null).map((entry) => [entry.callState, entry.details['toolCallId'], entry.source]),
    ).toEqual([['interrupted', 'lost-1', 'docs']]);

    // the same for a run that recovery marked interrupted (the process died)
    const died = [stored(0, 'tool_start', 2000, { toolName: 'mcp_docs_search', toolServer: 'docs', toolCallId: 'c-9' })];
    expect(buildRunTimeline(run('interrupted'), died).find((entry) => entry.sequence === 0)?.callState).toBe('interrupted');
    expect(buildRunTimeline(run('running'), died).find((entry) => entry.sequence === 0)?.callState).toBe('on_the_wire');
    expect(buildRunTimeline(null, died).find((entry) => entry.sequence === 0)?.callState).toBe('on_the_wire');
  });

  it('pairs by call id only, also with ends given from a later page', () => {
    const steps = [
      stored(0, 'tool_start', 2000, { toolName: 'mcp_a_x', toolCallId: 'a' }),
      stored(1, 'tool_start', 2001, { toolName: 'mcp_a_x', toolCallId: 'b' }),
      stored(2, 'tool', 2002, { toolName: 'mcp_a_x', toolIsError: true, toolOutcome: 'failed', toolCallId: 'b' }),
      // a tool step without a call id (an older recorder) ends nothing
      stored(3, 'tool', 2003, { toolName: 'mcp_a_x', toolIsError: false }),
    ];
    const open = (timeline: ReturnType<typeof buildRunTimeline>) =>
      timeline.filter((e) => e.callState !== null).map((e) => e.details['toolCallId']);
    expect(open(buildRunTimeline(run('running'), steps))).toEqual(['a']);
    expect(open(buildRunTimeline(run('running'), steps, { endedCallIds: new Set(['a']) }))).toEqual([]);
    expect(buildRunTimeline(run('running'), steps).filter((e) => e.event === null)).toHaveLength(3);
  });

  it('renders a step of a kind it does not know as a plain row, as older readers render tool_start', () => {
    // What RunTimelineFactory did before tool_start existed with any kind it did not know — and so
    // what an older reader shows for a tool_start row: a row of that kind, source `agent`, no outcome.
    const future = [stored(0, 'future_kind', 2000, { toolName: 'mcp_a_x', toolServer: 'a', note: 'x' })];
    const [entry] = buildRunTimeline(null, future);
    expect(entry).toMatchObject({ kind: 'future_kind', source: 'agent', outcome: '', callState: null, unreadable: false });
    expect(entry!.details).toEqual({ toolName: 'mcp_a_x', toolServer: 'a' });
  });
});
