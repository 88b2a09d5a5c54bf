import type { RunStep, RunStepFields } from './RunStep.js';
import { RunStepError } from './RunStepError.js';
import { RunStepReadError } from './RunStepReadError.js';
import { RunStepSchema } from './RunStepSchema.js';

/**
 * Reads a stored payload into step fields with {@link RunStepSchema} and hands them to `build`;
 * every failure becomes a RunStepReadError naming the path.
 *
 * @internal
 */
export function readRunStepPayload(payload: unknown, build: (fields: RunStepFields) => RunStep): RunStep {
  let value = payload;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value) as unknown;
    } catch (error) {
      throw new RunStepReadError([], `it is not JSON (${error instanceof Error ? error.message : String(error)})`, error);
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new RunStepReadError(
      [],
      `it must be an object, got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}`,
    );
  }
  try {
    const parsed = RunStepSchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new RunStepReadError(
        issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p)),
        issue.message,
      );
    }
    return build(parsed.data);
  } catch (error) {
    if (RunStepReadError.is(error)) throw error;
    if (RunStepError.is(error)) throw new RunStepReadError([error.field], error.message, error);
    throw new RunStepReadError([], error instanceof Error ? error.message : String(error), error);
  }
}
