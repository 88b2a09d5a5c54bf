import { describe, expect, it } from 'vitest';
import { RunStoreError } from './RunStoreError.js';
import { checkCreateRun, checkFinishRun, checkHeartbeatAt, checkRequestCancelAt, checkRunId } from './storeInputChecks.js';
import { storableText } from './storeValueRules.js';

describe('storableText', () => {
  it('replaces NUL and lone surrogates by U+FFFD and keeps everything else, pairs included', () => {
    expect(storableText('a\0b\uD800c\uDC00😀\uD83D\uDE00 ä\u0001')).toBe('a\uFFFDb\uFFFDc\uFFFD😀😀 ä\u0001');
    expect(storableText('\uDBFF\uDBFF\uDFFF')).toBe('\uFFFD\uDBFF\uDFFF');
    expect(storableText('plain')).toBe('plain');
  });

  it('makes any error message a termination reason every store keeps', () => {
    const reason = storableText(`failed: ${'\0'}${'\uD800'.repeat(3)}`);
    expect(checkFinishRun({ status: 'failed', terminationReason: reason }, 0).terminationReason).toBe(reason);
    expect(() => checkFinishRun({ status: 'failed', terminationReason: 'failed: \0' }, 0)).toThrow(RunStoreError);
  });
});

describe('the check functions', () => {
  it('check the store clock of a default time by the same time rule', () => {
    expect(() => checkCreateRun({ configuration: 'c' }, 1.5)).toThrow(
      "CreateRunInput.createdAt defaults to the store's clock, which must give integer milliseconds since the epoch from 0 to 8640000000000000, got 1.5",
    );
    expect(checkRequestCancelAt(undefined, 7)).toBe(7);
    expect(Object.is(checkHeartbeatAt(-0, 7), 0)).toBe(true);
  });

  it('checkRunId: the lower-case key of a UUID, null for any other string, invalid_input for a non-string', () => {
    expect(checkRunId('A0000000-0000-4000-8000-00000000000F')).toBe('a0000000-0000-4000-8000-00000000000f');
    expect(checkRunId('not-a-uuid')).toBeNull();
    expect(() => checkRunId(null as unknown as string)).toThrow('runId must be a string, got null');
  });
});
