// Every row of docs/otel.md's mapping, through live export into an in-memory exporter.
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import {
  applyPrivacy,
  InMemoryRunStore,
  PrivacyLevel,
  RUN_STEP_CONTENT_KEYS,
  type RunStore,
  RunStep,
  type StoredStep,
} from '@runledger/trace';
import { ToolArtifact } from '@runledger/core';
import { describe, expect, it } from 'vitest';
import { exportRuns } from './exportRuns.js';
import { planStep } from './mapping.js';
import { otelRunStore } from './otelRunStore.js';
import { hrTimeOf } from './hrTimeOf.js';
import { recordSampleRuns, steppingClock } from './testing/sampleRuns.js';

async function exportLive(privacy?: PrivacyLevel) {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const clock = steppingClock();
  const inner = InMemoryRunStore.create({ clock });
  const store = otelRunStore(inner, { tracerProvider: provider, ...(privacy === undefined ? {} : { privacy }) });
  const runs = await recordSampleRuns(store, clock, PrivacyLevel.FULL);
  return { spans: exporter.getFinishedSpans(), runs, store: inner as RunStore };
}

const root = (spans: readonly ReadableSpan[], runId: string) =>
  spans.find((s) => s.parentSpanContext === undefined && s.attributes['runledger.run.id'] === runId)!;
/** The run's spans: its root span and those of the same trace. */
const ofRun = (spans: readonly ReadableSpan[], runId: string) =>
  spans.filter((s) => s.spanContext().traceId === root(spans, runId).spanContext().traceId);
const bySeq = (spans: readonly ReadableSpan[], runId: string, sequence: number) =>
  ofRun(spans, runId).find((s) => s.attributes['runledger.step.sequence'] === sequence)!;
const stepOf = (steps: readonly StoredStep[], kind: string, nth = 0) => steps.filter((s) => s.kind === kind)[nth]!;

describe('the mapping (docs/otel.md)', () => {
  it('makes a run one trace: the invoke_agent root span and a child span per llm and tool step', async () => {
    const { spans, runs, store } = await exportLive();
    const run = (await store.getRun(runs.completed))!;
    const steps = await store.readSteps(run.id);
    const rootSpan = root(spans, run.id);
    const children = ofRun(spans, run.id).filter((s) => s !== rootSpan);
    expect(rootSpan.name).toBe('invoke_agent support-agent');
    expect(rootSpan.kind).toBe(SpanKind.INTERNAL);
    expect(rootSpan.startTime).toEqual(hrTimeOf(run.startedAt ?? run.createdAt));
    expect(rootSpan.endTime).toEqual(hrTimeOf(run.finishedAt!));
    expect(rootSpan.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'support-agent',
      'runledger.run.id': run.id,
      'runledger.run.status': 'completed',
      'runledger.run.actor': '[email]',
      'runledger.run.tool_calls.ok': 1,
      'runledger.run.tool_calls.failed': 2,
      'runledger.run.tool_calls.cancelled': 1,
    });
    expect(rootSpan.attributes['error.type']).toBeUndefined();
    // success leaves the status UNSET (the GenAI conventions)
    expect(rootSpan.status.code).toBe(SpanStatusCode.UNSET);
    // 2 llm + 4 tool steps; tool_start, request, context, dropped, assembled are no spans
    expect(children.map((s) => s.name)).toEqual([
      'chat gpt-x',
      'execute_tool mcp_github_search',
      'execute_tool mcp_flaky_fetch',
      'execute_tool mcp_slow_export',
      'execute_tool lookup',
      'chat gpt-x',
    ]);
    for (const child of children) {
      expect(child.spanContext().traceId).toBe(rootSpan.spanContext().traceId);
      expect(child.parentSpanContext?.spanId).toBe(rootSpan.spanContext().spanId);
      const step = steps[child.attributes['runledger.step.sequence'] as number]!;
      expect(child.startTime).toEqual(hrTimeOf(step.createdAt, step.durationMs));
      expect(child.endTime).toEqual(hrTimeOf(step.createdAt));
      expect(Object.keys(child.attributes)).not.toContain('runledger.round');
    }
  });

  it('puts the lifecycle and the other steps as events on the root span, at their own times', async () => {
    const { spans, runs, store } = await exportLive();
    const run = (await store.getRun(runs.completed))!;
    const steps = await store.readSteps(run.id);
    const events = root(spans, run.id).events;
    expect(events.map((e) => e.name)).toEqual([
      'runledger.run.started',
      'runledger.request',
      'runledger.context.budget',
      'runledger.context.dropped',
      'runledger.context.assembled',
      'runledger.tool.interrupted',
      'runledger.run.completed',
    ]);
    const event = (name: string) => events.find((e) => e.name === name)!;
    expect(event('runledger.request').time).toEqual(hrTimeOf(stepOf(steps, 'request').createdAt));
    expect(event('runledger.request').attributes).toEqual({
      'runledger.step.sequence': 0,
      'runledger.round': 0,
      'runledger.content_length': 24,
    });
    expect(event('runledger.context.budget').attributes).toMatchObject({
      'runledger.context.token_budget': 8000,
      'runledger.context.tokens_used': 1200,
    });
    expect(event('runledger.context.dropped').attributes).toMatchObject({ 'runledger.context.dropped_sources': ['old-ticket-17'] });
    expect(event('runledger.context.assembled').attributes).toMatchObject({ 'runledger.context.message_count': 2 });
    const never = stepOf(steps, 'tool_start', 3);
    expect(event('runledger.tool.interrupted').time).toEqual(hrTimeOf(never.createdAt));
    expect(event('runledger.tool.interrupted').attributes).toMatchObject({
      'gen_ai.tool.name': 'mcp_slow_status',
      'gen_ai.tool.call.id': 'never-ended',
      'runledger.tool.server': 'slow',
      'runledger.step.sequence': never.sequence,
    });
    expect(event('runledger.run.started').time).toEqual(hrTimeOf(run.startedAt ?? run.createdAt));
    expect(event('runledger.run.completed').time).toEqual(hrTimeOf(run.finishedAt!));
  });

  it('maps an llm step to a chat span with model, token usage and finish reason', async () => {
    const { spans, runs, store } = await exportLive();
    const steps = await store.readSteps(runs.completed);
    const chat = bySeq(spans, runs.completed, stepOf(steps, 'llm').sequence);
    expect(chat.kind).toBe(SpanKind.CLIENT);
    expect(chat.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'gpt-x',
      'gen_ai.usage.input_tokens': 1200,
      'gen_ai.usage.output_tokens': 80,
      'gen_ai.response.finish_reasons': ['tool_calls'],
      'runledger.llm.cost_usd': 0.0042,
      'runledger.llm.requested_tools': ['mcp_github_search'],
    });
    expect(chat.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('keeps the three outcomes apart: ok → UNSET, failed → ERROR with error.type, cancelled → UNSET and never ERROR', async () => {
    const { spans, runs, store } = await exportLive();
    const steps = await store.readSteps(runs.completed);
    const [ok, failed, cancelled, legacy] = [0, 1, 2, 3].map((n) => bySeq(spans, runs.completed, stepOf(steps, 'tool', n).sequence));
    const starts = steps.filter((s) => s.kind === 'tool_start').map((s) => JSON.parse(s.payload).toolCallId as string);
    expect(ok!.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'mcp_github_search',
      'gen_ai.tool.call.id': starts[0],
      'runledger.tool.server': 'github',
      'runledger.tool.outcome': 'ok',
    });
    expect(ok!.status).toEqual({ code: SpanStatusCode.UNSET });
    expect(ok!.kind).toBe(SpanKind.INTERNAL);
    expect(ok!.attributes['error.type']).toBeUndefined();
    expect(failed!.attributes).toMatchObject({
      'runledger.tool.outcome': 'failed',
      'error.type': 'mcp_timeout',
      'gen_ai.tool.call.id': starts[1],
    });
    expect(failed!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'mcp_timeout' });
    expect(cancelled!.attributes).toMatchObject({
      'runledger.tool.outcome': 'cancelled',
      'runledger.tool.writes': true,
      'gen_ai.tool.call.id': starts[2],
    });
    expect(cancelled!.attributes['error.type']).toBeUndefined();
    expect(cancelled!.status.code).toBe(SpanStatusCode.UNSET);
    // a boolean-only call (the recorder's own error), no call id and no server
    expect(legacy!.attributes).toMatchObject({ 'runledger.tool.outcome': 'failed', 'error.type': 'recorder_error' });
    expect(legacy!.attributes['gen_ai.tool.call.id']).toBeUndefined();
    expect(legacy!.attributes['runledger.tool.server']).toBeUndefined();
    for (const span of spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'execute_tool')) {
      expect(['ok', 'failed', 'cancelled']).toContain(span.attributes['runledger.tool.outcome']);
      if (span.attributes['runledger.tool.outcome'] === 'cancelled') expect(span.status.code).not.toBe(SpanStatusCode.ERROR);
    }
  });

  it('gives a run span its status from the final status by the same rule: cancelled → UNSET, failed → ERROR', async () => {
    const { spans, runs, store } = await exportLive();
    const cancelledRun = (await store.getRun(runs.cancelled))!;
    const cancelled = root(spans, runs.cancelled);
    expect(cancelled.status.code).toBe(SpanStatusCode.UNSET);
    expect(cancelled.attributes['runledger.run.status']).toBe('cancelled');
    expect(cancelled.attributes['error.type']).toBeUndefined();
    expect(cancelled.events.map((e) => e.name)).toEqual([
      'runledger.run.started',
      'runledger.request',
      'runledger.run.cancel_requested',
      'runledger.run.cancelled',
    ]);
    expect(cancelled.events[2]!.time).toEqual(hrTimeOf(cancelledRun.cancelRequestedAt!));
    // who asked, from where (the run handle's cancel: the API) and why
    expect(cancelled.events[2]!.attributes).toEqual({
      'runledger.cancel.from': 'api',
      'runledger.cancel.by': 'alice',
      'runledger.cancel.reason': 'cancelled by the operator',
    });
    expect(cancelled.events[3]!.attributes).toEqual({ 'runledger.run.termination_reason': 'cancelled by the operator' });
    const failed = root(spans, runs.failed);
    expect(failed.status.code).toBe(SpanStatusCode.ERROR);
    expect(failed.status.message).toBe('metrics unavailable; token=[secret]');
    expect(failed.attributes).toMatchObject({ 'error.type': 'failed', 'runledger.run.status': 'failed' });
    expect(failed.attributes['runledger.run.actor']).toBeUndefined();
    const [tool] = ofRun(spans, runs.failed).filter((s) => s !== failed);
    expect(tool!.attributes).toMatchObject({ 'error.type': 'server_error', 'runledger.tool.server': 'flaky' });
  });

  it('ends a failed run with its terminal event, and an interrupted run as an ERROR too; a late cancel is left out', async () => {
    const { spans, runs } = await exportLive();
    expect(root(spans, runs.failed).events.map((e) => e.name)).toEqual(['runledger.run.started', 'runledger.run.failed']);
    const store = InMemoryRunStore.create({ clock: () => 1_764_547_200_000 });
    const stale = await store.createRun({ configuration: 'crashed', createdAt: 1_764_547_100_000 });
    await store.recoverInterrupted(1_764_547_200_000);
    const late = await store.createRun({ configuration: 'late', createdAt: 1_764_547_100_000 });
    await store.finishRun(late.id, { status: 'completed' });
    await store.requestCancel(late.id);
    const exporter = new InMemorySpanExporter();
    const counts = await exportRuns(store, exporter, { privacy: PrivacyLevel.METADATA, serviceName: 'test' });
    expect(counts).toMatchObject({ runsExported: 2, spansExported: 2 });
    const interrupted = root(exporter.getFinishedSpans(), stale.id);
    expect(interrupted.status.code).toBe(SpanStatusCode.ERROR);
    expect(interrupted.attributes).toMatchObject({ 'error.type': 'interrupted', 'runledger.run.status': 'interrupted' });
    expect(interrupted.events.map((e) => e.name)).toEqual(['runledger.run.started', 'runledger.run.interrupted']);
    const lateRoot = root(exporter.getFinishedSpans(), late.id);
    expect(lateRoot.status.code).toBe(SpanStatusCode.UNSET);
    expect(lateRoot.events.map((e) => e.name)).toEqual(['runledger.run.started', 'runledger.run.completed']);
  });

  it('at the default metadata level lets no prompt, answer, argument or result text out', async () => {
    const { spans } = await exportLive();
    const all = JSON.stringify(spans.map((s) => [s.name, s.attributes, s.status, s.events.map((e) => [e.name, e.attributes])]));
    for (const text of [
      'Why did the export fail',
      'be brief',
      'ada@example.com',
      'sk-abcdefghijklmnop',
      '3 issues found',
      'no answer within',
      'Billing timed out',
      'billing',
      'q3',
      'the run was cancelled',
      'abcdefgh12345678',
    ]) {
      expect(all).not.toContain(text);
    }
    expect(all).toContain('runledger.content_length');
  });

  it('adds the texts at full, masked at redacted, and keeps only identities at none', async () => {
    const full = await exportLive(PrivacyLevel.FULL);
    const steps = await full.store.readSteps(full.runs.completed);
    const okTool = bySeq(full.spans, full.runs.completed, stepOf(steps, 'tool').sequence);
    expect(okTool.attributes['gen_ai.tool.call.arguments']).toBe(
      JSON.stringify({ query: 'mail ada@example.com', token: 'sk-abcdefghijklmnop1234' }),
    );
    expect(okTool.attributes['gen_ai.tool.call.result']).toBe('3 issues found for ada@example.com');
    const answer = bySeq(full.spans, full.runs.completed, stepOf(steps, 'llm', 1).sequence);
    expect(JSON.parse(answer.attributes['gen_ai.output.messages'] as string)).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: 'Billing timed out; ask ada@example.com.' }], finish_reason: 'stop' },
    ]);
    const request = root(full.spans, full.runs.completed).events.find((e) => e.name === 'runledger.request')!;
    expect(JSON.parse(request.attributes!['gen_ai.input.messages'] as string)).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'Why did the export fail?' }] },
    ]);
    expect(root(full.spans, full.runs.completed).attributes['runledger.run.actor']).toBe('ops@example.com');

    const redacted = await exportLive(PrivacyLevel.REDACTED);
    const masked = bySeq(redacted.spans, redacted.runs.completed, stepOf(steps, 'tool').sequence);
    expect(masked.attributes['gen_ai.tool.call.result']).toBe('3 issues found for [email]');
    expect(masked.attributes['gen_ai.tool.call.arguments']).toBe(JSON.stringify({ query: 'mail [email]', token: '[secret]' }));

    const none = await exportLive(PrivacyLevel.NONE);
    const bare = bySeq(none.spans, none.runs.completed, stepOf(steps, 'tool', 1).sequence);
    expect(bare.attributes).toMatchObject({
      'runledger.tool.outcome': 'failed',
      // why it failed is metadata, kept at none too (issue 40 item 1)
      'error.type': 'mcp_timeout',
      'gen_ai.tool.name': 'mcp_flaky_fetch',
    });
    expect(Object.keys(bare.attributes).some((key) => key.startsWith('gen_ai.tool.call.a') || key.startsWith('gen_ai.tool.call.r'))).toBe(
      false,
    );
    expect(root(none.spans, none.runs.completed).attributes['runledger.run.actor']).toBeUndefined();
    // where a cancel came from is metadata; who and why are texts, kept as the actor is
    const noneCancel = root(none.spans, none.runs.cancelled).events.find((e) => e.name === 'runledger.run.cancel_requested')!;
    expect(noneCancel.attributes).toEqual({ 'runledger.cancel.from': 'api' });
    expect(root(none.spans, none.runs.failed).status).toEqual({ code: SpanStatusCode.ERROR });
  });

  it('knows exactly the keys the metadata filter replaces (so it may skip the filter on a payload without them)', () => {
    const everything = {
      ...RunStep.of({
        kind: 'tool',
        round: 0,
        durationMs: 1,
        toolName: 't',
        toolArguments: { a: 1 },
        toolResult: 'r',
        toolOutcome: 'ok',
        toolArtifacts: [ToolArtifact.of('text', 'l', 'd')],
      }).toPayload(),
      ...RunStep.of({
        kind: 'llm',
        round: 0,
        durationMs: 1,
        content: 'c',
        thinking: 't',
        messages: [{ role: 'user', content: 'm' }],
        requestedToolCalls: [{ name: 'n', arguments: {} }],
        raw: { x: 1 },
      }).toPayload(),
    };
    const replaced = Object.keys(everything).filter(
      (key) => !(key in applyPrivacy({ [key]: (everything as Record<string, unknown>)[key] }, PrivacyLevel.METADATA)),
    );
    expect(replaced.sort()).toEqual([...RUN_STEP_CONTENT_KEYS].sort());
  });

  it('carries no content field of the step schema below redacted, each one read from its content flag', () => {
    for (const key of RUN_STEP_CONTENT_KEYS) {
      for (const kind of ['tool', 'llm', 'request'] as const) {
        const payload = {
          kind,
          round: 0,
          durationMs: 1,
          toolName: 'mcp_a_b',
          toolOutcome: 'ok',
          toolIsError: false,
          [key]: 'zz-content-zz',
        };
        const step = { sequence: 0, kind, round: 0, durationMs: 1, createdAt: 1, payload };
        for (const level of [PrivacyLevel.METADATA, PrivacyLevel.NONE]) {
          expect(JSON.stringify(planStep(step, level)), `${key} on a ${kind} step at ${level}`).not.toContain('zz-content-zz');
        }
      }
    }
  });

  it('maps a step of an unknown kind and an unreadable payload to events', () => {
    const step = { sequence: 4, kind: 'future_kind', round: 1, durationMs: 0, createdAt: 1_764_547_200_000 };
    expect(planStep({ ...step, payload: { kind: 'future_kind' } }, PrivacyLevel.METADATA)).toEqual({
      type: 'event',
      name: 'runledger.step',
      time: hrTimeOf(step.createdAt),
      attributes: { 'runledger.step.sequence': 4, 'runledger.round': 1, 'runledger.step.kind': 'future_kind' },
    });
    expect(planStep({ ...step, kind: 'tool', payload: null }, PrivacyLevel.METADATA)).toMatchObject({
      type: 'event',
      name: 'runledger.step.unreadable',
      attributes: { 'runledger.step.kind': 'tool' },
    });
  });
});
