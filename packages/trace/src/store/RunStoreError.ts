import { crossRealmBrand } from '@runledger/core/internal';

const BRAND = crossRealmBrand('@runledger/trace/RunStoreError', () => RunStoreError);

/**
 * The stable code of each {@link RunStoreError}.
 *
 * @public
 */
export const RunStoreErrorCode = {
  RUN_NOT_FOUND: 'run_not_found',
  INVALID_INPUT: 'invalid_input',
  SCHEMA_TOO_NEW: 'schema_too_new',
  STORAGE_FAILURE: 'storage_failure',
  SEQUENCE_CONFLICT: 'sequence_conflict',
} as const;

/**
 * One of the code strings of {@link (RunStoreErrorCode:variable)}.
 *
 * @public
 */
export type RunStoreErrorCode = (typeof RunStoreErrorCode)[keyof typeof RunStoreErrorCode];

/**
 * An error raised by a run store, with a stable code.
 *
 * @public
 */
export class RunStoreError extends Error {
  readonly code: RunStoreErrorCode;

  private constructor(code: RunStoreErrorCode, message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'RunStoreError';
    this.code = code;
    BRAND.mark(this);
  }

  /** The run does not exist in the store. */
  static runNotFound(runId: string): RunStoreError {
    return new RunStoreError(RunStoreErrorCode.RUN_NOT_FOUND, `run ${JSON.stringify(runId)} does not exist`);
  }

  /** An input field breaks a rule; the message names the field and the rule. */
  static invalidInput(message: string): RunStoreError {
    return new RunStoreError(RunStoreErrorCode.INVALID_INPUT, message);
  }

  /** The database was written by a newer runledger; it is never migrated backwards. */
  static schemaTooNew(found: number, supported: number): RunStoreError {
    return new RunStoreError(
      RunStoreErrorCode.SCHEMA_TOO_NEW,
      `the database has schema version ${found}, newer than ${supported}, the newest this version of runledger knows; upgrade runledger to open it`,
    );
  }

  /**
   * Another step is stored at the sequence an append named: the append is refused, nothing is
   * written.
   */
  static sequenceConflict(runId: string, sequence: number): RunStoreError {
    return new RunStoreError(
      RunStoreErrorCode.SEQUENCE_CONFLICT,
      `AppendStepInput.sequence ${sequence} of run ${JSON.stringify(runId)} holds another step already`,
    );
  }

  /** The storage itself failed. */
  static storageFailure(message: string, cause?: unknown): RunStoreError {
    return new RunStoreError(RunStoreErrorCode.STORAGE_FAILURE, message, cause);
  }

  /** Tells whether a value is a RunStoreError, also one made by another copy of this package. */
  static is(value: unknown): value is RunStoreError {
    return BRAND.is(value);
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return BRAND.hasInstance(this, value);
  }
}
