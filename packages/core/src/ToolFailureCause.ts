import { McpTransportErrorCode } from './McpTransportException.js';

/**
 * Why a tool call failed: the server's own error answer, the caller's invalid arguments, a tool
 * the server does not have, a call that was never sent, or the {@link McpTransportException} code
 * that ended the call on the wire.
 *
 * @remarks
 * `server_error`: the server answered `isError: true`. `invalid_arguments`: the server refused
 * the arguments because they do not match its input schema (JSON-RPC `-32602`, or the SDK's
 * "Input validation error" answer), which is the caller's (the model's) mistake. `tool_not_found`:
 * the server answered that it has no tool of that name (or has it disabled: the MCP SDKs' `Tool X
 * not found` / `Tool X disabled`, as JSON-RPC `-32602` or as an `isError` text), the model's or
 * the configuration's doing (a stale tool list), never the server's fault. `unknown_tool`,
 * `malformed_arguments` and `not_approved`: the call was refused before it was sent (the model
 * named a tool the loop does not offer, gave arguments that are not a JSON object, or approval
 * refused it); no server saw it. `recorder_error`: the caller's own code made the failed result
 * (`ToolResult.error`), not a transport or a server answer. Every other value is the stable `code` of the transport exception
 * (deadline, timeout, transport, HTTP status, JSON-RPC error, malformed answer, …). A
 * cancellation is an outcome of its own and has no failure cause.
 *
 * @public
 */
export const ToolFailureCause = {
  /** The server answered with `isError: true`. */
  SERVER_ERROR: 'server_error',
  /** The server refused the arguments as not matching its input schema: the caller's mistake. */
  INVALID_ARGUMENTS: 'invalid_arguments',
  /** The server answered that it has no tool of that name (or has it disabled): the caller's or the configuration's doing. */
  TOOL_NOT_FOUND: 'tool_not_found',
  /** The model named a tool the agent loop does not offer: the call was not sent. */
  UNKNOWN_TOOL: 'unknown_tool',
  /** The model's arguments were not a JSON object (unparsable, or another JSON value): the call was not sent. */
  MALFORMED_ARGUMENTS: 'malformed_arguments',
  /** The call needed approval and was refused (or approval failed): the call was not sent. */
  NOT_APPROVED: 'not_approved',
  /** The caller's own code failed the call (`ToolResult.error`): no transport or server said so. */
  RECORDER_ERROR: 'recorder_error',
  REFUSED_HOST: McpTransportErrorCode.REFUSED_HOST,
  TRANSPORT_FAILURE: McpTransportErrorCode.TRANSPORT_FAILURE,
  HTTP_STATUS: McpTransportErrorCode.HTTP_STATUS,
  MALFORMED_RESPONSE: McpTransportErrorCode.MALFORMED_RESPONSE,
  JSON_RPC_ERROR: McpTransportErrorCode.JSON_RPC_ERROR,
  UNSUPPORTED_CONTENT_TYPE: McpTransportErrorCode.UNSUPPORTED_CONTENT_TYPE,
  MISSING_CREDENTIAL: McpTransportErrorCode.MISSING_CREDENTIAL,
  DEADLINE_EXHAUSTED: McpTransportErrorCode.DEADLINE_EXHAUSTED,
  TIMEOUT: McpTransportErrorCode.TIMEOUT,
} as const;

/**
 * One of the cause strings of {@link (ToolFailureCause:variable)}.
 *
 * @public
 */
export type ToolFailureCause = (typeof ToolFailureCause)[keyof typeof ToolFailureCause];

/**
 * Every failure cause, in declaration order.
 *
 * @public
 */
export const TOOL_FAILURE_CAUSES: readonly ToolFailureCause[] = Object.freeze(Object.values(ToolFailureCause));

const CAUSES: ReadonlySet<unknown> = new Set(TOOL_FAILURE_CAUSES);

/**
 * Tells whether a value is one of the failure cause strings.
 *
 * @public
 */
export function isToolFailureCause(value: unknown): value is ToolFailureCause {
  return CAUSES.has(value);
}
