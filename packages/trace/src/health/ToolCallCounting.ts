import { ToolFailureCause, ToolOutcome } from '@runledger/core';

/**
 * The failure causes of a call the server answered (with an error): its latency says how fast
 * the server answers, so it counts in the duration percentiles.
 *
 * @public
 */
export const ANSWERED_FAILURE_CAUSES: readonly ToolFailureCause[] = Object.freeze([
  ToolFailureCause.SERVER_ERROR,
  ToolFailureCause.INVALID_ARGUMENTS,
  ToolFailureCause.TOOL_NOT_FOUND,
]);

/**
 * The failure causes that are the caller's doing, not the server's: such a call stays `failed`
 * but is not counted in the server's failure rate (shown beside it as `notCharged`, like
 * cancellations). Besides invalid arguments, a tool the server answered it does not have, and the
 * calls that were never sent (unknown tool, malformed arguments, not approved).
 *
 * @public
 */
export const NOT_COUNTED_FAILURE_CAUSES: readonly ToolFailureCause[] = Object.freeze([
  ToolFailureCause.INVALID_ARGUMENTS,
  ToolFailureCause.TOOL_NOT_FOUND,
  ToolFailureCause.UNKNOWN_TOOL,
  ToolFailureCause.MALFORMED_ARGUMENTS,
  ToolFailureCause.NOT_APPROVED,
]);

const ANSWERED: ReadonlySet<string> = new Set(ANSWERED_FAILURE_CAUSES);
const NOT_COUNTED: ReadonlySet<string> = new Set(NOT_COUNTED_FAILURE_CAUSES);

/**
 * Tells whether the server answered a call, so that its duration is a latency of the server.
 *
 * @remarks
 * The rule of every latency figure of server health (the same as `onHealthContact` of
 * `@runledger/mcp`): an `ok` call, and a `failed` call whose cause is an answer of the server
 * ({@link ANSWERED_FAILURE_CAUSES}). A cancelled call, a call that ended on the wire without an
 * answer (deadline, timeout, transport, HTTP status, protocol, crashed process) and a failed call
 * whose cause is not known (rows written before causes were recorded) say nothing about how fast
 * the server answers.
 *
 * @public
 */
export function isAnsweredCall(outcome: ToolOutcome, cause: ToolFailureCause | null): boolean {
  if (outcome === ToolOutcome.OK) return true;
  return outcome === ToolOutcome.FAILED && cause !== null && ANSWERED.has(cause);
}

/**
 * Tells whether a call counts in the server's failure rate: `ok`, or `failed` for a cause that is
 * not the caller's doing ({@link NOT_COUNTED_FAILURE_CAUSES}). A cancellation never counts.
 *
 * @public
 */
export function isCountedCall(outcome: ToolOutcome, cause: ToolFailureCause | null): boolean {
  if (outcome === ToolOutcome.OK) return true;
  return outcome === ToolOutcome.FAILED && (cause === null || !NOT_COUNTED.has(cause));
}
