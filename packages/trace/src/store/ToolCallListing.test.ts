import { TOOL_OUTCOMES, type ToolOutcome } from '@runledger/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RunStoreError } from './RunStoreError.js';
import { checkToolCallQuery, decodeToolCallCursor, encodeToolCallCursor, toolCallPageOf } from './ToolCallListing.js';
import type { StoredToolCall, ToolCallQuery } from './StoredToolCall.js';
import { LONE_SURROGATE } from './storeValueRules.js';
import { MAX_TIME_MS } from '../step/numericLimits.js';

/** The message of the invalid_input error `run` throws (fails when it throws anything else, or nothing). */
function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (RunStoreError.is(error) && error.code === 'invalid_input') return error.message;
    throw error;
  }
  throw new Error('expected an invalid_input RunStoreError');
}

const uuid = fc.uuid().map((id) => id.toLowerCase());
const position = fc.record({
  createdAt: fc.integer({ min: 0, max: MAX_TIME_MS }),
  runId: uuid,
  sequence: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
});

describe('checkToolCallQuery', () => {
  it('fills in the defaults: every outcome, no time range, 50 a page, from the start', () => {
    expect(checkToolCallQuery({ server: 'github' })).toEqual({
      server: 'github',
      outcome: null,
      since: null,
      until: null,
      limit: 50,
      after: null,
    });
    expect(checkToolCallQuery({ server: 'github', cursor: null }).after).toBeNull();
  });

  it('keeps what it is given; a limit above 200 reads as 200', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }).filter((s) => !s.includes('\0') && !LONE_SURROGATE.test(s)),
        fc.constantFrom<ToolOutcome>(...TOOL_OUTCOMES),
        fc.integer({ min: 0, max: MAX_TIME_MS }),
        fc.integer({ min: 0, max: MAX_TIME_MS }),
        fc.integer({ min: 1, max: 1000 }),
        position,
        (server, outcome, since, until, limit, after) => {
          const cursor = encodeToolCallCursor(after);
          expect(checkToolCallQuery({ server, outcome, since, until, limit, cursor })).toEqual({
            server,
            outcome,
            since,
            until,
            limit: Math.min(limit, 200),
            after,
          });
        },
      ),
    );
  });

  it('refuses each field out of its rule, naming the field', () => {
    const bad: readonly [field: string, query: unknown][] = [
      ['server', {}],
      ['server', { server: '' }],
      ['server', { server: 7 }],
      ['server', { server: 'a\0b' }],
      ['outcome', { server: 's', outcome: 'timeout' }],
      ['outcome', { server: 's', outcome: 'OK' }],
      ['since', { server: 's', since: -1 }],
      ['since', { server: 's', since: 1.5 }],
      ['since', { server: 's', since: '1000' }],
      ['until', { server: 's', until: MAX_TIME_MS + 1 }],
      ['until', { server: 's', until: Number.NaN }],
      ['limit', { server: 's', limit: 0 }],
      ['limit', { server: 's', limit: -3 }],
      ['limit', { server: 's', limit: 2.5 }],
      ['limit', { server: 's', limit: '10' }],
      ['cursor', { server: 's', cursor: 'not a cursor' }],
      ['cursor', { server: 's', cursor: 42 }],
    ];
    for (const [field, query] of bad) {
      expect(refusal(() => checkToolCallQuery(query as ToolCallQuery))).toContain(`ToolCallQuery.${field}`);
    }
    expect(refusal(() => checkToolCallQuery(null as unknown as ToolCallQuery))).toBe('ToolCallQuery must be an object, got null');
    expect(refusal(() => checkToolCallQuery({ server: 's', limit: 0 }))).toBe('ToolCallQuery.limit must be a positive integer, got 0');
    expect(refusal(() => checkToolCallQuery({ server: 's', outcome: 'x' as ToolOutcome }))).toBe(
      'ToolCallQuery.outcome must be "ok", "failed" or "cancelled", got "x"',
    );
  });
});

describe('the tool call cursor', () => {
  it('decodes what it encodes', () => {
    fc.assert(
      fc.property(position, (at) => {
        const cursor = encodeToolCallCursor(at);
        expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
        expect(decodeToolCallCursor(cursor)).toEqual(at);
      }),
    );
  });

  it('reads a run id in any case as the lower-case one', () => {
    const at = { createdAt: 5, runId: 'abcdef00-0000-4000-8000-00000000000a', sequence: 2 };
    expect(decodeToolCallCursor(encodeToolCallCursor({ ...at, runId: at.runId.toUpperCase() }))).toEqual(at);
  });

  it('refuses anything that is not a cursor it made, naming the field', () => {
    const encode = (value: unknown): string => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
    const id = '00000000-0000-4000-8000-000000000001';
    const junk = [
      '',
      'not a cursor',
      '!!!!',
      'e30', // {}
      encode([1, id]),
      encode([1, id, 0, 0]),
      encode({ createdAt: 1, runId: id, sequence: 0 }),
      encode([-1, id, 0]),
      encode([1.5, id, 0]),
      encode([MAX_TIME_MS + 1, id, 0]),
      encode(['1', id, 0]),
      encode([1, 'run-1', 0]),
      encode([1, id, -1]),
      encode([1, id, 0.5]),
      encode([1, id, '0']),
      Buffer.from('[1,', 'utf8').toString('base64url'),
    ];
    for (const cursor of junk) {
      expect(refusal(() => decodeToolCallCursor(cursor))).toMatch(/^ToolCallQuery\.cursor must be a nextCursor returned by listToolCalls/);
    }
    fc.assert(
      fc.property(fc.string(), (text) => {
        try {
          decodeToolCallCursor(text);
        } catch (error) {
          expect(RunStoreError.is(error) && error.code).toBe('invalid_input');
        }
      }),
    );
  });
});

describe('toolCallPageOf', () => {
  const call = (i: number): StoredToolCall => ({
    runId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    sequence: i,
    server: 's',
    tool: i % 2 === 0 ? 'lookup' : null,
    outcome: 'ok',
    cause: null,
    durationMs: i,
    createdAt: 1000 - i,
  });

  it('gives the first limit rows, and a cursor at the last of them only when a row past the page was read', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 1, max: 10 }), (count, limit) => {
        const rows = Array.from({ length: Math.min(count, limit + 1) }, (_, i) => call(i));
        const page = toolCallPageOf(rows, limit);
        expect(page.calls).toEqual(rows.slice(0, limit).map((row) => ({ ...row, failureFacts: null })));
        if (rows.length > limit) {
          const last = rows[limit - 1]!;
          expect(decodeToolCallCursor(page.nextCursor!)).toEqual({ createdAt: last.createdAt, runId: last.runId, sequence: last.sequence });
        } else {
          expect(page.nextCursor).toBeNull();
        }
      }),
    );
  });

  it('gives frozen copies: a caller changing them changes nothing read', () => {
    const rows = [call(0), call(1)];
    const page = toolCallPageOf(rows, 5);
    expect(Object.isFrozen(page.calls)).toBe(true);
    expect(Object.isFrozen(page.calls[0])).toBe(true);
    expect(page.calls[0]).not.toBe(rows[0]);
  });

  it("reads each call's failure facts leniently: an object or its JSON text, anything else null", () => {
    const facts = (failureFacts: unknown) => toolCallPageOf([{ ...call(0), failureFacts } as never], 5).calls[0]!.failureFacts;
    expect(facts({ httpStatus: 503 })).toEqual({ httpStatus: 503 });
    expect(facts('{"jsonRpcCode":-32603,"errorClass":"ECONNRESET"}')).toEqual({ jsonRpcCode: -32603, errorClass: 'ECONNRESET' });
    expect(facts('{"httpStatus":"503"}')).toBeNull();
    expect(facts('not json')).toBeNull();
    expect(facts(undefined)).toBeNull();
    expect(facts({})).toBeNull();
  });
});
