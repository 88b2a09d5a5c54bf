import { isToolOutcome, ToolOutcome } from '@runledger/core';

/**
 * The outcome a stored step payload states, or `''` when it states none.
 *
 * @remarks
 * `toolIsError` decides WHETHER the payload states an outcome (not a boolean → `''`);
 * `toolOutcome` decides WHICH, when it is a valid outcome that agrees with the boolean
 * (`ok` ⇔ false). Otherwise the boolean's own reading: true → `failed`, false → `ok`. So a
 * row written before outcomes existed reads as it always did.
 *
 * @internal
 */
export function readStepOutcome(payload: unknown): ToolOutcome | '' {
  if (typeof payload !== 'object' || payload === null) return '';
  const record = payload as Record<string, unknown>;
  const isError = record['toolIsError'];
  if (typeof isError !== 'boolean') return '';
  const outcome = record['toolOutcome'];
  if (isToolOutcome(outcome) && (outcome !== ToolOutcome.OK) === isError) return outcome;
  return isError ? ToolOutcome.FAILED : ToolOutcome.OK;
}

/**
 * Parses a payload that may be JSON text; returns undefined when it cannot be parsed.
 *
 * @internal
 */
export function parsePayload(payload: unknown): unknown {
  if (typeof payload !== 'string') return payload;
  try {
    return JSON.parse(payload) as unknown;
  } catch {
    return undefined;
  }
}
