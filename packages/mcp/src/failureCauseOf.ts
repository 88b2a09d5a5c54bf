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
 * The prefix of the McpServer's refusal of arguments with more elements than its
 * `maxToolInputElements` (followed by the tool name and `: arguments contain more than …`).
 */
export const TOO_MANY_ELEMENTS_PREFIX = 'Invalid arguments for tool ';

/**
 * The prefix the MCP SDK's McpServer gives its answer when the tool's own result fails the tool's
 * output schema: the server's fault, though the SDK sends it with the code `-32602` too.
 */
export const OUTPUT_VALIDATION_PREFIX = 'Output validation error:';

/**
 * What SDK 1.x puts before the message of every error it makes with the code `-32602` (its
 * McpError's message is `MCP error <code>: <message>`), in an `isError` text and in a JSON-RPC
 * error message alike; SDK 2.x sends the message alone.
 */
export const SDK1_INVALID_PARAMS_PREFIX = `MCP error ${JSON_RPC_INVALID_PARAMS}: `;

/** The message without SDK 1.x's `MCP error -32602: ` prefix, when it has one. */
function sdkMessage(text: string): string {
  return text.startsWith(SDK1_INVALID_PARAMS_PREFIX) ? text.slice(SDK1_INVALID_PARAMS_PREFIX.length) : text;
}

/**
 * Tells whether an error text is an MCP SDK server's refusal of the call's arguments: the input
 * schema's `Input validation error: …`, or `Invalid arguments for tool …` (too many elements),
 * each as SDK 2.x sends it or with SDK 1.x's `MCP error -32602: ` before it.
 *
 * @internal
 */
export function isArgumentRefusal(text: string): boolean {
  const message = sdkMessage(text);
  return message.startsWith(INPUT_VALIDATION_PREFIX) || message.startsWith(TOO_MANY_ELEMENTS_PREFIX);
}

/**
 * Why a call the server answered with `isError: true` failed: the caller's invalid arguments
 * when the answer is an SDK's refusal of the arguments ({@link isArgumentRefusal}), else the
 * server's own error.
 *
 * @internal
 */
export function answeredFailureCause(content: string): ToolFailureCause {
  return isArgumentRefusal(content) ? ToolFailureCause.INVALID_ARGUMENTS : ToolFailureCause.SERVER_ERROR;
}

/**
 * Why a call that ended in a transport exception failed: its stable code, except a JSON-RPC
 * `-32602` ("Invalid params"), which is the caller's invalid arguments — unless its message is the
 * SDK's output validation error, the server breaking its own output schema.
 *
 * @internal
 */
export function transportFailureCause(exception: McpTransportException): ToolFailureCause {
  if (exception.code === McpTransportErrorCode.JSON_RPC_ERROR) {
    const rpc = exception.cause as { code?: unknown; message?: unknown } | undefined;
    if (rpc?.code === JSON_RPC_INVALID_PARAMS) {
      const message = typeof rpc.message === 'string' ? sdkMessage(rpc.message) : '';
      if (!message.startsWith(OUTPUT_VALIDATION_PREFIX)) return ToolFailureCause.INVALID_ARGUMENTS;
    }
  }
  // Every other code is a cause as it is; a cancellation never reaches here (it is not a failure).
  return exception.code === McpTransportErrorCode.CANCELLED ? ToolFailureCause.TRANSPORT_FAILURE : exception.code;
}
