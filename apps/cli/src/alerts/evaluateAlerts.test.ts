import { ToolFailureCause } from '@runledger/core';
import type { ServerHealth } from '@runledger/trace';
import { type ServerHealthRow, serverHealth } from '@runledger/trace/store';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseAlertRules, type AlertRules } from './alertRules.js';
import { evaluateAlerts, healthRules, type AlertReadings, type AlertStates } from './evaluateAlerts.js';
import { healthQueryOf } from './readAlertReadings.js';

const NOW = 1_800_000_000_000;
const MIN = 60_000;

function call(
  server: string,
  outcome: 'ok' | 'failed' | 'cancelled',
  createdAt: number,
  durationMs: number,
  cause?: ToolFailureCause,
): ServerHealthRow {
  return {
    kind: 'tool',
    payload: JSON.stringify(cause === undefined ? {} : { toolFailureCause: cause }),
    toolServer: server,
    toolOutcome: outcome,
    createdAt,
    durationMs,
  };
}

/** The readings the evaluator gets from a store holding these calls (the pure definition of every store's health query). */
function readingsOf(rules: AlertRules, calls: readonly ServerHealthRow[], extra: Partial<AlertReadings> = {}): AlertReadings {
  const health: Record<string, readonly ServerHealth[]> = {};
  for (const rule of healthRules(rules)) health[rule.id] = serverHealth(calls, healthQueryOf(rule, NOW));
  return { now: NOW, health, runningRuns: [], unsureWrites: {}, ...extra };
}

const RULES = parseAlertRules({
  rules: [
    { id: 'flaky', kind: 'flaky', window: '1h' },
    { id: 'rate', kind: 'failure-rate', above: 0.3, window: '1h', minCalls: 4 },
    { id: 'slow', kind: 'p95', aboveMs: 1000, window: '1h' },
    { id: 'stuck', kind: 'stalled-run', after: '10m' },
    { id: 'writes', kind: 'may-have-executed', window: '1d', server: 'db' },
  ],
});

describe('evaluateAlerts', () => {
  const bad = [
    call('a', 'ok', NOW - MIN, 100),
    call('a', 'ok', NOW - MIN, 100),
    call('a', 'failed', NOW - MIN, 100, 'server_error'),
    call('a', 'failed', NOW - MIN, 100, ToolFailureCause.TIMEOUT),
    call('a', 'failed', NOW - MIN, 100, 'server_error'),
  ];

  it('fires once per alert, keeps its first time, resolves when it stops (or its rule goes)', () => {
    const first = evaluateAlerts(RULES, readingsOf(RULES, bad), {});
    expect(first.transitions.map((t) => `${t.type} ${t.alert.key}`).sort()).toEqual(['firing flaky|a', 'firing rate|a']);
    expect(first.states['rate|a']).toMatchObject({ kind: 'failure-rate', subject: 'a', value: 0.6, since: NOW });
    const again = evaluateAlerts(RULES, { ...readingsOf(RULES, bad), now: NOW + MIN }, first.states);
    expect(again.transitions).toEqual([]);
    expect(again.states['rate|a']?.since).toBe(NOW);
    const healed = evaluateAlerts(RULES, readingsOf(RULES, bad.slice(0, 2)), again.states);
    expect(healed.transitions.map((t) => `${t.type} ${t.alert.key}`).sort()).toEqual(['resolved flaky|a', 'resolved rate|a']);
    expect(healed.states).toEqual({});
    const fewer = parseAlertRules({ rules: [{ id: 'slow', kind: 'p95', aboveMs: 1000, window: '1h' }] });
    expect(evaluateAlerts(fewer, readingsOf(fewer, bad), first.states).transitions.map((t) => t.type)).toEqual(['resolved', 'resolved']);
  });

  it('needs minCalls answered calls for a failure rate, and a p95 above the bound', () => {
    const two = [call('a', 'failed', NOW - MIN, 5000, 'server_error'), call('a', 'failed', NOW - MIN, 5000, 'server_error')];
    const states = evaluateAlerts(RULES, readingsOf(RULES, two), {}).states;
    expect(Object.keys(states)).toEqual(['slow|a']);
    expect(states['slow|a']?.value).toBe(5000);
    // out of the window: nothing
    expect(
      evaluateAlerts(
        RULES,
        readingsOf(
          RULES,
          two.map((c) => ({ ...c, createdAt: NOW - 61 * MIN })),
        ),
        {},
      ).states,
    ).toEqual({});
  });

  it('fires on a running run without a sign of life for the span, and on unsure writes of its server', () => {
    const readings = readingsOf(RULES, [], {
      runningRuns: [
        { runId: 'r1', configuration: 'c', lastSignAt: NOW - 10 * MIN },
        { runId: 'r2', configuration: 'c', lastSignAt: NOW - 9 * MIN },
      ],
      unsureWrites: {
        writes: [
          { runId: 'r3', sequence: 4, server: 'db', tool: 'insert', createdAt: NOW - MIN },
          { runId: 'r3', sequence: 6, server: 'mail', tool: 'send', createdAt: NOW - MIN },
        ],
      },
    });
    expect(Object.keys(evaluateAlerts(RULES, readings, {}).states).sort()).toEqual(['stuck|r1', 'writes|r3#4']);
  });
});

// ── the property: an operator's cancels never make a rule fire nor change a failure rate ──

const SERVERS = ['a', 'b', 'c'] as const;
const CAUSES: readonly ToolFailureCause[] = [
  ToolFailureCause.SERVER_ERROR,
  ToolFailureCause.TIMEOUT,
  ToolFailureCause.TRANSPORT_FAILURE,
  ToolFailureCause.INVALID_ARGUMENTS,
  ToolFailureCause.UNKNOWN_TOOL,
  ToolFailureCause.HTTP_STATUS,
];
const when = fc.integer({ min: NOW - 3 * 3_600_000, max: NOW - 1 });
const answered = fc.oneof(
  fc
    .record({ server: fc.constantFrom(...SERVERS), at: when, ms: fc.integer({ min: 0, max: 5000 }) })
    .map((c) => call(c.server, 'ok', c.at, c.ms)),
  fc
    .record({ server: fc.constantFrom(...SERVERS), at: when, ms: fc.integer({ min: 0, max: 5000 }), cause: fc.constantFrom(...CAUSES) })
    .map((c) => call(c.server, 'failed', c.at, c.ms, c.cause)),
);
const cancel = fc
  .record({ server: fc.constantFrom(...SERVERS, 'd'), at: when, ms: fc.integer({ min: 0, max: 60_000 }) })
  .map((c) => call(c.server, 'cancelled', c.at, c.ms));
const window = fc.constantFrom('10m', '1h', '3h');
const rules = fc
  .tuple(
    fc.record({
      window,
      failureRate: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
      minCalls: fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined }),
    }),
    fc.record({ window, above: fc.double({ min: 0, max: 1, noNaN: true }), minCalls: fc.integer({ min: 1, max: 6 }) }),
    fc.record({
      window,
      aboveMs: fc.integer({ min: 1, max: 5000 }),
      minCalls: fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined }),
    }),
  )
  .map(([flaky, rate, p95]) =>
    parseAlertRules({
      rules: [
        { id: 'flaky', kind: 'flaky', ...JSON.parse(JSON.stringify(flaky)) },
        { id: 'rate', kind: 'failure-rate', ...rate },
        { id: 'p95', kind: 'p95', ...JSON.parse(JSON.stringify(p95)) },
      ],
    }),
  );

/** The answered calls alone, and the same calls with cancels among them in any order. */
const storeContents = fc
  .tuple(fc.array(answered, { maxLength: 40 }), fc.array(cancel, { minLength: 1, maxLength: 40 }))
  .chain(([calls, cancels]) =>
    fc.tuple(fc.constant(calls), fc.shuffledSubarray([...calls, ...cancels], { minLength: calls.length + cancels.length })),
  );

describe('an operator cancel', () => {
  it('never makes a rule fire or stop, nor changes a failure rate, whatever else the store holds', () => {
    fc.assert(
      fc.property(rules, storeContents, fc.boolean(), (r, [calls, mixed], warm) => {
        const without = readingsOf(r, calls);
        const withCancels = readingsOf(r, mixed);
        const previous: AlertStates = warm ? evaluateAlerts(r, without, {}).states : {};
        const a = evaluateAlerts(r, without, previous);
        const b = evaluateAlerts(r, withCancels, previous);
        expect(Object.keys(b.states).sort()).toEqual(Object.keys(a.states).sort());
        expect(b.transitions).toEqual(a.transitions);
        for (const id of Object.keys(without.health)) {
          const rates = (h: AlertReadings) =>
            Object.fromEntries((h.health[id] ?? []).filter((s) => s.failureRate !== null).map((s) => [s.server, s.failureRate]));
          expect(rates(withCancels)).toEqual(rates(without));
        }
      }),
      { numRuns: 300 },
    );
  });
});
