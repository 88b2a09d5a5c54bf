import { ToolResult } from '@runledger/core';
import { describe, expect, it } from 'vitest';
import { InMemoryRunStore } from '../store/InMemoryRunStore.js';
import type { StoredRun, StoredStep } from '../store/RunStore.js';
import { buildRunTimeline, RUN_TIMELINE_DETAIL_KEYS } from './buildRunTimeline.js';
import { stepOutcome } from './stepOutcome.js';
import { startRun } from '../recording/startRun.js';

const RUN_ID = '0b4e7a0e-5fe1-4b9a-a0c3-0c3e0ab1b6f1';

function run(fields: Partial<StoredRun> = {}): StoredRun {
  return {
    id: RUN_ID,
    status: 'running',
    configuration: 'c',
    actor: null,
    createdAt: 1000,
    startedAt: 1000,
    finishedAt: null,
    terminationReason: null,
    cancelRequestedAt: null,
    heartbeatAt: null,
    stepCount: 0,
    outcomeCounts: { ok: 0, failed: 0, cancelled: 0 },
    ...fields,
  };
}

function step(sequence: number, createdAt: number, payload: unknown, fields: Partial<StoredStep> = {}): StoredStep {
  return {
    runId: RUN_ID,
    sequence,
    kind: 'tool',
    round: 0,
    durationMs: 1,
    createdAt,
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
    toolServer: null,
    toolOutcome: null,
    ...fields,
  };
}

describe('stepOutcome', () => {
  it('reads the boolean first, then the agreeing toolOutcome', () => {
    const cases: [unknown, string][] = [
      [{ toolIsError: false }, 'ok'],
      [{ toolIsError: true }, 'failed'],
      [{ toolIsError: true, toolOutcome: 'cancelled' }, 'cancelled'],
      [{ toolIsError: true, toolOutcome: 'failed' }, 'failed'],
      [{ toolIsError: false, toolOutcome: 'ok' }, 'ok'],
      // disagreeing or unknown outcomes fall back to the boolean's own reading
      [{ toolIsError: false, toolOutcome: 'cancelled' }, 'ok'],
      [{ toolIsError: true, toolOutcome: 'ok' }, 'failed'],
      [{ toolIsError: true, toolOutcome: 'timeout' }, 'failed'],
      // no boolean: no outcome, whatever toolOutcome says
      [{ toolOutcome: 'cancelled' }, ''],
      [{ toolIsError: 'true', toolOutcome: 'failed' }, ''],
      [{}, ''],
      [null, ''],
      [[], ''],
      ['{"toolIsError":true,"toolOutcome":"cancelled"}', 'cancelled'],
      ['{broken', ''],
    ];
    for (const [payload, expected] of cases) expect(stepOutcome(payload), JSON.stringify(payload)).toBe(expected);
  });
});

describe('buildRunTimeline', () => {
  it('orders steps by time, then sequence, with lifecycle entries around them', () => {
    const entries = buildRunTimeline(
      run({ status: 'cancelled', cancelRequestedAt: 1120, finishedAt: 1131, terminationReason: 'operator pressed cancel' }),
      [
        step(
          2,
          1131,
          { kind: 'tool', toolName: 'mcp_slow_wait', toolIsError: true, toolOutcome: 'cancelled' },
          { toolServer: 'slow', toolOutcome: 'cancelled' },
        ),
        step(0, 1000, { kind: 'llm', model: 'gpt-x', promptTokens: 3 }, { kind: 'llm' }),
        step(1, 1000, { kind: 'tool', toolName: 'mcp_fast_ping', toolIsError: false }, {}),
      ],
    );
    expect(entries.map((e) => [e.time, e.event ?? e.sequence, e.kind, e.source, e.outcome])).toEqual([
      [1000, 'started', 'run', 'run', ''],
      [1000, 0, 'llm', 'gpt-x', ''],
      [1000, 1, 'tool', 'fast', 'ok'],
      [1120, 'cancel_requested', 'run', 'run', ''],
      [1131, 2, 'tool', 'slow', 'cancelled'],
      [1131, 'cancelled', 'run', 'run', ''],
    ]);
    expect(entries[5]!.details).toEqual({ reason: 'operator pressed cancel' });
    expect(entries[0]!.isLifecycle).toBe(true);
    expect(entries[1]!.isLifecycle).toBe(false);
  });

  it('shows each terminal status as its own event and nothing for a running run', () => {
    for (const status of ['completed', 'failed', 'cancelled', 'interrupted'] as const) {
      const events = buildRunTimeline(run({ status, finishedAt: 2000 }), []).map((e) => e.event);
      expect(events).toEqual(['started', status]);
    }
    expect(buildRunTimeline(run(), []).map((e) => e.event)).toEqual(['started']);
    expect(buildRunTimeline(null, [step(0, 5, { toolIsError: false })])).toHaveLength(1);
  });

  it('marks an unreadable row and renders the rest', () => {
    const entries = buildRunTimeline(null, [
      step(0, 1, '{not json'),
      step(1, 2, '[1,2]'),
      step(2, 3, '"text"'),
      step(3, 4, { kind: 'tool', toolName: 'mcp_a_b', toolIsError: true }),
    ]);
    expect(entries.map((e) => [e.sequence, e.unreadable, e.outcome])).toEqual([
      [0, true, ''],
      [1, true, ''],
      [2, true, ''],
      [3, false, 'failed'],
    ]);
    expect(entries[0]!.unreadableReason).toMatch(/not JSON/);
    expect(entries[1]!.unreadableReason).toMatch(/an array, not an object/);
  });

  it('shows allow-listed metadata only: content never reaches the details, whatever the level', async () => {
    const secret = 'TOP-SECRET-CONTENT';
    for (const privacy of ['none', 'metadata', 'redacted', 'full'] as const) {
      const store = InMemoryRunStore.create();
      const active = await startRun(store, { configuration: 'c', privacy, heartbeatMs: 0 });
      await active.trace.recordRequest({ content: secret });
      await active.trace.recordAssembledMessages({ round: 0, messages: [{ role: 'user', content: secret }] });
      await active.trace.recordLlmCall({
        round: 0,
        durationMs: 1,
        model: 'm',
        content: secret,
        thinking: secret,
        raw: { secret },
        requestedToolCalls: [{ name: 'x', arguments: { secret } }],
      });
      await active.trace.recordToolResult({
        toolName: 'mcp_s_t',
        toolArguments: { q: secret },
        result: ToolResult.text(secret),
        round: 0,
        durationMs: 1,
      });
      await active.trace.recordDroppedSources({ round: 0, sources: [secret] });
      const stored = await active.complete();
      const entries = buildRunTimeline(stored, await store.readSteps(active.id));
      expect(JSON.stringify(entries), privacy).not.toContain(secret);
      for (const entry of entries) {
        for (const key of Object.keys(entry.details)) expect(RUN_TIMELINE_DETAIL_KEYS).toContain(key);
      }
      const tool = entries.find((e) => e.kind === 'tool')!;
      expect(tool.outcome).toBe('ok');
      expect(tool.details['toolName']).toBe('mcp_s_t');
      if (privacy !== 'none') expect(tool.details['toolResultLength']).toBe(secret.length);
    }
  });
});
