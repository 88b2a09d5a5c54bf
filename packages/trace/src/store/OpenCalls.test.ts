import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RunCallState } from '../timeline/RunTimelineEntry.js';
import { buildRunTimeline } from '../timeline/buildRunTimeline.js';
import { InMemoryRunStore } from './InMemoryRunStore.js';
import { callIdOfPayload, callIdOfStoredStep, canReadOpenCalls, OpenCallSet } from './OpenCalls.js';
import type { StoredStep } from './RunStore.js';

const RUN = '00000000-0000-4000-8000-000000000001';

function stored(sequence: number, kind: string, payload: string): StoredStep {
  return {
    runId: RUN,
    sequence,
    kind,
    round: 0,
    durationMs: 1,
    createdAt: 1_767_225_600_000 + sequence,
    payload,
    toolServer: null,
    toolOutcome: null,
  };
}

/** A run's steps: each call id starts, ends, both (either order) or neither; llm steps and unreadable rows between. */
const histories = fc
  .array(
    fc.record({
      parts: fc.constantFrom('start', 'end', 'start-end', 'end-start'),
      noise: fc.constantFrom('none', 'llm', 'unreadable', 'no-id'),
    }),
    { maxLength: 40 },
  )
  .chain((calls) => {
    const events: { call: number; kind: 'tool_start' | 'tool' | 'llm' | 'unreadable' | 'no-id' }[] = [];
    calls.forEach((call, i) => {
      if (call.parts.startsWith('start') || call.parts === 'end-start') {
        for (const part of call.parts.split('-')) events.push({ call: i, kind: part === 'start' ? 'tool_start' : 'tool' });
      } else {
        events.push({ call: i, kind: 'tool' });
      }
      if (call.noise !== 'none') events.push({ call: i, kind: call.noise === 'llm' ? 'llm' : call.noise });
    });
    // the ends of a call keep their order relative to its start; calls interleave
    return fc.shuffledSubarray(events, { minLength: events.length, maxLength: events.length }).map((shuffled) => {
      const byCall = new Map<number, typeof events>();
      for (const event of events) byCall.set(event.call, [...(byCall.get(event.call) ?? []), event]);
      const next = new Map<number, number>();
      return shuffled.map((event) => {
        const at = next.get(event.call) ?? 0;
        next.set(event.call, at + 1);
        return byCall.get(event.call)![at]!;
      });
    });
  })
  .map((events) =>
    events.map((event, sequence) => {
      const id = `call-${event.call}`;
      if (event.kind === 'llm') return stored(sequence, 'llm', JSON.stringify({ kind: 'llm', round: 0 }));
      if (event.kind === 'unreadable') return stored(sequence, 'tool', '{"toolCallId": "' + id);
      if (event.kind === 'no-id') return stored(sequence, 'tool_start', JSON.stringify({ kind: 'tool_start', toolName: 't' }));
      return stored(sequence, event.kind, JSON.stringify({ kind: event.kind, toolName: 't', toolCallId: id }));
    }),
  );

describe('OpenCallSet', () => {
  it('holds exactly the calls the whole run’s timeline shows on the wire, in sequence order (generated histories)', () => {
    fc.assert(
      fc.property(histories, (steps) => {
        const open = new OpenCallSet<StoredStep>();
        for (const step of steps) open.add(step, step);
        const wire = buildRunTimeline(null, steps)
          // a start without a call id is no call of the recorder's: nothing can end it, no store keeps it
          .filter((entry) => entry.callState === RunCallState.ON_THE_WIRE && typeof entry.details['toolCallId'] === 'string')
          .map((entry) => entry.sequence);
        expect(open.values().map((step) => step.sequence)).toEqual(wire);
        expect(open.size).toBe(wire.length);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps an end that came first until its start, which it then closes', () => {
    const open = new OpenCallSet<number>();
    open.end('a');
    expect(open.endedFirst()).toEqual(['a']);
    open.start('a', 1, 1);
    expect(open.values()).toEqual([]);
    expect(open.endedFirst()).toEqual([]);
    open.start('b', 2, 2);
    open.start('c', 3, 3);
    open.end('b');
    expect(open.values()).toEqual([3]);
  });

  it('reads call ids from append payloads and stored payload text, and nothing from other kinds or unreadable rows', () => {
    expect(callIdOfPayload('tool_start', { toolCallId: 'x' })).toBe('x');
    expect(callIdOfPayload('tool', { toolCallId: 'x' })).toBe('x');
    expect(callIdOfPayload('llm', { toolCallId: 'x' })).toBeNull();
    expect(callIdOfPayload('tool', { toolCallId: 7 })).toBeNull();
    expect(callIdOfPayload('tool', null)).toBeNull();
    expect(callIdOfStoredStep({ kind: 'tool', payload: '{"toolCallId":"x"}' })).toBe('x');
    expect(callIdOfStoredStep({ kind: 'tool', payload: '{"toolCallId":"x"' })).toBeNull();
    expect(callIdOfStoredStep({ kind: 'request', payload: '{"toolCallId":"x"}' })).toBeNull();
  });
});

describe('InMemoryRunStore.readOpenCalls', () => {
  it('answers what the fold of its steps holds, the step count, and null for an unknown run', async () => {
    const store = InMemoryRunStore.create();
    expect(canReadOpenCalls(store)).toBe(true);
    const run = await store.createRun({ configuration: 'open' });
    const append = (kind: string, id: string) =>
      store.appendStep(run.id, {
        kind,
        round: 0,
        durationMs: 1,
        createdAt: 1,
        payload: { kind, toolCallId: id },
        toolServer: null,
        toolOutcome: null,
      });
    await append('tool_start', 'a');
    await append('tool_start', 'b');
    await append('tool', 'a');
    const read = await store.readOpenCalls(run.id);
    expect(read?.readTo).toBe(3);
    expect(read?.starts.map((step) => step.sequence)).toEqual([1]);
    expect(read?.endedFirst).toEqual([]);
    expect(await store.readOpenCalls('00000000-0000-4000-8000-00000000ffff')).toBeNull();
    expect(await store.readOpenCalls('not a uuid')).toBeNull();
  });
});
