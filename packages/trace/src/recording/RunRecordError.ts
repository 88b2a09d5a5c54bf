import { crossRealmBrand } from '@runledger/core/internal';
import type { RunStep } from '../step/RunStep.js';

const BRAND = crossRealmBrand('@runledger/trace/RunRecordError', () => RunRecordError);

/**
 * The audit of a write could not be recorded: raised by a RunTrace record call, fail-closed,
 * because an unaudited write must not go unnoticed.
 *
 * @remarks
 * Raised only for the step of a write (a tool result with a write target, or a tool declared
 * as writing) whose `onRecord` hook failed; `cause` is the hook's error. Every other hook
 * failure is kept away from the agent loop.
 *
 * @public
 */
export class RunRecordError extends Error {
  /** Always `unaudited_write`. */
  readonly code: 'unaudited_write';
  /** The step that could not be recorded. */
  readonly step: RunStep;

  /** @internal */
  constructor(step: RunStep, cause: unknown) {
    const target = step.toolWriteTarget
      ? ` (${step.toolWriteTarget.kind} ${step.toolWriteTarget.resource} ${step.toolWriteTarget.id})`
      : '';
    super(
      `the write of tool ${JSON.stringify(step.toolName ?? '')}${target} could not be recorded: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
    this.name = 'RunRecordError';
    this.code = 'unaudited_write';
    this.step = step;
    BRAND.mark(this);
  }

  /** Tells whether a value is a RunRecordError, also one made by another copy of this package. */
  static is(value: unknown): value is RunRecordError {
    return BRAND.is(value);
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return BRAND.hasInstance(this, value);
  }
}
