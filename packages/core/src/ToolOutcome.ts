/**
 * How a tool call ended: `ok`, `failed` or `cancelled`.
 *
 * @remarks
 * The value is the one string that travels unchanged from the transport to the screen: it is
 * what a stored step holds, what the timeline returns and the last part of the message key the
 * app renders. `failed` means the server or the wire did something wrong; `cancelled` means our
 * own side stopped waiting (a run was cancelled), which is never counted against a server.
 *
 * @public
 */
export const ToolOutcome = {
  /** The server answered and did not flag an error. */
  OK: 'ok',
  /** The server answered with an error, or the transport, protocol or deadline failed. */
  FAILED: 'failed',
  /** Our own signal was aborted before the call ended. */
  CANCELLED: 'cancelled',
} as const;

/**
 * One of the three outcome strings of {@link (ToolOutcome:variable)}.
 *
 * @public
 */
export type ToolOutcome = (typeof ToolOutcome)[keyof typeof ToolOutcome];

/**
 * Every outcome, in the order ok, failed, cancelled.
 *
 * @public
 */
export const TOOL_OUTCOMES: readonly ToolOutcome[] = Object.freeze([ToolOutcome.OK, ToolOutcome.FAILED, ToolOutcome.CANCELLED]);

/**
 * Tells whether a value is one of the three outcome strings.
 *
 * @public
 */
export function isToolOutcome(value: unknown): value is ToolOutcome {
  return value === ToolOutcome.OK || value === ToolOutcome.FAILED || value === ToolOutcome.CANCELLED;
}
