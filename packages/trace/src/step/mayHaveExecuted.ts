import { ToolFailureCause, ToolOutcome } from '@runledger/core';
import { readStepOutcome } from './readStepOutcome.js';
import { RunStepKind } from './RunStepKind.js';

/** The failure causes of a call refused before it was sent: no server saw it. */
const NOT_SENT: ReadonlySet<unknown> = new Set<ToolFailureCause>([
  ToolFailureCause.UNKNOWN_TOOL,
  ToolFailureCause.MALFORMED_ARGUMENTS,
  ToolFailureCause.NOT_APPROVED,
]);

/**
 * Whether a stored step payload is a call to a writing tool that may have run on the server
 * although its answer was never seen.
 *
 * @remarks
 * True for a `tool` step of a tool that writes (`toolWrites`, or a `toolWriteTarget`) that ended
 * `cancelled`, or `failed` with the cause `mcp_timeout` (the call was on the wire when the
 * deadline struck). False for every other step, and for a call the payload says was never sent
 * (`unknown_tool`, `malformed_arguments`, `not_approved`); a connect failure or an exhausted
 * deadline before sending fails with a cause other than `mcp_timeout`, so it is never marked
 * either. A cancel does not say whether the call had reached the wire yet, so a cancelled
 * writing call is always marked: the mark fails safe.
 *
 * @internal
 */
export function mayHaveExecuted(payload: Readonly<Record<string, unknown>>): boolean {
  if (payload['kind'] !== RunStepKind.TOOL) return false;
  const target = payload['toolWriteTarget'];
  if (payload['toolWrites'] !== true && (typeof target !== 'object' || target === null)) return false;
  const cause = payload['toolFailureCause'];
  if (NOT_SENT.has(cause)) return false;
  const outcome = readStepOutcome(payload);
  return outcome === ToolOutcome.CANCELLED || (outcome === ToolOutcome.FAILED && cause === ToolFailureCause.TIMEOUT);
}
