import { describe, expect, it } from 'vitest';
import { storedStepReader, type StoredStepRow } from './storedStepReader.js';

const RUN_ID = '0b6f0c8e-7d0e-4f2a-9a53-2f1f3c7a9e01';
const ROW: StoredStepRow = {
  sequence: 4,
  kind: 'tool',
  round: 1,
  duration_ms: 12.5,
  created_at: 1_000,
  payload: '{"kind":"tool"}',
  tool_server: 'github',
  tool_outcome: 'cancelled',
};

describe('storedStepReader', () => {
  it('maps every column to the frozen StoredStep of the run', () => {
    const step = storedStepReader(RUN_ID)(ROW);
    expect(step).toEqual({
      runId: RUN_ID,
      sequence: 4,
      kind: 'tool',
      round: 1,
      durationMs: 12.5,
      createdAt: 1_000,
      payload: '{"kind":"tool"}',
      toolServer: 'github',
      toolOutcome: 'cancelled',
    });
    expect(Object.isFrozen(step)).toBe(true);
  });

  it('reads damaged values safely, never casts them', () => {
    const step = storedStepReader(RUN_ID)({
      ...ROW,
      kind: 7,
      round: '2',
      duration_ms: '3.5',
      created_at: '1000',
      payload: Buffer.from('{"a":"ü"}', 'utf8'),
      tool_server: 42,
      tool_outcome: 'exploded',
    });
    expect(step).toMatchObject({ kind: '7', round: 2, durationMs: 3.5, createdAt: 1_000, payload: '{"a":"ü"}', toolServer: null });
    expect(step.toolOutcome).toBeNull();
    expect(storedStepReader(RUN_ID)({ ...ROW, tool_outcome: null, tool_server: null })).toMatchObject({
      toolOutcome: null,
      toolServer: null,
    });
  });

  it("shares one copy of each kind and server between a run's steps", () => {
    const read = storedStepReader(RUN_ID);
    const [a, b] = [read({ ...ROW, kind: ['to', 'ol'].join('') }), read({ ...ROW, kind: ['t', 'ool'].join('') })];
    expect(a.kind).toBe(b.kind);
    expect(storedStepReader(RUN_ID)({ ...ROW, payload: 'x'.repeat(100) }).payload).toHaveLength(100);
  });
});
