import type { StoredStep } from '@runledger/trace';

/** The `toolCallId` of a stored step's payload, or undefined (none, or an unreadable payload). @internal */
export function callIdOf(step: StoredStep): string | undefined {
  if (!step.payload.includes('"toolCallId"')) return undefined;
  try {
    const id = (JSON.parse(step.payload) as Record<string, unknown>)['toolCallId'];
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}
