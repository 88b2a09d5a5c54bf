import { describe, expect, it } from 'vitest';
import { RunStoreError } from './RunStoreError.js';
import { checkCreateRun, checkFinishRun, checkHeartbeatAt, checkRequestCancelAt, checkRunId } from './storeInputChecks.js';
import { storableText } from './storeValueRules.js';
import { terminationColumns } from './storedTermination.js';

describe('storableText', () => {
  it('replaces NUL and lone surrogates by U+FFFD and keeps everything else, pairs included', () => {
    expect(storableText('a\0b\uD800c\uDC00😀\uD83D\uDE00 ä\u0001')).toBe('a\uFFFDb\uFFFDc\uFFFD😀😀 ä\u0001');
    expect(storableText('\uDBFF\uDBFF\uDFFF')).toBe('\uFFFD\uDBFF\uDFFF');
    expect(storableText('plain')).toBe('plain');
  });

  it('makes any error message a termination reason every store keeps', () => {
    const reason = storableText(`failed: ${'\0'}${'\uD800'.repeat(3)}`);
    expect(checkFinishRun({ status: 'failed', terminationReason: reason }, 0).termination).toEqual(
      terminationColumns({ kind: 'other', text: reason }),
    );
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

  it('checkCreateRun: a title is 1 to 200 characters without control characters, or null', () => {
    expect(checkCreateRun({ configuration: 'c' }, 0).title).toBeNull();
    expect(checkCreateRun({ configuration: 'c', title: null }, 0).title).toBeNull();
    expect(checkCreateRun({ configuration: 'c', title: 'Triage the inbox ä 😀' }, 0).title).toBe('Triage the inbox ä 😀');
    // 200 characters, an astral one counted once, pass; 201 do not
    expect(checkCreateRun({ configuration: 'c', title: '😀'.repeat(200) }, 0).title).toBe('😀'.repeat(200));
    const rule = 'CreateRunInput.title must be a string of 1 to 200 characters without control characters, or null';
    expect(() => checkCreateRun({ configuration: 'c', title: 'x'.repeat(201) }, 0)).toThrow(`${rule}: it has more than 200 characters`);
    expect(() => checkCreateRun({ configuration: 'c', title: 'two\nlines' }, 0)).toThrow(
      `${rule}: found the control character U+000A at index 3`,
    );
    expect(() => checkCreateRun({ configuration: 'c', title: 'bell\u0007' }, 0)).toThrow('U+0007');
    expect(() => checkCreateRun({ configuration: 'c', title: '' }, 0)).toThrow(`${rule}, got ""`);
    expect(() => checkCreateRun({ configuration: 'c', title: 7 as unknown as string }, 0)).toThrow(`${rule}, got 7`);
    expect(() => checkCreateRun({ configuration: 'c', title: 'a\0' }, 0)).toThrow('CreateRunInput.title must not contain NUL');
    const refused = (() => {
      try {
        checkCreateRun({ configuration: 'c', title: 'x'.repeat(201) }, 0);
      } catch (error) {
        return error;
      }
      return null;
    })();
    expect(RunStoreError.is(refused) && refused.code).toBe('invalid_input');
  });

  it('checkRunId: the lower-case key of a UUID, null for any other string, invalid_input for a non-string', () => {
    expect(checkRunId('A0000000-0000-4000-8000-00000000000F')).toBe('a0000000-0000-4000-8000-00000000000f');
    expect(checkRunId('not-a-uuid')).toBeNull();
    expect(() => checkRunId(null as unknown as string)).toThrow('runId must be a string, got null');
  });
});
