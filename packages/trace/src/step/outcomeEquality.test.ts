import { isToolOutcome, TOOL_OUTCOMES, ToolOutcome, ToolResult } from '@runledger/core';
import { describe, expect, it } from 'vitest';
import { InMemoryRunStore } from '../store/InMemoryRunStore.js';
import { RunStep } from './RunStep.js';
import { RunTimelineEntry } from '../timeline/RunTimelineEntry.js';
import { buildRunTimeline } from '../timeline/buildRunTimeline.js';
import { stepOutcome } from '../timeline/stepOutcome.js';
import { startRun } from '../recording/startRun.js';

const RESULTS: Record<ToolOutcome, () => ToolResult> = {
  ok: () => ToolResult.text('fine'),
  failed: () => ToolResult.error('broken'),
  cancelled: () => ToolResult.cancelled('stopped'),
};

const ENTRY_CONSTANTS: Record<ToolOutcome, string> = {
  ok: RunTimelineEntry.OUTCOME_OK,
  failed: RunTimelineEntry.OUTCOME_FAILED,
  cancelled: RunTimelineEntry.OUTCOME_CANCELLED,
};

describe('one outcome string, end to end', () => {
  it('ToolOutcome values == RunStep.toPayload() values == stepOutcome() == RunTimelineEntry.OUTCOME_*', async () => {
    expect(TOOL_OUTCOMES).toEqual(['ok', 'failed', 'cancelled']);
    expect(RunTimelineEntry.OUTCOME_NONE).toBe('');
    expect(isToolOutcome(RunTimelineEntry.OUTCOME_NONE)).toBe(false);
    for (const outcome of TOOL_OUTCOMES) {
      const store = InMemoryRunStore.create();
      const run = await startRun(store, { configuration: 'c', heartbeatMs: 0 });
      const step = await run.trace.recordToolResult({ toolName: 'mcp_s_t', result: RESULTS[outcome](), round: 0, durationMs: 1 });
      const payload = step.toPayload();
      expect(payload.toolOutcome).toBe(outcome);
      const [stored] = await store.readSteps(run.id);
      expect(stored!.toolOutcome).toBe(outcome);
      expect(JSON.parse(stored!.payload).toolOutcome).toBe(outcome);
      expect(stepOutcome(payload)).toBe(outcome);
      expect(stepOutcome(stored!.payload)).toBe(outcome);
      expect(RunStep.fromPayload(stored!.payload).toolOutcome).toBe(outcome);
      expect(ENTRY_CONSTANTS[outcome]).toBe(outcome);
      const entry = buildRunTimeline(await store.getRun(run.id), [stored!]).find((e) => e.sequence === 0)!;
      expect(entry.outcome).toBe(ENTRY_CONSTANTS[outcome]);
      expect(ToolOutcome[outcome.toUpperCase() as keyof typeof ToolOutcome]).toBe(entry.outcome);
    }
  });
});
