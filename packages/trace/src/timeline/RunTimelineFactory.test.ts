import { describe, expect, it } from 'vitest';
import type { StoredStep } from '../store/RunStore.js';
import { buildRunTimeline, RUN_TIMELINE_DETAIL_KEYS } from './buildRunTimeline.js';
import { RunTimelineFactory } from './RunTimelineFactory.js';
import { stepOutcome } from './stepOutcome.js';

const step = (sequence: number, payload: Record<string, unknown>): StoredStep => ({
  runId: 'r',
  sequence,
  kind: 'tool',
  round: 0,
  durationMs: 1,
  createdAt: 1000 + sequence,
  toolServer: 's',
  toolOutcome: null,
  payload: JSON.stringify(payload),
});

describe('RunTimelineFactory (deprecated)', () => {
  it('delegates each static to its function', () => {
    const steps = [
      step(0, { kind: 'tool', toolName: 'mcp_s_t', toolIsError: false }),
      step(1, { kind: 'tool', toolName: 'mcp_s_t', toolIsError: true, toolOutcome: 'failed' }),
    ];
    expect(RunTimelineFactory.build(null, steps)).toEqual(buildRunTimeline(null, steps));
    expect(RunTimelineFactory.build(null, steps).map((e) => e.outcome)).toEqual(['ok', 'failed']);
    expect(RunTimelineFactory.stepOutcome(steps[1]!.payload)).toBe(stepOutcome(steps[1]!.payload));
    expect(RunTimelineFactory.DETAIL_KEYS).toBe(RUN_TIMELINE_DETAIL_KEYS);
  });
});
