import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { CallerAbort } from './CallerAbort.js';

describe('CallerAbort', () => {
  it('aborts its own signal with a reason of its own when the caller aborts, and knows it by identity only', () => {
    const caller = new AbortController();
    const abort = new CallerAbort(caller.signal, 'mcp_fx_echo');
    expect(abort.signal.aborted).toBe(false);
    expect(abort.isCancel(undefined)).toBe(false);
    caller.abort(new Error('the run was cancelled'));
    expect(abort.signal.aborted).toBe(true);
    const reason: unknown = abort.signal.reason;
    expect(reason).toBeInstanceOf(Error);
    expect((reason as Error).message).toBe('the caller cancelled the call of "mcp_fx_echo"');
    expect(abort.isCancel(reason)).toBe(true);
    // Same class, same code, same message: still not ours.
    const lookalike = Object.assign(Object.create(Object.getPrototypeOf(reason) as object) as object, reason as object);
    expect(abort.isCancel(lookalike)).toBe(false);
    expect(abort.isCancel(caller.signal.reason)).toBe(false);
  });

  it('is not a cancel while the caller has not aborted, whatever the error', () => {
    const abort = new CallerAbort(new AbortController().signal, 't');
    expect(abort.isCancel(new Error('x'))).toBe(false);
    expect(abort.isCancel(abort.signal.reason)).toBe(false);
  });

  it('release stops listening to the caller, which may outlive many calls', () => {
    const caller = new AbortController();
    const calls = Array.from({ length: 5 }, (_, i) => new CallerAbort(caller.signal, `t${i}`));
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(1);
    for (const call of calls) call.release();
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
    caller.abort();
    expect(calls.every((call) => !call.signal.aborted)).toBe(true);
  });

  it('many concurrent calls on one run signal hold one listener on it, and each is aborted with its own reason', () => {
    // Past 10 listeners Node warns "Possible EventTarget memory leak" (MaxListenersExceededWarning):
    // an agent making 11 parallel tool calls in one run is no leak.
    const caller = new AbortController();
    const calls = Array.from({ length: 50 }, (_, i) => new CallerAbort(caller.signal, `t${i}`));
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(1);
    calls[3]!.release();
    calls[7]!.release();
    caller.abort();
    const aborted = calls.filter((call) => call.signal.aborted);
    expect(aborted).toHaveLength(48);
    expect(calls[3]!.signal.aborted || calls[7]!.signal.aborted).toBe(false);
    expect(new Set(aborted.map((call) => call.signal.reason as unknown)).size).toBe(48);
    expect(aborted.every((call) => call.isCancel(call.signal.reason))).toBe(true);
    expect(calls[0]!.isCancel(calls[1]!.signal.reason)).toBe(false);
    // Released after the abort: harmless, and a new call on the aborted signal starts clean.
    for (const call of calls) call.release();
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
  });

  it('a signal reused after all its calls ended gets a listener again', () => {
    const caller = new AbortController();
    const first = new CallerAbort(caller.signal, 'a');
    first.release();
    const second = new CallerAbort(caller.signal, 'b');
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(1);
    caller.abort();
    expect(second.signal.aborted).toBe(true);
    expect(first.signal.aborted).toBe(false);
  });
});
