import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ToolArtifact, ToolOutcome, WriteTarget } from '@runledger/core';
import { describe, expect, it } from 'vitest';
import { RunStep } from './RunStep.js';
import { RunStepError } from './RunStepError.js';
import { RunStepReadError } from './RunStepReadError.js';

const tool = (fields: Record<string, unknown> = {}) =>
  RunStep.of({
    kind: 'tool',
    round: 1,
    durationMs: 3,
    toolName: 'mcp_gh_search',
    toolServer: 'gh',
    toolArguments: { q: 'x' },
    toolResult: 'r',
    ...fields,
  });

describe('RunStep invariants', () => {
  it('refuses a toolOutcome on a step that is not a tool step, naming the field, kind and value', () => {
    expect(() => RunStep.of({ kind: 'llm', round: 0, durationMs: 0, toolOutcome: 'ok' })).toThrow(
      'RunStep.toolOutcome must not be set on a "llm" step, got "ok"',
    );
    try {
      RunStep.of({ kind: 'context', round: 0, durationMs: 0, toolOutcome: 'cancelled' });
    } catch (error) {
      expect(RunStepError.is(error)).toBe(true);
      expect(error).toBeInstanceOf(RunStepError);
      expect((error as RunStepError).field).toBe('toolOutcome');
    }
  });

  it('refuses a toolIsError that contradicts toolOutcome, naming both fields and values', () => {
    expect(() => tool({ toolIsError: false, toolOutcome: 'cancelled' })).toThrow(
      'RunStep.toolIsError false contradicts RunStep.toolOutcome "cancelled": toolIsError must be true for that outcome',
    );
    expect(() => tool({ toolIsError: true, toolOutcome: 'ok' })).toThrow(/RunStep\.toolIsError true contradicts RunStep\.toolOutcome "ok"/);
    expect(() => tool({ toolIsError: false, toolOutcome: 'failed' })).toThrow(
      /toolIsError false contradicts RunStep\.toolOutcome "failed"/,
    );
  });

  it('accepts every agreeing pair and derives one field from the other on a tool step', () => {
    for (const outcome of [ToolOutcome.OK, ToolOutcome.FAILED, ToolOutcome.CANCELLED]) {
      const both = tool({ toolOutcome: outcome, toolIsError: outcome !== 'ok' });
      expect([both.toolOutcome, both.toolIsError]).toEqual([outcome, outcome !== 'ok']);
      const onlyOutcome = tool({ toolOutcome: outcome });
      expect(onlyOutcome.toolIsError).toBe(outcome !== 'ok');
    }
    expect(tool({ toolIsError: true }).toolOutcome).toBe('failed');
    expect(tool({ toolIsError: false }).toolOutcome).toBe('ok');
    expect(tool().toolOutcome).toBeUndefined();
  });

  it('keeps toolIsError alone on a non-tool step (older data) without inventing an outcome', () => {
    const step = RunStep.of({ kind: 'llm', round: 0, durationMs: 0, toolIsError: true });
    expect(step.toolIsError).toBe(true);
    expect(step.toolOutcome).toBeUndefined();
    expect(step.toPayload()).toEqual({ kind: 'llm', round: 0, durationMs: 0, toolIsError: true });
  });

  it('keeps a call that did not end ok fail-closed: no artifacts, no write target', () => {
    expect(() => tool({ toolOutcome: 'cancelled', toolArtifacts: [ToolArtifact.text('a', 'b')] })).toThrow(
      'RunStep.toolArtifacts must be empty when RunStep.toolOutcome is "cancelled": a call that did not end ok is fail-closed',
    );
    expect(() => tool({ toolOutcome: 'failed', toolWriteTarget: WriteTarget.created('ticket', '1') })).toThrow(
      /toolWriteTarget must not be set when RunStep\.toolOutcome is "failed"/,
    );
    expect(tool({ toolOutcome: 'failed', toolArtifacts: [] }).toolArtifacts).toEqual([]);
  });

  it('refuses malformed common fields with the field and value in the message', () => {
    expect(() => RunStep.of({ kind: 'nope' as 'llm', round: 0, durationMs: 0 })).toThrow(/RunStep\.kind must be one of .*got "nope"/);
    expect(() => RunStep.of({ kind: 'llm', round: -1, durationMs: 0 })).toThrow(
      'RunStep.round must be an integer from 0 to 2147483647, got -1',
    );
    expect(() => RunStep.of({ kind: 'llm', round: 0, durationMs: Number.POSITIVE_INFINITY })).toThrow(
      /RunStep\.durationMs must be a number of milliseconds from 0 to 8640000000000000, got Infinity/,
    );
    expect(() => RunStep.of({ kind: 'llm', round: 0, durationMs: 0, promptTokens: 1.5 })).toThrow(
      /RunStep\.promptTokens must be an integer from 0 to 9007199254740991, got 1\.5/,
    );
    expect(() => RunStep.of({ kind: 'tool', round: 0, durationMs: 0, toolOutcome: 'timeout' as 'ok' })).toThrow(
      /RunStep\.toolOutcome must be "ok", "failed" or "cancelled", got "timeout"/,
    );
  });

  it('refuses numbers a store cannot keep, naming the field (issue 11: durationMs 1e307 became Infinity)', () => {
    const refused = (fields: Record<string, unknown>): RunStepError => {
      try {
        RunStep.of({ kind: 'llm', round: 0, durationMs: 0, ...fields });
      } catch (error) {
        if (RunStepError.is(error)) return error;
        throw error;
      }
      throw new Error(`accepted ${JSON.stringify(fields)}`);
    };
    const cases: [Record<string, unknown>, string, string][] = [
      [{ durationMs: 1e307 }, 'durationMs', 'RunStep.durationMs must be a number of milliseconds from 0 to 8640000000000000, got 1e+307'],
      [{ durationMs: Number.NaN }, 'durationMs', 'RunStep.durationMs must be a number of milliseconds from 0 to 8640000000000000, got NaN'],
      [{ durationMs: -0.5 }, 'durationMs', 'RunStep.durationMs must be a number of milliseconds from 0 to 8640000000000000, got -0.5'],
      [{ round: 2 ** 31 }, 'round', 'RunStep.round must be an integer from 0 to 2147483647, got 2147483648'],
      [{ round: 0.5 }, 'round', 'RunStep.round must be an integer from 0 to 2147483647, got 0.5'],
      [
        { promptTokens: 2 ** 53 },
        'promptTokens',
        'RunStep.promptTokens must be an integer from 0 to 9007199254740991, got 9007199254740992',
      ],
      [
        { completionTokens: Number.POSITIVE_INFINITY },
        'completionTokens',
        'RunStep.completionTokens must be an integer from 0 to 9007199254740991, got Infinity',
      ],
      [{ kind: 'context', tokenBudget: -1 }, 'tokenBudget', 'RunStep.tokenBudget must be an integer from 0 to 9007199254740991, got -1'],
      [
        { kind: 'context', tokensUsed: Number.NaN },
        'tokensUsed',
        'RunStep.tokensUsed must be an integer from 0 to 9007199254740991, got NaN',
      ],
      [{ costUsd: Number.POSITIVE_INFINITY }, 'costUsd', 'RunStep.costUsd must be a finite number ≥ 0, got Infinity'],
    ];
    for (const [fields, field, message] of cases) {
      const error = refused(fields);
      expect(error.field).toBe(field);
      expect(error.message).toBe(message);
    }
  });

  it('keeps the largest storable numbers finite through toPayload and back, and −0 as 0', () => {
    const step = RunStep.of({ kind: 'llm', round: 2 ** 31 - 1, durationMs: 8.64e15, promptTokens: Number.MAX_SAFE_INTEGER, costUsd: -0 });
    expect(step.durationMs).toBe(8.64e15);
    expect(RunStep.fromPayload(JSON.parse(JSON.stringify(step.toPayload())))).toEqual(step);
    expect(Object.is(RunStep.of({ kind: 'llm', round: -0, durationMs: -0 }).durationMs, 0)).toBe(true);
    expect(Object.is(RunStep.of({ kind: 'llm', round: -0, durationMs: -0 }).round, 0)).toBe(true);
    expect(Object.is(step.costUsd, 0)).toBe(true);
  });
});

describe('RunStep.toPayload', () => {
  it('writes keys in a fixed order, the outcome as the ToolOutcome string, durationMs to 2 decimals', () => {
    const step = RunStep.of({
      toolWriteTarget: WriteTarget.changed('ticket', '42'),
      toolArtifacts: [ToolArtifact.table('rows', [{ a: 1 }])],
      toolOutcome: ToolOutcome.OK,
      toolResult: 'done',
      toolArguments: { id: 42 },
      toolServer: 'jira',
      toolName: 'mcp_jira_update',
      durationMs: 12.3456,
      round: 2,
      kind: 'tool',
    });
    const payload = step.toPayload();
    expect(Object.keys(payload)).toEqual([
      'kind',
      'round',
      'durationMs',
      'toolName',
      'toolServer',
      'toolArguments',
      'toolResult',
      'toolIsError',
      'toolOutcome',
      'toolArtifacts',
      'toolWriteTarget',
    ]);
    expect(payload.durationMs).toBe(12.35);
    expect(step.durationMs).toBe(12.35);
    expect(payload.toolOutcome).toBe('ok');
    expect(payload.toolIsError).toBe(false);
    expect(payload.toolWriteTarget).toEqual({ resource: 'ticket', id: '42', kind: 'changed' });
    expect(payload.toolArtifacts).toEqual([{ type: 'table', label: 'rows', data: [{ a: 1 }] }]);
    expect(JSON.stringify(step)).toBe(JSON.stringify(payload));
  });

  it('writes optional keys only when set, keeping zero, false, empty strings and empty arrays', () => {
    const step = RunStep.of({
      kind: 'llm',
      round: 0,
      durationMs: 0,
      model: null,
      content: '',
      promptTokens: 0,
      completionTokens: undefined,
      costUsd: 0,
      requestedToolCalls: [],
      thinking: undefined,
    });
    expect(step.toPayload()).toEqual({
      kind: 'llm',
      round: 0,
      durationMs: 0,
      content: '',
      promptTokens: 0,
      costUsd: 0,
      requestedToolCalls: [],
    });
    expect(Object.keys(step.toPayload())).toEqual([
      'kind',
      'round',
      'durationMs',
      'content',
      'promptTokens',
      'costUsd',
      'requestedToolCalls',
    ]);
    expect(tool({ toolIsError: false }).toPayload().toolIsError).toBe(false);
  });

  it('round-trips through fromPayload for every kind', () => {
    const steps = [
      RunStep.of({ kind: 'request', round: 0, durationMs: 0, content: 'hi' }),
      RunStep.of({
        kind: 'llm',
        round: 1,
        durationMs: 5.5,
        model: 'm',
        content: 'a',
        thinking: 't',
        finishReason: 'tool_calls',
        promptTokens: 3,
        completionTokens: 4,
        costUsd: 0.01,
        requestedToolCalls: [
          { id: 'c1', name: 'x', arguments: { a: 1 } },
          { name: 'y', arguments: {} },
        ],
        raw: { any: [1] },
      }),
      RunStep.of({ kind: 'context', round: 1, durationMs: 0, tokenBudget: 100, tokensUsed: 80 }),
      RunStep.of({ kind: 'dropped', round: 1, durationMs: 0, droppedSources: ['doc-1', 'doc-2'] }),
      RunStep.of({ kind: 'assembled', round: 1, durationMs: 0, messages: [{ role: 'user', content: 'q' }] }),
      tool({ toolOutcome: 'ok', toolArtifacts: [ToolArtifact.text('t', 'x')], toolWriteTarget: WriteTarget.deleted('page', 'p1') }),
      tool({ toolOutcome: 'cancelled' }),
    ];
    for (const step of steps) {
      const back = RunStep.fromPayload(JSON.parse(JSON.stringify(step.toPayload())));
      expect(back.toPayload()).toEqual(step.toPayload());
      expect(RunStep.fromPayload(JSON.stringify(step)).toPayload()).toEqual(step.toPayload());
    }
  });
});

describe('RunStep.fromPayload', () => {
  it('reads a row written before outcomes existed from toolIsError, exactly as before', () => {
    expect(RunStep.fromPayload({ kind: 'tool', round: 0, durationMs: 1, toolName: 'mcp_a_b', toolIsError: true }).toolOutcome).toBe(
      'failed',
    );
    expect(RunStep.fromPayload({ kind: 'tool', round: 0, durationMs: 1, toolName: 'mcp_a_b', toolIsError: false }).toolOutcome).toBe('ok');
  });

  it('ignores unknown keys and reads null as not set', () => {
    const step = RunStep.fromPayload({ kind: 'llm', round: 0, durationMs: 1, model: null, future: { x: 1 }, contentLength: 5 });
    expect(step.toPayload()).toEqual({ kind: 'llm', round: 0, durationMs: 1 });
  });

  it('raises a typed read error naming the path, never a half-built step', () => {
    const cases: [unknown, string, RegExp][] = [
      ['{nope', '', /not JSON/],
      [[1], '', /must be an object, got an array/],
      [null, '', /must be an object, got null/],
      [{ round: 0, durationMs: 0 }, 'kind', /at kind/],
      [{ kind: 'tool', round: 'one', durationMs: 0 }, 'round', /at round/],
      [
        { kind: 'tool', round: 0, durationMs: 0, toolArtifacts: [{ type: 'blob', label: 'x' }] },
        'toolArtifacts.0.type',
        /at toolArtifacts\[0\]\.type/,
      ],
      [
        { kind: 'tool', round: 0, durationMs: 0, toolIsError: false, toolOutcome: 'failed' },
        'toolIsError',
        /toolIsError false contradicts RunStep\.toolOutcome "failed"/,
      ],
      [{ kind: 'llm', round: 0, durationMs: 0, toolOutcome: 'ok' }, 'toolOutcome', /must not be set on a "llm" step/],
    ];
    for (const [payload, path, message] of cases) {
      let caught: unknown;
      try {
        RunStep.fromPayload(payload);
      } catch (error) {
        caught = error;
      }
      expect(RunStepReadError.is(caught), `payload ${JSON.stringify(payload)}`).toBe(true);
      expect((caught as RunStepReadError).path.join('.')).toBe(path);
      expect((caught as Error).message).toMatch(message);
    }
  });
});

describe('RunStep where code may not be made from strings (an edge runtime)', () => {
  it('makes the same steps: its fields are set by the loop instead of the generated setter', () => {
    // a real Node with code generation from strings refused, loading the sources as a user's bundle would
    const script = `
      import { RunStep } from './src/step/RunStep.ts';
      let refused = false;
      try { new Function('return 1'); } catch { refused = true; }
      const step = RunStep.of({ kind: 'tool', round: 2, durationMs: 1.234, toolName: 'mcp_gh_search', toolArguments: { q: 1 }, toolResult: 'x', toolOutcome: 'failed', toolFailureCause: 'server_error' });
      console.log(JSON.stringify({ refused, payload: step.toPayload() }));`;
    const out = execFileSync(
      process.execPath,
      ['--disallow-code-generation-from-strings', '--import', 'tsx', '--input-type=module', '-e', script],
      {
        cwd: fileURLToPath(new URL('../..', import.meta.url)),
        encoding: 'utf8',
      },
    );
    const { refused, payload } = JSON.parse(out) as { refused: boolean; payload: unknown };
    expect(refused).toBe(true);
    expect(payload).toEqual(
      RunStep.of({
        kind: 'tool',
        round: 2,
        durationMs: 1.234,
        toolName: 'mcp_gh_search',
        toolArguments: { q: 1 },
        toolResult: 'x',
        toolOutcome: 'failed',
        toolFailureCause: 'server_error',
      }).toPayload(),
    );
  });
});
