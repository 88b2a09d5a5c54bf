import { newAbortReason } from './sdk.js';

/**
 * The caller's signal of one call, linked to a signal of our own whose abort reason is the only
 * evidence that decides `cancelled`.
 *
 * @remarks
 * When the caller aborts, a fresh reason is made (an instance of the SDK's own error class, so
 * the SDK rejects with that very object) and our signal is aborted with it. A rejection is the
 * caller's cancel exactly when it IS that object: never an error code or a message, which a
 * timeout shares. The reason is made only on abort: most calls never need one (an Error captures
 * a stack).
 *
 * @internal
 */
export class CallerAbort {
  readonly #caller: AbortSignal;
  readonly #ours = new AbortController();
  readonly #toolName: string;
  #reason: Error | undefined;
  readonly #onAbort = (): void => {
    this.#reason = newAbortReason(`the caller cancelled the call of "${this.#toolName}"`);
    this.#ours.abort(this.#reason);
  };

  constructor(caller: AbortSignal, toolName: string) {
    this.#caller = caller;
    this.#toolName = toolName;
    callersOf(caller).add(this.#onAbort);
  }

  /** The signal to hand to the connection: aborted, with our own reason, when the caller aborts. */
  get signal(): AbortSignal {
    return this.#ours.signal;
  }

  /** True when the error is our own abort reason: the caller cancelled the call. */
  isCancel(error: unknown): boolean {
    return this.#reason !== undefined && error === this.#reason;
  }

  /** Stops listening to the caller's signal (which may outlive the call, e.g. a whole run's). */
  release(): void {
    const calls = CALLS.get(this.#caller);
    if (calls === undefined) return;
    calls.delete(this.#onAbort);
    if (calls.size === 0) calls.stop();
  }
}

/**
 * The calls listening to one caller signal, behind ONE abort listener on it: a run's signal
 * shared by many concurrent calls carries one listener, not one per call (Node warns past 10,
 * "Possible EventTarget memory leak"), and none once the calls ended.
 */
class SignalCalls extends Set<() => void> {
  readonly #signal: AbortSignal;
  readonly #fire = (): void => {
    CALLS.delete(this.#signal);
    for (const onAbort of [...this]) onAbort();
    this.clear();
  };

  constructor(signal: AbortSignal) {
    super();
    this.#signal = signal;
    signal.addEventListener('abort', this.#fire, { once: true });
  }

  /** Removes the one listener: no call listens any more. */
  stop(): void {
    this.#signal.removeEventListener('abort', this.#fire);
    CALLS.delete(this.#signal);
  }
}

const CALLS = new WeakMap<AbortSignal, SignalCalls>();

function callersOf(signal: AbortSignal): SignalCalls {
  let calls = CALLS.get(signal);
  if (calls === undefined) {
    calls = new SignalCalls(signal);
    CALLS.set(signal, calls);
  }
  return calls;
}
