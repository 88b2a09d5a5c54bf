import { crossRealmBrand } from '@runledger/core/internal';

const BRAND = crossRealmBrand('@runledger/trace/RunStepReadError', () => RunStepReadError);

/**
 * A stored step payload could not be read back into a {@link RunStep}; names the path of the
 * first offending value.
 *
 * @public
 */
export class RunStepReadError extends Error {
  /** Where in the payload the problem is; empty for the payload as a whole. */
  readonly path: readonly (string | number)[];

  /** @internal */
  constructor(path: readonly (string | number)[], problem: string, cause?: unknown) {
    super(
      `RunStep payload ${path.length === 0 ? '' : `at ${formatPath(path)} `}cannot be read: ${problem}`,
      cause === undefined ? undefined : { cause },
    );
    this.name = 'RunStepReadError';
    this.path = Object.freeze([...path]);
    BRAND.mark(this);
  }

  /** Tells whether a value is a RunStepReadError, also one made by another copy of this package. */
  static is(value: unknown): value is RunStepReadError {
    return BRAND.is(value);
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return BRAND.hasInstance(this, value);
  }
}

function formatPath(path: readonly (string | number)[]): string {
  let text = '';
  for (const part of path) {
    if (typeof part === 'number') text += `[${part}]`;
    else text += text === '' ? part : `.${part}`;
  }
  return text;
}
