import { ToolResult } from '@runledger/core';
import { describe, expect, it } from 'vitest';
import type { StoredRun, StoredStep } from '../store/RunStore.js';
import { RunStep } from '../step/RunStep.js';
import { buildRunTimeline, RUN_TIMELINE_DETAIL_KEYS } from '../timeline/buildRunTimeline.js';
import { RunTrace } from './RunTrace.js';

const RUN_ID = '6f1f3c2e-8a1b-4c55-9d0e-2b7a4f0c9e11';

describe('toolWrites: a tool declared as writing stays visible on its step', () => {
  it('is recorded for a cancelled call of a writing tool and survives the default privacy level', async () => {
    const payloads: Record<string, unknown>[] = [];
    const trace = RunTrace.create({ onRecord: (_step, record) => void payloads.push({ ...record.payload }) });
    await trace.recordToolResult({
      toolName: 'mcp_crm_update',
      result: ToolResult.cancelled('stopped'),
      round: 1,
      durationMs: 3,
      writes: true,
    });
    await trace.recordToolResult({ toolName: 'mcp_crm_read', result: ToolResult.text('x'), round: 1, durationMs: 3 });
    expect(trace.steps[0]!.toolWrites).toBe(true);
    expect(trace.steps[1]!.toolWrites).toBeUndefined();
    expect(payloads[0]).toMatchObject({ toolOutcome: 'cancelled', toolWrites: true });
    expect(payloads[1]).not.toHaveProperty('toolWrites');
  });

  it('round-trips through toPayload and fromPayload, and is refused on a step that is not a tool step', () => {
    const step = RunStep.of({ kind: 'tool', round: 0, durationMs: 1, toolName: 'mcp_a_b', toolOutcome: 'cancelled', toolWrites: true });
    expect(RunStep.fromPayload(JSON.stringify(step.toPayload())).toolWrites).toBe(true);
    expect(() => RunStep.of({ kind: 'llm', round: 0, durationMs: 1, toolWrites: true })).toThrow(
      'RunStep.toolWrites must not be set on a "llm" step',
    );
    expect(() => RunStep.of({ kind: 'tool', round: 0, durationMs: 1, toolWrites: 'yes' as never })).toThrow(
      'RunStep.toolWrites must be a boolean',
    );
  });

  it('reaches the timeline as the detail `writes`, so the app can say the server-side effect is unknown', () => {
    const run: StoredRun = {
      id: RUN_ID,
      status: 'cancelled',
      configuration: 'c',
      actor: null,
      createdAt: 1000,
      startedAt: 1000,
      finishedAt: 2000,
      terminationReason: 'x',
      cancelRequestedAt: 1500,
      heartbeatAt: null,
      stepCount: 1,
      outcomeCounts: { ok: 0, failed: 0, cancelled: 1 },
    };
    const payload = RunStep.of({
      kind: 'tool',
      round: 0,
      durationMs: 1,
      toolName: 'mcp_crm_update',
      toolOutcome: 'cancelled',
      toolWrites: true,
    }).toPayload();
    const stored: StoredStep = {
      runId: RUN_ID,
      sequence: 0,
      kind: 'tool',
      round: 0,
      durationMs: 1,
      createdAt: 1600,
      payload: JSON.stringify(payload),
      toolServer: 'crm',
      toolOutcome: 'cancelled',
    };
    const entry = buildRunTimeline(run, [stored]).find((e) => e.kind === 'tool')!;
    expect(entry.outcome).toBe('cancelled');
    expect(entry.details['writes']).toBe(true);
    expect(RUN_TIMELINE_DETAIL_KEYS).toContain('writes');
  });
});
