import { describe, expect, it } from 'vitest';
import { storedRunOfRow, type StoredRunRow } from './storedRunOfRow.js';

const ROW: StoredRunRow = {
  id: '0b6f0c8e-7d0e-4f2a-9a53-2f1f3c7a9e01',
  status: 'completed',
  configuration: 'triage',
  actor: 'ops',
  title: 'Triage the inbox',
  created_at: 1_000,
  started_at: 1_000,
  finished_at: 2_000,
  termination_reason: null,
  cancel_requested_at: null,
  heartbeat_at: 1_500,
  step_count: 3,
  ok_count: 1,
  failed_count: 1,
  cancelled_count: 0,
  unstored_steps: 0,
  late_finish_status: null,
  late_finish_at: null,
};

describe('storedRunOfRow', () => {
  it('reads the tokens column, and 0 from a store whose rows have none', () => {
    expect(storedRunOfRow({ ...ROW, tokens: 1_288 }).tokens).toBe(1_288);
    expect(storedRunOfRow(ROW).tokens).toBe(0);
  });

  it('maps every column to the frozen StoredRun', () => {
    const run = storedRunOfRow(ROW);
    expect(run).toEqual({
      id: ROW.id,
      status: 'completed',
      configuration: 'triage',
      actor: 'ops',
      title: 'Triage the inbox',
      createdAt: 1_000,
      startedAt: 1_000,
      finishedAt: 2_000,
      terminationReason: null,
      termination: null,
      cancelRequestedAt: null,
      heartbeatAt: 1_500,
      stepCount: 3,
      outcomeCounts: { ok: 1, failed: 1, cancelled: 0 },
      tokens: 0,
      unstoredSteps: 0,
    });
    expect(Object.isFrozen(run)).toBe(true);
    expect(Object.isFrozen(run.outcomeCounts)).toBe(true);
  });

  it('reads a row without a title column (an older schema) as a run without a title', () => {
    const { title: _title, ...older } = ROW;
    expect(storedRunOfRow(older).title).toBeNull();
  });

  it('reads a status no runledger writes as interrupted, never casts it', () => {
    expect(storedRunOfRow({ ...ROW, status: 'exploded' }).status).toBe('interrupted');
    expect(storedRunOfRow({ ...ROW, status: '' }).status).toBe('interrupted');
  });

  it('keeps a late final status only when it is a terminal status', () => {
    expect(storedRunOfRow({ ...ROW, late_finish_status: 'failed', late_finish_at: 3_000 })).toMatchObject({
      lateFinishStatus: 'failed',
      lateFinishAt: 3_000,
    });
    for (const damaged of ['running', 'exploded']) {
      const run = storedRunOfRow({ ...ROW, late_finish_status: damaged, late_finish_at: 3_000 });
      expect(run).not.toHaveProperty('lateFinishStatus');
      expect(run).not.toHaveProperty('lateFinishAt');
    }
  });
});
