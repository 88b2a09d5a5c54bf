import { ToolFailureCause, ToolOutcome } from '@runledger/core';
import { readStepOutcome } from './readStepOutcome.js';
import { RunStepKind } from './RunStepKind.js';

/** The failure causes of a call refused or given up before it was sent: no server saw it. */
const NOT_SENT: ReadonlySet<unknown> = new Set<ToolFailureCause>([
  ToolFailureCause.UNKNOWN_TOOL,
  ToolFailureCause.MALFORMED_ARGUMENTS,
  ToolFailureCause.NOT_APPROVED,
  ToolFailureCause.REFUSED_HOST,
  ToolFailureCause.MISSING_CREDENTIAL,
  ToolFailureCause.DEADLINE_EXHAUSTED,
]);

/**
 * The failure causes of a call whose request may have reached the server with no answer saying
 * what became of it: the answer never came (a timeout, a broken connection) or could not be read.
 * An HTTP error status counts too: the step does not keep the status, and a gateway's 502 or 504
 * says nothing about the call behind it.
 */
const UNANSWERED: ReadonlySet<unknown> = new Set<ToolFailureCause>([
  ToolFailureCause.TIMEOUT,
  ToolFailureCause.TRANSPORT_FAILURE,
  ToolFailureCause.HTTP_STATUS,
  ToolFailureCause.MALFORMED_RESPONSE,
  ToolFailureCause.UNSUPPORTED_CONTENT_TYPE,
]);

/** Whether a step payload is of a call to a tool that writes (`toolWrites`, or a `toolWriteTarget`). */
export function isWritingCall(payload: Readonly<Record<string, unknown>>): boolean {
  const target = payload['toolWriteTarget'];
  return payload['toolWrites'] === true || (typeof target === 'object' && target !== null);
}

/**
 * Whether a stored step payload is a call to a writing tool that may have run on the server
 * although no answer said what became of it.
 *
 * @remarks
 * True for a `tool` step of a tool that writes (`toolWrites`, or a `toolWriteTarget`) whose
 * request may have reached the server — `toolSends` ≥ 1, or, on a step that does not say
 * (`toolSends` absent: recorded before it existed, or by a tool that does not count), not
 * refused before sending — and that ended `cancelled`, or `failed` without an answer: a timeout,
 * a broken connection, an HTTP error status, an answer that could not be read. False for every
 * other step: an answered call (`server_error`, `invalid_arguments`, a JSON-RPC error: the server
 * said what happened), one that never left (`toolSends: 0`; `unknown_tool`, `malformed_arguments`,
 * `not_approved`, `refused_host`, `missing_credential`, `deadline_exhausted`), and a failure
 * whose cause is not known. A started call that never ended (interrupted) is marked by the
 * timeline, not here.
 *
 * @internal
 */
export function mayHaveExecuted(payload: Readonly<Record<string, unknown>>): boolean {
  if (payload['kind'] !== RunStepKind.TOOL || !isWritingCall(payload)) return false;
  const sends = payload['toolSends'];
  if (sends === 0) return false;
  const cause = payload['toolFailureCause'];
  if (NOT_SENT.has(cause)) return false;
  const outcome = readStepOutcome(payload);
  if (outcome === ToolOutcome.CANCELLED) return true;
  return outcome === ToolOutcome.FAILED && UNANSWERED.has(cause);
}
