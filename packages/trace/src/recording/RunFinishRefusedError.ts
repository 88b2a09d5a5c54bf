import { crossRealmBrand } from '@runledger/core/internal';
import type { TerminalRunStatus } from '../step/RunStatus.js';

const BRAND = crossRealmBrand('@runledger/trace/RunFinishRefusedError', () => RunFinishRefusedError);

/**
 * The store refused a run's final status for good (say, the run was deleted by a prune while its
 * final status waited in the spool): it will never be stored.
 *
 * @remarks
 * `complete()`, `fail()` and `finished` of the run all settle with this one error, and it is
 * reported once (`StartRunOptions.onError`, else a line on stderr). `cause` is the store's
 * refusal (a `RunStoreError`, such as `run_not_found`).
 *
 * @public
 */
export class RunFinishRefusedError extends Error {
  /** Always `finish_refused`. */
  readonly code: 'finish_refused';
  /** The run whose final status was refused. */
  readonly runId: string;
  /** The status that was refused. */
  readonly status: TerminalRunStatus;

  /** @internal */
  constructor(runId: string, status: TerminalRunStatus, cause: unknown) {
    const reason =
      typeof cause === 'object' && cause !== null && 'code' in cause && typeof cause.code === 'string'
        ? `${cause.code}: ${cause instanceof Error ? cause.message : String(cause)}`
        : cause instanceof Error
          ? cause.message
          : String(cause);
    super(`the final status of run ${runId} ("${status}") was refused for good by the store and will never be stored: ${reason}`, {
      cause,
    });
    this.name = 'RunFinishRefusedError';
    this.code = 'finish_refused';
    this.runId = runId;
    this.status = status;
    BRAND.mark(this);
  }

  /** Tells whether a value is a RunFinishRefusedError, also one made by another copy of this package. */
  static is(value: unknown): value is RunFinishRefusedError {
    return BRAND.is(value);
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return BRAND.hasInstance(this, value);
  }
}
