import {
  isToolErrorClass,
  McpTransportErrorCode,
  type McpTransportException,
  ToolFailureCause,
  type ToolFailureFacts,
} from '@runledger/core';
import { errorCode } from './describeError.js';
import { LocalRequestFailure } from './LocalRequestFailure.js';

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

/**
 * The MCP SDKs' answer to a call of a tool the server does not have (or has disabled), 1.x and 2.x
 * alike: `Tool <name> not found` / `Tool <name> disabled`, sent with the code `-32602` (SDK 2.x: as
 * a JSON-RPC error; SDK 1.x: as an `isError` text with its `MCP error -32602: ` prefix).
 */
export const TOOL_NOT_FOUND_PATTERN = /^Tool [^\n]* (?:not found|disabled)$/;

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
 * Tells whether an error text is an MCP SDK server's answer that it has no tool of that name (or
 * has it disabled): `Tool <name> not found` / `Tool <name> disabled`, as SDK 2.x sends it or with
 * SDK 1.x's `MCP error -32602: ` before it.
 *
 * @internal
 */
export function isToolNotFound(text: string): boolean {
  return TOOL_NOT_FOUND_PATTERN.test(sdkMessage(text));
}

/**
 * Why a call the server answered with `isError: true` failed: the caller's invalid arguments
 * when the answer is an SDK's refusal of the arguments ({@link isArgumentRefusal}), a tool the
 * server does not have when it says so with SDK 1.x's `-32602` prefix ({@link isToolNotFound}; a
 * tool's own error text without that prefix stays the server's), else the server's own error.
 *
 * @internal
 */
export function answeredFailureCause(content: string): ToolFailureCause {
  if (isArgumentRefusal(content)) return ToolFailureCause.INVALID_ARGUMENTS;
  if (content.startsWith(SDK1_INVALID_PARAMS_PREFIX) && isToolNotFound(content)) return ToolFailureCause.TOOL_NOT_FOUND;
  return ToolFailureCause.SERVER_ERROR;
}

/**
 * Why a call that ended in a transport exception failed: its stable code, except a JSON-RPC
 * `-32602` ("Invalid params"), which is a tool the server does not have when its message says so
 * ({@link isToolNotFound}), else the caller's invalid arguments — unless its message is the SDK's
 * output validation error, the server breaking its own output schema.
 *
 * @internal
 */
export function transportFailureCause(exception: McpTransportException): ToolFailureCause {
  if (exception.code === McpTransportErrorCode.JSON_RPC_ERROR) {
    const rpc = exception.cause as { code?: unknown; message?: unknown } | undefined;
    if (rpc?.code === JSON_RPC_INVALID_PARAMS) {
      const message = typeof rpc.message === 'string' ? sdkMessage(rpc.message) : '';
      if (TOOL_NOT_FOUND_PATTERN.test(message)) return ToolFailureCause.TOOL_NOT_FOUND;
      if (!message.startsWith(OUTPUT_VALIDATION_PREFIX)) return ToolFailureCause.INVALID_ARGUMENTS;
    }
  }
  // Every other code is a cause as it is; a cancellation never reaches here (it is not a failure).
  return exception.code === McpTransportErrorCode.CANCELLED ? ToolFailureCause.TRANSPORT_FAILURE : exception.code;
}

/**
 * What the transport knew about a call that ended in a transport exception, as metadata: the HTTP
 * status the server answered, the JSON-RPC error code it answered, or the class of the error that
 * broke the connection or the answer (a system code such as `ECONNRESET`, the MCP SDK's code such
 * as `CONNECTION_CLOSED`, else the error's class name). Read from the exception's `cause`, which
 * `toTransportException` always sets to what the SDK rejected with; `undefined` when nothing is
 * known (a timeout, an exhausted deadline: the cause says all).
 *
 * @internal
 */
export function transportFailureFacts(exception: McpTransportException): ToolFailureFacts | undefined {
  const cause = exception.cause as { code?: unknown; data?: unknown } | undefined;
  switch (exception.code) {
    case McpTransportErrorCode.HTTP_STATUS: {
      const status = (cause?.data as { status?: unknown } | undefined)?.status;
      return typeof status === 'number' && Number.isInteger(status) && status >= 100 && status <= 599 ? { httpStatus: status } : undefined;
    }
    case McpTransportErrorCode.JSON_RPC_ERROR:
      return typeof cause?.code === 'number' && Number.isSafeInteger(cause.code) ? { jsonRpcCode: cause.code } : undefined;
    case McpTransportErrorCode.TRANSPORT_FAILURE:
    case McpTransportErrorCode.MALFORMED_RESPONSE: {
      const errorClass = errorClassOf(exception.cause);
      return errorClass === undefined ? undefined : { errorClass };
    }
    default:
      return undefined;
  }
}

/** A system or SDK error code on the error or its causes, else the error's own class name when it is not plain `Error`. */
function errorClassOf(error: unknown): string | undefined {
  const code = errorCode(error);
  if (isToolErrorClass(code)) return code;
  const local = LocalRequestFailure.in(error);
  if (local !== undefined) return local.kind === 'too-large' ? 'AnswerTooLarge' : 'StreamClosed';
  if (error instanceof Error && error.name !== 'Error' && isToolErrorClass(error.name)) return error.name;
  return undefined;
}
