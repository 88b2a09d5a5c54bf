import { keepShapeAlive } from './keepShapeAlive.js';
import { crossRealmBrand } from './crossRealmBrand.js';
import { clipRemoteText } from './clipRemoteText.js';

const BRAND = crossRealmBrand('@runledger/core/McpTransportException', () => McpTransportException);
const CONSTRUCT = Symbol('McpTransportException.construct');

/**
 * The stable code of each {@link McpTransportException} factory.
 *
 * @public
 */
export const McpTransportErrorCode = {
  REFUSED_HOST: 'mcp_refused_host',
  TRANSPORT_FAILURE: 'mcp_transport_failure',
  HTTP_STATUS: 'mcp_http_status',
  MALFORMED_RESPONSE: 'mcp_malformed_response',
  JSON_RPC_ERROR: 'mcp_json_rpc_error',
  UNSUPPORTED_CONTENT_TYPE: 'mcp_unsupported_content_type',
  MISSING_CREDENTIAL: 'mcp_missing_credential',
  DEADLINE_EXHAUSTED: 'mcp_deadline_exhausted',
  TIMEOUT: 'mcp_timeout',
  CANCELLED: 'mcp_cancelled',
} as const;

/**
 * One of the code strings of {@link (McpTransportErrorCode:variable)}.
 *
 * @public
 */
export type McpTransportErrorCode = (typeof McpTransportErrorCode)[keyof typeof McpTransportErrorCode];

/**
 * Options every {@link McpTransportException} factory accepts.
 *
 * @public
 */
export interface McpTransportExceptionOptions {
  /** The error that caused this one, kept as `cause`. */
  readonly cause?: unknown;
}

/**
 * A fault of the MCP transport, or a call our own side cancelled.
 *
 * @remarks
 * Made only through its named factories, one a fault; each sets a stable `code`, and the message
 * names the server and what happened (remote text clipped to 200 characters, control characters
 * collapsed). {@link McpTransportException.isCancellation} is true only for
 * {@link McpTransportException.forCancelledCall}: it reads a private flag, never the code. An
 * exhausted deadline or a timeout is a failure, never a cancellation. The class cannot be
 * subclassed. {@link McpTransportException.is} and `instanceof` recognise an exception made by
 * another copy of this package.
 *
 * @public
 */
export class McpTransportException extends Error {
  /** The stable code of the factory that made this exception. */
  readonly code: McpTransportErrorCode;
  /** The id of the MCP server the call went to. */
  readonly server: string;
  readonly #cancellation: boolean;

  private constructor(
    token: symbol,
    code: McpTransportErrorCode,
    server: string,
    message: string,
    cancellation: boolean,
    options: McpTransportExceptionOptions | undefined,
  ) {
    if (token !== CONSTRUCT || new.target !== McpTransportException) {
      throw new TypeError('McpTransportException is made through its factories and cannot be subclassed');
    }
    super(message, options !== undefined && 'cause' in options ? { cause: options.cause } : undefined);
    this.name = 'McpTransportException';
    this.code = code;
    this.server = server;
    this.#cancellation = cancellation;
    // What the exception means cannot be rewritten after it is made.
    Object.defineProperty(this, 'code', { writable: false, configurable: false });
    Object.defineProperty(this, 'server', { writable: false, configurable: false });
    BRAND.mark(this);
  }

  /** True only for an exception made by {@link McpTransportException.forCancelledCall}. */
  isCancellation(): boolean {
    return this.#cancellation;
  }

  /** Tells whether a value is an McpTransportException, also one made by another copy of this package. */
  static is(value: unknown): value is McpTransportException {
    return BRAND.is(value);
  }

  /**
   * Makes `instanceof McpTransportException` work like {@link McpTransportException.is}, also across copies of this package.
   *
   * @remarks
   * Only `McpTransportException` itself answers by the brand; `instanceof` a subclass is the ordinary
   * prototype-chain test, never true for an exception (no instance of a subclass can exist).
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return BRAND.hasInstance(this, value);
  }

  /** The configuration does not allow connecting to this host. */
  static forRefusedHost(server: string, host: string, options?: McpTransportExceptionOptions): McpTransportException {
    return McpTransportException.make('REFUSED_HOST', server, `refused to connect to host "${clipRemoteText(host)}"`, options);
  }

  /** The connection or the server process failed (refused, reset, closed, process exited). */
  static forTransportFailure(server: string, detail: string, options?: McpTransportExceptionOptions): McpTransportException {
    return McpTransportException.make('TRANSPORT_FAILURE', server, `transport failed: ${clipRemoteText(detail)}`, options);
  }

  /** The server answered with an HTTP status that is not a success. */
  static forHttpStatus(server: string, status: number, body?: string, options?: McpTransportExceptionOptions): McpTransportException {
    const tail = body === undefined || body.trim() === '' ? '' : `: ${clipRemoteText(body)}`;
    return McpTransportException.make('HTTP_STATUS', server, `answered with HTTP status ${status}${tail}`, options);
  }

  /** The server's answer could not be read as a valid MCP message. */
  static forMalformedResponse(server: string, detail: string, options?: McpTransportExceptionOptions): McpTransportException {
    return McpTransportException.make('MALFORMED_RESPONSE', server, `sent a malformed response: ${clipRemoteText(detail)}`, options);
  }

  /** The server answered with a JSON-RPC error instead of a result. */
  static forJsonRpcError(
    server: string,
    errorCode: number,
    remoteMessage: string,
    options?: McpTransportExceptionOptions,
  ): McpTransportException {
    return McpTransportException.make(
      'JSON_RPC_ERROR',
      server,
      `answered with JSON-RPC error ${errorCode}: ${clipRemoteText(remoteMessage)}`,
      options,
    );
  }

  /** The server answered with a content type MCP does not speak. */
  static forUnsupportedContentType(server: string, contentType: string, options?: McpTransportExceptionOptions): McpTransportException {
    return McpTransportException.make(
      'UNSUPPORTED_CONTENT_TYPE',
      server,
      `answered with unsupported content type "${clipRemoteText(contentType)}"`,
      options,
    );
  }

  /** The credential the configuration names is not set in the environment. */
  static forMissingCredential(server: string, variable: string, options?: McpTransportExceptionOptions): McpTransportException {
    return McpTransportException.make(
      'MISSING_CREDENTIAL',
      server,
      `needs a credential in the environment variable ${clipRemoteText(variable)}, which is not set`,
      options,
    );
  }

  /** The operation deadline was used up before the call could be sent or finished. */
  static forExhaustedDeadline(server: string, deadlineMs: number, options?: McpTransportExceptionOptions): McpTransportException {
    return McpTransportException.make('DEADLINE_EXHAUSTED', server, `used up its operation deadline of ${deadlineMs} ms`, options);
  }

  /** The server did not answer within the time allowed for the call. */
  static forTimeout(server: string, timeoutMs: number, options?: McpTransportExceptionOptions): McpTransportException {
    return McpTransportException.make('TIMEOUT', server, `did not answer within ${timeoutMs} ms`, options);
  }

  /** Our own side stopped waiting for the call: the run's signal was aborted. */
  static forCancelledCall(server: string, tool?: string, options?: McpTransportExceptionOptions): McpTransportException {
    const what = tool === undefined ? 'the call' : `the call of "${clipRemoteText(tool)}"`;
    return new McpTransportException(
      CONSTRUCT,
      McpTransportErrorCode.CANCELLED,
      server,
      `MCP server "${clipRemoteText(server)}": ${what} was cancelled by the caller; whether the server already acted on it is not known`,
      true,
      options,
    );
  }

  private static make(
    code: Exclude<keyof typeof McpTransportErrorCode, 'CANCELLED'>,
    server: string,
    what: string,
    options: McpTransportExceptionOptions | undefined,
  ): McpTransportException {
    return new McpTransportException(
      CONSTRUCT,
      McpTransportErrorCode[code],
      server,
      `MCP server "${clipRemoteText(server)}" ${what}`,
      false,
      options,
    );
  }
}

// See keepShapeAlive: every failed or cancelled call makes one.
keepShapeAlive(McpTransportException.forCancelledCall('shape', 'kept'));
