import { describe, expect, it } from 'vitest';
import { ToolFailureCause } from './ToolFailureCause.js';
import { isToolErrorClass } from './ToolFailureFacts.js';
import { ToolResult } from './ToolResult.js';

describe('ToolResult.failure facts', () => {
  it('keeps the facts that are set, frozen, through withBoundedChannels and withSends', () => {
    const result = ToolResult.failure('x'.repeat(50), ToolFailureCause.HTTP_STATUS, { httpStatus: 503 });
    expect(result.failureFacts).toEqual({ httpStatus: 503 });
    expect(Object.isFrozen(result.failureFacts)).toBe(true);
    const moved = result.withBoundedChannels({ contentBytes: 10 }).withSends(1);
    expect(moved.failureFacts).toEqual({ httpStatus: 503 });
    expect(moved.sends).toBe(1);
    const all = { jsonRpcCode: -32603, httpStatus: 500, errorClass: 'ECONNRESET', serverIsError: false };
    expect(ToolResult.failure('e', ToolFailureCause.JSON_RPC_ERROR, all).failureFacts).toEqual(all);
  });

  it('is null without facts, with an empty object, and on every other result', () => {
    expect(ToolResult.failure('e', ToolFailureCause.TIMEOUT).failureFacts).toBeNull();
    expect(ToolResult.failure('e', ToolFailureCause.TIMEOUT, {}).failureFacts).toBeNull();
    expect(ToolResult.text('t').failureFacts).toBeNull();
    expect(ToolResult.cancelled('c').failureFacts).toBeNull();
  });

  it('refuses a fact that breaks its rule, naming it', () => {
    const bad = (facts: unknown) => () => ToolResult.failure('e', ToolFailureCause.SERVER_ERROR, facts as never);
    expect(bad({ httpStatus: 99 })).toThrow('ToolResult.failure facts.httpStatus must be an integer from 100 to 599, got 99');
    expect(bad({ httpStatus: 503.5 })).toThrow(/httpStatus must be an integer/);
    expect(bad({ jsonRpcCode: 1.5 })).toThrow('ToolResult.failure facts.jsonRpcCode must be an integer, got 1.5');
    expect(bad({ errorClass: 'has space' })).toThrow(/facts\.errorClass must be 1 to 64 letters/);
    expect(bad({ errorClass: 'E'.repeat(65) })).toThrow(/errorClass/);
    expect(bad({ serverIsError: 'yes' })).toThrow('ToolResult.failure facts.serverIsError must be a boolean, got yes');
    expect(bad({ status: 503 })).toThrow('ToolResult.failure facts has no fact "status"');
    expect(bad([])).toThrow('ToolResult.failure facts must be an object of failure facts, got an array');
  });

  it('tells an error class from other text', () => {
    expect(isToolErrorClass('ECONNRESET')).toBe(true);
    expect(isToolErrorClass('ConnectionClosed')).toBe(true);
    expect(isToolErrorClass('')).toBe(false);
    expect(isToolErrorClass('1abc')).toBe(false);
    expect(isToolErrorClass(5)).toBe(false);
  });
});
