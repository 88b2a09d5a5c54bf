import { crossRealmBrand } from '@runledger/core/internal';

const BRAND = crossRealmBrand('@runledger/trace/RunStepError', () => RunStepError);

/**
 * A run step was built with a field that breaks a rule; the message names the field(s), the
 * value(s) and the rule.
 *
 * @public
 */
export class RunStepError extends Error {
  /** The field that broke the rule (the first one, when two disagree). */
  readonly field: string;

  /** @internal */
  constructor(field: string, message: string) {
    super(message);
    this.name = 'RunStepError';
    this.field = field;
    BRAND.mark(this);
  }

  /** Tells whether a value is a RunStepError, also one made by another copy of this package. */
  static is(value: unknown): value is RunStepError {
    return BRAND.is(value);
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return BRAND.hasInstance(this, value);
  }
}
