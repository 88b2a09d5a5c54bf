import { describe, expect, it } from 'vitest';
import { isToolOutcome, TOOL_OUTCOMES, ToolOutcome } from './index.js';

describe('ToolOutcome', () => {
  it('has exactly the three outcome strings', () => {
    expect(ToolOutcome).toEqual({ OK: 'ok', FAILED: 'failed', CANCELLED: 'cancelled' });
    expect(Object.isFrozen(TOOL_OUTCOMES)).toBe(true);
    expect(TOOL_OUTCOMES).toEqual([ToolOutcome.OK, ToolOutcome.FAILED, ToolOutcome.CANCELLED]);
    expect(new Set(TOOL_OUTCOMES).size).toBe(3);
  });

  it('TOOL_OUTCOMES cannot be changed', () => {
    expect(() => (TOOL_OUTCOMES as string[]).push('maybe')).toThrow(TypeError);
    expect(TOOL_OUTCOMES).toHaveLength(3);
  });

  it('isToolOutcome accepts the three strings and nothing else', () => {
    for (const outcome of TOOL_OUTCOMES) {
      expect(isToolOutcome(outcome)).toBe(true);
    }
    for (const value of [
      'OK',
      'Ok',
      'ok ',
      ' ok',
      'fail',
      'error',
      'canceled',
      'cancel',
      'CANCELLED',
      '',
      'true',
      true,
      false,
      0,
      1,
      null,
      undefined,
      {},
      ['ok'],
      new String('ok'),
      Symbol('ok'),
    ]) {
      expect(isToolOutcome(value), String(typeof value === 'symbol' ? 'symbol' : JSON.stringify(value))).toBe(false);
    }
  });
});
