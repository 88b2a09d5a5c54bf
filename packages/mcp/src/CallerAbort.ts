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
    caller.addEventListener('abort', this.#onAbort, { once: true });
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
    this.#caller.removeEventListener('abort', this.#onAbort);
  }
}
