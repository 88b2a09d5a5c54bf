// How many model tokens a step used: the one rule every store adds up into a run's `tokens`.
import { RunStepKind } from './RunStepKind.js';

const tokenCount = (value: unknown): number => (typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : 0);

/**
 * The tokens a step used: for an `llm` step its payload's `promptTokens` plus `completionTokens`
 * (a value that is not a non-negative safe integer counts 0); 0 for every other kind.
 *
 * @public
 */
export function stepTokens(kind: string, payload: Readonly<Record<string, unknown>>): number {
  if (kind !== RunStepKind.LLM) return 0;
  return tokenCount(payload.promptTokens) + tokenCount(payload.completionTokens);
}

/**
 * The tokens of a stored step, its payload read from its text: text that is not a JSON object
 * counts 0 (a damaged row never fails a read, an import or a migration).
 *
 * @public
 */
export function storedStepTokens(step: { readonly kind: string; readonly payload: string }): number {
  if (step.kind !== RunStepKind.LLM) return 0;
  let payload: unknown;
  try {
    payload = JSON.parse(step.payload);
  } catch {
    return 0;
  }
  return typeof payload === 'object' && payload !== null ? stepTokens(step.kind, payload as Record<string, unknown>) : 0;
}
