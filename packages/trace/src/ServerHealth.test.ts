import type { ToolOutcome } from '@runledger/core';
import { describe, expect, it } from 'vitest';
import { RunStoreError } from './RunStoreError.js';
import { type ServerHealthRow, serverHealth } from './ServerHealth.js';
import { serverFromToolName } from './serverFromToolName.js';
import { toolCallOf } from './ToolCallFacts.js';

function row(server: string | null, outcome: ToolOutcome | null, createdAt: number, durationMs: number, payload: Record<string, unknown> = {}): ServerHealthRow {
  return { kind: 'tool', payload: JSON.stringify(payload), toolServer: server, toolOutcome: outcome, createdAt, durationMs };
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
    expect(toolCallOf({ kind: 'tool', payload: '{}', toolServer: 's', toolOutcome: 'cancelled' })).toEqual({ server: 's', outcome: 'cancelled' });
    expect(toolCallOf({ kind: 'tool', payload: { toolServer: 'p', toolName: 'mcp_n_x', toolIsError: true }, toolServer: null, toolOutcome: null })).toEqual({ server: 'p', outcome: 'failed' });
    expect(toolCallOf({ kind: 'tool', payload: '{"toolName":"mcp_n_x","toolIsError":false}', toolServer: null, toolOutcome: null })).toEqual({ server: 'n', outcome: 'ok' });
    expect(toolCallOf({ kind: 'tool', payload: '{"toolName":"mcp_n_x"}', toolServer: null, toolOutcome: null })).toBeNull();
    expect(toolCallOf({ kind: 'tool', payload: '{broken', toolServer: 's', toolOutcome: 'ok' })).toEqual({ server: 's', outcome: 'ok' });
    expect(toolCallOf({ kind: 'tool', payload: '{broken', toolServer: null, toolOutcome: 'ok' })).toEqual({ server: null, outcome: 'ok' });
    expect(toolCallOf({ kind: 'llm', payload: '{"toolIsError":true}', toolServer: null, toolOutcome: null })).toBeNull();
  });
});

describe('serverHealth', () => {
  it('never counts a cancellation as a failure', () => {
    const rows = [row('s', 'ok', 1, 1), ...Array.from({ length: 10 }, (_, i) => row('s', 'cancelled', 2 + i, 5))];
    expect(serverHealth(rows)).toEqual([
      { server: 's', calls: 11, ok: 1, failed: 0, cancelled: 10, failureRate: 0, lastFailureAt: null, p50DurationMs: 5, p95DurationMs: 5, flaky: false },
    ]);
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
