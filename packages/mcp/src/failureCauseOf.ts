import { McpTransportErrorCode, type McpTransportException, ToolFailureCause } from '@runledger/core';

/** JSON-RPC's "Invalid params": the server refused the arguments of the call. */
export const JSON_RPC_INVALID_PARAMS = -32602;

/**
 * The prefix the MCP SDK's McpServer gives its answer when the arguments fail the tool's input
 * schema: since spec 2025-11-25 (SEP-1303) it answers `isError: true` with this text instead of
 * the JSON-RPC error `-32602` that older servers send.
 */
export const INPUT_VALIDATION_PREFIX = 'Input validation error:';

/**
 * Why a call the server answered with `isError: true` failed: the caller's invalid arguments
 * when the answer is the SDK's input validation error, else the server's own error.
 *
 * @internal
 */
export function answeredFailureCause(content: string): ToolFailureCause {
  return content.startsWith(INPUT_VALIDATION_PREFIX) ? ToolFailureCause.INVALID_ARGUMENTS : ToolFailureCause.SERVER_ERROR;
}

/**
 * Why a call that ended in a transport exception failed: its stable code, except a JSON-RPC
 * `-32602` ("Invalid params"), which is the caller's invalid arguments.
 *
 * @internal
 */
export function transportFailureCause(exception: McpTransportException): ToolFailureCause {
  if (exception.code === McpTransportErrorCode.JSON_RPC_ERROR) {
    const rpcCode = (exception.cause as { code?: unknown } | undefined)?.code;
    if (rpcCode === JSON_RPC_INVALID_PARAMS) return ToolFailureCause.INVALID_ARGUMENTS;
  }
  // Every other code is a cause as it is; a cancellation never reaches here (it is not a failure).
  return exception.code === McpTransportErrorCode.CANCELLED ? ToolFailureCause.TRANSPORT_FAILURE : exception.code;
}
