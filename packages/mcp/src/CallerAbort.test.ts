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
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(5);
    for (const call of calls) call.release();
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
    caller.abort();
    expect(calls.every((call) => !call.signal.aborted)).toBe(true);
  });
});
