import { crossRealmBrand } from '@runledger/core/internal';

const BRAND = crossRealmBrand('@runledger/trace/RunCancelledError', () => RunCancelledError);

/**
 * Who asked for a run's cancel: this process (`local`, through `ActiveRun.cancel`) or another
 * one, through the store (`store`).
 *
 * @public
 */
export type RunCancelSource = 'local' | 'store';

/**
 * The abort reason of a cancelled run's signal (`run.signal.reason`).
 *
 * @remarks
 * One object per run, so a tool can tell "our own signal was aborted" from any other rejection
 * by identity (`error === signal.reason`), never by code or message.
 *
 * @public
 */
export class RunCancelledError extends Error {
  readonly runId: string;
  /** The cancel reason in words. */
  readonly reason: string;
  readonly requestedBy: RunCancelSource;

  /** @internal */
  constructor(runId: string, reason: string, requestedBy: RunCancelSource) {
    super(`run ${runId} was cancelled: ${reason}`);
    this.name = 'RunCancelledError';
    this.runId = runId;
    this.reason = reason;
    this.requestedBy = requestedBy;
    BRAND.mark(this);
  }

  /** Tells whether a value is a RunCancelledError, also one made by another copy of this package. */
  static is(value: unknown): value is RunCancelledError {
    return BRAND.is(value);
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return BRAND.hasInstance(this, value);
  }
}
