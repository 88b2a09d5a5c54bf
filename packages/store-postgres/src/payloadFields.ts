// What the store keeps of a step's payload beside the call columns: the tool name of an ended call
// (steps.call_tool) and the model tokens of a step (added to runs.tokens), read alike from the
// payload an append gives and from stored payload text (an import, the schema 12 backfill).
import { RunStepKind } from '@runledger/trace';
import { storedStepTokens, stepTokens } from '@runledger/trace/store';

/** A payload as an object: an object as it is, JSON text parsed; null when unreadable or not a JSON object. */
export function payloadRecordOf(payload: unknown): Readonly<Record<string, unknown>> | null {
  let value = payload;
  if (typeof payload === 'string') {
    try {
      value = JSON.parse(payload) as unknown;
    } catch {
      return null;
    }
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Readonly<Record<string, unknown>>) : null;
}

/** The payload's `toolName` when it is a string (what a tool call listing shows and the `tool` filter matches), else null. */
export function toolNameOfPayload(payload: unknown): string | null {
  const name = payloadRecordOf(payload)?.['toolName'];
  return typeof name === 'string' ? name : null;
}

/** The tokens of a step by trace's {@link stepTokens}; the payload is read only for an `llm` step, and an unreadable one counts 0. */
export function tokensOfPayload(kind: string, payload: unknown): number {
  if (typeof payload === 'string') return storedStepTokens({ kind, payload });
  if (kind !== RunStepKind.LLM) return 0;
  const record = payloadRecordOf(payload);
  return record === null ? 0 : stepTokens(kind, record);
}
