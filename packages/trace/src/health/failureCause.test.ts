import { ToolResult } from '@runledger/core';
import { describe, expect, it } from 'vitest';
import type { RunRecord } from '../recording/RunTrace.js';
import { RunStep } from '../step/RunStep.js';
import type { StoredStep } from '../store/RunStore.js';
import { buildRunTimeline, RUN_TIMELINE_DETAIL_KEYS } from '../timeline/buildRunTimeline.js';
import { RunTrace } from '../recording/RunTrace.js';

function stored(sequence: number, payload: Record<string, unknown>): StoredStep {
  return {
    runId: 'r',
    sequence,
    kind: 'tool',
    round: 0,
    durationMs: 1,
    createdAt: sequence,
    payload: JSON.stringify(payload),
    toolServer: 's',
    toolOutcome: null,
  };
}

describe('a failed tool step records its cause', () => {
  it("recordToolResult writes the result's failure cause into the payload as toolFailureCause, only when failed", async () => {
    const records: RunRecord[] = [];
    const trace = RunTrace.create({ onRecord: async (_step, record) => void records.push(record) });
    await trace.recordToolResult({ toolName: 'mcp_s_t', result: ToolResult.failure('late', 'mcp_timeout') });
    await trace.recordToolResult({ toolName: 'mcp_s_t', result: ToolResult.error('rate limited') });
    await trace.recordToolResult({ toolName: 'mcp_s_t', result: ToolResult.text('fine') });
    await trace.flush();
    expect(records.map((r) => (r.payload as Record<string, unknown>)['toolFailureCause'])).toEqual([
      'mcp_timeout',
      'recorder_error',
      undefined,
    ]);
    expect(records[0]!.payload).toMatchObject({ toolOutcome: 'failed', toolIsError: true });
  });

  it('RunStep keeps the cause through toPayload and fromPayload and refuses it on a step that did not fail', () => {
    const step = RunStep.of({ kind: 'tool', round: 0, durationMs: 1, toolOutcome: 'failed', toolFailureCause: 'invalid_arguments' });
    expect(RunStep.fromPayload(step.toPayload()).toolFailureCause).toBe('invalid_arguments');
    expect(() => RunStep.of({ kind: 'tool', round: 0, durationMs: 1, toolOutcome: 'cancelled', toolFailureCause: 'mcp_timeout' })).toThrow(
      /toolFailureCause/,
    );
    expect(() => RunStep.of({ kind: 'tool', round: 0, durationMs: 1, toolOutcome: 'failed', toolFailureCause: 'bad' as never })).toThrow(
      /toolFailureCause/,
    );
    // a cause this version does not know reads as none
    expect(
      RunStep.fromPayload({ kind: 'tool', round: 0, durationMs: 1, toolOutcome: 'failed', toolFailureCause: 'future' }).toolFailureCause,
    ).toBeUndefined();
  });

  it('the timeline row of a failed call shows its cause; a row without one reads "unknown"; other rows none', () => {
    const entries = buildRunTimeline(null, [
      stored(0, { kind: 'tool', toolIsError: true, toolOutcome: 'failed', toolFailureCause: 'mcp_http_status' }),
      stored(1, { kind: 'tool', toolIsError: true }),
      stored(2, { kind: 'tool', toolIsError: false, toolOutcome: 'ok' }),
      stored(3, { kind: 'tool', toolIsError: true, toolOutcome: 'cancelled' }),
      stored(4, { kind: 'tool', toolIsError: true, toolOutcome: 'failed', toolFailureCause: '<script>' }),
    ]);
    expect(entries.map((e) => e.details['failureCause'])).toEqual(['mcp_http_status', 'unknown', undefined, undefined, 'unknown']);
    expect(RUN_TIMELINE_DETAIL_KEYS).toContain('failureCause');
  });
});
