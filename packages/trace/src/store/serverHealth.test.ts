import type { ToolFailureCause, ToolOutcome } from '@runledger/core';
import { describe, expect, it } from 'vitest';
import { RunStoreError } from './RunStoreError.js';
import { type ServerHealthRow, serverHealth } from './serverHealth.js';
import { serverFromToolName } from '../health/serverFromToolName.js';
import { toolCallOf } from '../health/ToolCallFacts.js';

function row(
  server: string | null,
  outcome: ToolOutcome | null,
  createdAt: number,
  durationMs: number,
  payload: Record<string, unknown> = {},
): ServerHealthRow {
  return { kind: 'tool', payload: JSON.stringify(payload), toolServer: server, toolOutcome: outcome, createdAt, durationMs };
}

function failed(cause: ToolFailureCause | null, createdAt: number, durationMs: number): ServerHealthRow {
  return row('s', 'failed', createdAt, durationMs, cause === null ? {} : { toolFailureCause: cause });
}

describe('serverFromToolName', () => {
  it('takes the text between mcp_ and the next underscore', () => {
    expect(serverFromToolName('mcp_github_search_issues')).toBe('github');
    expect(serverFromToolName('mcp_Jira_get')).toBe('Jira');
    for (const name of ['mcp__x', 'mcp_github_', 'mcp_github', 'search', 'MCP_github_x', '', 42, null]) {
      expect(serverFromToolName(name), String(name)).toBeNull();
    }
  });
});

describe('toolCallOf', () => {
  it('prefers the columns, then the payload server, then the tool name; outcome from the boolean for legacy rows', () => {
    const ok = { cause: null, answered: true, counted: true };
    expect(toolCallOf({ kind: 'tool', payload: '{}', toolServer: 's', toolOutcome: 'cancelled' })).toEqual({
      server: 's',
      outcome: 'cancelled',
      cause: null,
      answered: false,
      counted: false,
    });
    expect(
      toolCallOf({
        kind: 'tool',
        payload: { toolServer: 'p', toolName: 'mcp_n_x', toolIsError: true },
        toolServer: null,
        toolOutcome: null,
      }),
    ).toEqual({ server: 'p', outcome: 'failed', cause: null, answered: false, counted: true });
    expect(
      toolCallOf({ kind: 'tool', payload: '{"toolName":"mcp_n_x","toolIsError":false}', toolServer: null, toolOutcome: null }),
    ).toEqual({ server: 'n', outcome: 'ok', ...ok });
    expect(toolCallOf({ kind: 'tool', payload: '{"toolName":"mcp_n_x"}', toolServer: null, toolOutcome: null })).toBeNull();
    expect(toolCallOf({ kind: 'tool', payload: '{broken', toolServer: 's', toolOutcome: 'ok' })).toEqual({
      server: 's',
      outcome: 'ok',
      ...ok,
    });
    expect(toolCallOf({ kind: 'tool', payload: '{broken', toolServer: null, toolOutcome: 'ok' })).toEqual({
      server: null,
      outcome: 'ok',
      ...ok,
    });
    expect(toolCallOf({ kind: 'llm', payload: '{"toolIsError":true}', toolServer: null, toolOutcome: null })).toBeNull();
  });

  it('reads the failure cause from the column, else the payload; answered and counted follow from it', () => {
    const step = (toolFailureCause: string | null | undefined, payload: unknown = '{}') =>
      toolCallOf({ kind: 'tool', payload, toolServer: 's', toolOutcome: 'failed', toolFailureCause });
    expect(step('server_error')).toMatchObject({ cause: 'server_error', answered: true, counted: true });
    expect(step('invalid_arguments')).toMatchObject({ cause: 'invalid_arguments', answered: true, counted: false });
    expect(step('mcp_timeout')).toMatchObject({ cause: 'mcp_timeout', answered: false, counted: true });
    expect(step(undefined, '{"toolFailureCause":"mcp_transport_failure"}')).toMatchObject({
      cause: 'mcp_transport_failure',
      answered: false,
      counted: true,
    });
    expect(step(null, '{"toolFailureCause":"from a newer version"}')).toMatchObject({ cause: null, answered: false, counted: true });
    // a cause on a call that did not fail is no cause
    expect(toolCallOf({ kind: 'tool', payload: '{}', toolServer: 's', toolOutcome: 'ok', toolFailureCause: 'server_error' })).toMatchObject(
      { cause: null },
    );
  });
});

describe('serverHealth', () => {
  it('never counts a cancellation as a failure', () => {
    const rows = [row('s', 'ok', 1, 1), ...Array.from({ length: 10 }, (_, i) => row('s', 'cancelled', 2 + i, 5))];
    expect(serverHealth(rows)).toEqual([
      {
        server: 's',
        calls: 11,
        ok: 1,
        failed: 0,
        cancelled: 10,
        invalidArguments: 0,
        notCharged: 0,
        failureCauses: [],
        answered: 1,
        failureRate: 0,
        lastFailureAt: null,
        // the cancelled calls' 5 ms say nothing about how fast the server answers
        p50DurationMs: 1,
        p95DurationMs: 1,
        flaky: false,
        tooFewCalls: true,
      },
    ]);
  });

  it('takes latency from answered calls only: ok and error answers, never cancellations or calls that got no answer', () => {
    const rows = [
      ...Array.from({ length: 9 }, (_, i) => row('s', 'ok', i, i + 1)),
      row('s', 'cancelled', 20, 410),
      failed('mcp_timeout', 21, 5000),
      failed('mcp_transport_failure', 22, 3000),
      failed(null, 23, 900),
      failed('server_error', 24, 8.5),
    ];
    expect(serverHealth(rows)[0]).toMatchObject({ answered: 10, p50DurationMs: 5, p95DurationMs: 9 });
    expect(serverHealth([row('s', 'cancelled', 1, 400), failed('mcp_deadline_exhausted', 2, 300)])[0]).toMatchObject({
      answered: 0,
      p50DurationMs: null,
      p95DurationMs: null,
    });
  });

  it('breaks failures down by cause, "unknown" for rows without one, most first', () => {
    const rows = [
      failed('mcp_timeout', 1, 1),
      failed(null, 2, 1),
      failed('mcp_timeout', 3, 1),
      failed('server_error', 4, 1),
      failed('invalid_arguments', 5, 1),
    ];
    expect(serverHealth(rows)[0]!.failureCauses).toEqual([
      { cause: 'mcp_timeout', calls: 2 },
      { cause: 'invalid_arguments', calls: 1 },
      { cause: 'server_error', calls: 1 },
      { cause: 'unknown', calls: 1 },
    ]);
  });

  it('does not charge the server for invalid arguments: failed, shown beside the rate, not in it', () => {
    const rows = [
      ...Array.from({ length: 5 }, (_, i) => row('s', 'ok', i, 1)),
      failed('invalid_arguments', 10, 1),
      failed('invalid_arguments', 11, 1),
      failed('server_error', 9, 1),
    ];
    const health = serverHealth(rows)[0]!;
    expect(health).toMatchObject({
      calls: 8,
      ok: 5,
      failed: 3,
      invalidArguments: 2,
      notCharged: 2,
      failureRate: 1 / 6,
      lastFailureAt: 9,
      flaky: false,
      tooFewCalls: false,
    });
    // the same with the invalid calls counted would be 3 / 8 = 37.5 %, flaky
    const all = serverHealth(rows.map((r) => ({ ...r, payload: '{"toolFailureCause":"server_error"}' })))[0]!;
    expect(all).toMatchObject({ failureRate: 3 / 8, flaky: true });
  });

  it('invalidArguments counts invalid_arguments only; notCharged every failed call not charged to the server', () => {
    const rows = [
      row('s', 'ok', 0, 1),
      failed('invalid_arguments', 1, 1),
      failed('tool_not_found', 2, 1),
      failed('unknown_tool', 3, 1),
      failed('malformed_arguments', 4, 1),
      failed('not_approved', 5, 1),
      failed('server_error', 6, 1),
    ];
    expect(serverHealth(rows)[0]).toMatchObject({ failed: 6, invalidArguments: 1, notCharged: 5, failureRate: 1 / 2, lastFailureAt: 6 });
  });

  it('says "too few calls" below minAnsweredCalls counted calls, never healthy or flaky', () => {
    const two = [row('s', 'ok', 1, 1), failed('server_error', 2, 1)];
    expect(serverHealth(two)[0]).toMatchObject({ failureRate: 0.5, flaky: false, tooFewCalls: true });
    // invalid arguments and cancellations are no evidence either
    const padded = [...two, failed('invalid_arguments', 3, 1), failed('invalid_arguments', 4, 1), row('s', 'cancelled', 5, 1)];
    expect(serverHealth(padded)[0]).toMatchObject({ tooFewCalls: true });
    expect(serverHealth(two, { flaky: { minAnsweredCalls: 2 } })[0]).toMatchObject({ flaky: true, tooFewCalls: false });
  });

  it('flags flaky at 20% over at least 5 answered calls by default', () => {
    const four = [row('s', 'failed', 1, 1), row('s', 'failed', 2, 1), row('s', 'ok', 3, 1), row('s', 'ok', 4, 1)];
    expect(serverHealth(four)[0]!.flaky).toBe(false);
    const five = [...four, row('s', 'ok', 5, 1)];
    expect(serverHealth(five)[0]).toMatchObject({ failureRate: 0.4, flaky: true, lastFailureAt: 2 });
    const low = [row('s', 'failed', 1, 1), ...Array.from({ length: 5 }, (_, i) => row('s', 'ok', 2 + i, 1))];
    expect(serverHealth(low)[0]).toMatchObject({ flaky: false });
    const exactly = [row('s', 'failed', 1, 1), ...Array.from({ length: 4 }, (_, i) => row('s', 'ok', 2 + i, 1))];
    expect(serverHealth(exactly)[0]).toMatchObject({ failureRate: 0.2, flaky: true });
  });

  it('uses nearest-rank percentiles', () => {
    const rows = Array.from({ length: 20 }, (_, i) => row('s', 'ok', i, i + 1));
    expect(serverHealth(rows)[0]).toMatchObject({ p50DurationMs: 10, p95DurationMs: 19 });
    expect(serverHealth([row('s', 'ok', 0, 7), row('s', 'ok', 0, 3)])[0]).toMatchObject({ p50DurationMs: 3, p95DurationMs: 7 });
  });

  it('refuses a malformed query', () => {
    expect(() => serverHealth([], { since: -1 })).toThrow(RunStoreError);
    expect(() => serverHealth([], { flaky: { minAnsweredCalls: 0 } })).toThrow(/minAnsweredCalls must be a positive integer/);
  });
});
