import { ToolResult } from '@runledger/core';
import { describe, expect, it } from 'vitest';
import { RunTrace } from '../recording/RunTrace.js';
import { buildRunTimeline, RUN_TIMELINE_DETAIL_KEYS } from '../timeline/buildRunTimeline.js';
import { RunStep } from './RunStep.js';
import { RunStepError } from './RunStepError.js';

const tool = (fields: Record<string, unknown> = {}) =>
  RunStep.of({ kind: 'tool', round: 0, durationMs: 1, toolName: 'mcp_gh_merge', toolServer: 'gh', toolOutcome: 'ok', ...fields });

function refusal(fields: Record<string, unknown>): RunStepError {
  try {
    tool(fields);
  } catch (error) {
    if (error instanceof RunStepError) return error;
    throw error;
  }
  throw new Error('the step was accepted');
}

describe('RunStep.toolApproval', () => {
  it('keeps who decided and why, frozen, and round-trips through the payload', () => {
    const step = tool({ toolApproval: { approved: true, by: 'alice@example.com', reason: 'release day' } });
    expect(step.toolApproval).toEqual({ approved: true, by: 'alice@example.com', reason: 'release day' });
    expect(Object.isFrozen(step.toolApproval)).toBe(true);
    const payload = JSON.parse(JSON.stringify(step.toPayload())) as unknown;
    expect(payload).toMatchObject({ toolApproval: { approved: true, by: 'alice@example.com', reason: 'release day' } });
    expect(RunStep.fromPayload(payload).toolApproval).toEqual(step.toolApproval);
  });

  it('reads an absent by or reason as null, drops unknown keys, and leaves the field out when not set', () => {
    expect(tool({ toolApproval: { approved: true, extra: 1 } }).toolApproval).toEqual({ approved: true, by: null, reason: null });
    expect(tool({ toolApproval: null }).toPayload()).not.toHaveProperty('toolApproval');
  });

  it('refuses by and reason outside the cancel request line rule, naming the field and the rule', () => {
    expect(refusal({ toolApproval: { approved: true, by: '' } }).message).toBe(
      'RunStep.toolApproval.by must be a string of 1 to 200 characters without control characters, or null, got ""',
    );
    expect(refusal({ toolApproval: { approved: true, by: 'a'.repeat(201) } }).message).toMatch(
      /^RunStep\.toolApproval\.by must be a string of 1 to 200 characters .*: it has more than 200 characters/,
    );
    expect(tool({ toolApproval: { approved: true, by: '😀'.repeat(200) } }).toolApproval?.by).toHaveLength(400);
    const control = refusal({ toolOutcome: 'failed', toolApproval: { approved: false, reason: 'no\nway' } });
    expect(control.field).toBe('toolApproval');
    expect(control.message).toBe(
      'RunStep.toolApproval.reason must be a string of 1 to 500 characters without control characters, or null: found the control character U+000A at index 2, got "no\\nway"',
    );
    expect(refusal({ toolApproval: { approved: true, reason: 'b'.repeat(501) } }).message).toMatch(/it has more than 500 characters/);
    expect(refusal({ toolApproval: { approved: 'yes' } }).message).toBe('RunStep.toolApproval.approved must be a boolean, got "yes"');
    expect(refusal({ toolApproval: 'alice' }).message).toBe(
      'RunStep.toolApproval must be an object { approved: boolean, by: string | null, reason: string | null }, got "alice"',
    );
  });

  it('is a tool step field, and a refused call is a failed step', () => {
    expect(() => RunStep.of({ kind: 'llm', round: 0, durationMs: 0, toolApproval: { approved: true, by: null, reason: null } })).toThrow(
      'RunStep.toolApproval must not be set on a "llm" step, got an object',
    );
    expect(refusal({ toolApproval: { approved: false, by: 'bob', reason: null } }).message).toBe(
      'RunStep.toolApproval.approved must be true when RunStep.toolOutcome is "ok": a refused call is not sent, so its step is "failed"',
    );
    expect(tool({ toolOutcome: 'failed', toolApproval: { approved: false, by: 'bob', reason: null } }).toolApproval?.approved).toBe(false);
  });

  it('reaches the stored payload from RunTrace.recordToolResult, at every privacy level', async () => {
    for (const privacy of ['full', 'redacted', 'metadata', 'none'] as const) {
      const payloads: unknown[] = [];
      const trace = RunTrace.create({ privacy, onRecord: (_step, record) => void payloads.push(record.payload) });
      await trace.recordToolResult({
        toolName: 'mcp_gh_merge',
        result: ToolResult.failure('refused', 'not_approved'),
        toolApproval: { approved: false, by: 'carol', reason: 'not on a Friday' },
      });
      expect(payloads[0]).toMatchObject({ toolApproval: { approved: false, by: 'carol', reason: 'not on a Friday' } });
    }
  });

  it('reaches the timeline details as approved, approvedBy and approvalReason (allow-listed)', () => {
    const run = { id: '00000000-0000-4000-8000-000000000001', status: 'completed', createdAt: 0, startedAt: 0, finishedAt: 9 };
    const payload = tool({ toolOutcome: 'failed', toolApproval: { approved: false, by: 'bob', reason: 'too risky' } }).toPayload();
    const timeline = buildRunTimeline(run as never, [
      { runId: run.id, sequence: 0, kind: 'tool', round: 0, durationMs: 1, createdAt: 1, payload: JSON.stringify(payload) } as never,
    ]);
    const entry = timeline.find((item) => item.sequence === 0)!;
    expect(entry.details).toMatchObject({ approved: false, approvedBy: 'bob', approvalReason: 'too risky', failureCause: 'unknown' });
    for (const key of ['approved', 'approvedBy', 'approvalReason']) expect(RUN_TIMELINE_DETAIL_KEYS).toContain(key);
  });
});
