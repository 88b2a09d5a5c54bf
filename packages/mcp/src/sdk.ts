// The ONE module that talks to the MCP TypeScript SDK (with trackedHttpTransport.ts, its HTTP
// transport). Everything else in this package sees only the small shapes declared here
// (McpConnection, WireTool, WireAnswer), so a switch of SDK — or of its major version — touches
// these two files alone. No SDK type leaves them.
import {
  Client,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  type Transport,
  deserializeMessage,
} from '@modelcontextprotocol/client';
import { getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import { McpTransportException } from '@runledger/core';
import { describeError, errorCode } from './describeError.js';
import { DEFAULT_MAX_ANSWER_BYTES, LocalRequestFailure } from './LocalRequestFailure.js';
import { trackedHttpTransport } from './trackedHttpTransport.js';
import { isLostRequest, lostOnEverySend, MAX_LOST_REQUEST_REISSUES } from './lostRequest.js';
import { RequestSends, type WireRequestId } from './RequestSends.js';
import { StdioProcessTransport } from './StdioProcessTransport.js';
import type { McpServerConfig } from './McpServerConfig.js';
import { McpTransportType } from './McpTransportType.js';

/** The behaviour hints of a tool as a server lists them: each a boolean the server gave, or undefined. */
export interface WireToolAnnotations {
  readonly readOnlyHint: boolean | undefined;
  readonly destructiveHint: boolean | undefined;
  readonly idempotentHint: boolean | undefined;
  readonly openWorldHint: boolean | undefined;
}

/** A tool as a server lists it. */
export interface WireTool {
  readonly name: string;
  readonly title: string | undefined;
  readonly description: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  readonly annotations: WireToolAnnotations;
}

/** One content block of a tool answer, as far as this package reads it. */
export interface WireContentBlock {
  readonly type: string;
  readonly text?: unknown;
  readonly mimeType?: unknown;
  readonly uri?: unknown;
  readonly name?: unknown;
  readonly resource?: { readonly uri?: unknown; readonly mimeType?: unknown };
}

/**
 * A tool answer: the server answered the call (with or without `isError`). The SDK's own result
 * object, read as loosely as this: the one reader, toolResultFromAnswer, checks each field.
 */
export interface WireAnswer {
  /** The content blocks; anything but an array counts as none. */
  readonly content?: unknown;
  /** Only `true` makes the answer an error. */
  readonly isError?: unknown;
  /** `undefined` when the answer has none. */
  readonly structuredContent?: unknown;
}

/** Options of one request on a connection. */
export interface WireRequestOptions {
  /** Aborting it stops waiting; the rejection is `signal.reason` itself (see newAbortReason). */
  readonly signal?: AbortSignal | undefined;
  /** The most milliseconds to wait for the answer; then it rejects with a timeout. */
  readonly timeoutMs: number;
}

/** Options of one tools/call: a request's, and what tracing adds. */
export interface WireCallOptions extends WireRequestOptions {
  /** Entries for the request's `params._meta` (the trace context). */
  readonly meta?: Readonly<Record<string, string>> | undefined;
  /** Hears the JSON-RPC id of the request when it is sent. */
  readonly onSent?: ((id: WireRequestId) => void) | undefined;
  /**
   * True when a request lost on a broken stream may be sent again (2026-07-28 over Streamable
   * HTTP): only for a tool that cannot change anything twice, as trusted annotations say.
   */
  readonly resendLost?: boolean | undefined;
}

/** A live session with one MCP server. */
export interface McpConnection {
  /** True once the connection is closed (by us, by the server, or because the process died). */
  readonly closed: boolean;
  /** The child process id of a stdio connection, else null. */
  readonly pid: number | null;
  /** The HTTP session id the server gave (`Mcp-Session-Id`), else undefined. */
  readonly sessionId: string | undefined;
  /**
   * The MCP protocol revision in use: agreed by `server/discover` (2026-07-28 and later, stateless)
   * or by the `initialize` handshake (older revisions).
   */
  readonly protocolVersion: string | undefined;
  /** Lists every tool, walking at most `maxPages` pages. */
  listTools(options: WireRequestOptions): Promise<WireTool[]>;
  /**
   * Calls a tool and settles with what `answered` makes of the server's answer, or with what
   * `faulted` makes of anything else (a transport fault, a timeout, an abort, a protocol error).
   *
   * @remarks
   * The handlers are run on the SDK's own promise: one promise per call on the hot path. What a
   * handler throws rejects the returned promise; the caller's handlers do not throw.
   *
   * A request is written towards the server at most once per send, and sent again only when
   * `options.resendLost` says the tool may run twice and the connection's revision loses a request
   * with its broken stream (2026-07-28 and later, over Streamable HTTP): then a lost request is
   * sent again under a new id, at most {@link MAX_LOST_REQUEST_REISSUES} times and within
   * `timeoutMs` in all: still one call, whose handlers run once, with how its last send ended.
   * Each handler hears how many times the request was written towards the server (`0`: it never
   * left).
   */
  callTool<T>(
    name: string,
    args: Readonly<Record<string, unknown>>,
    options: WireCallOptions,
    answered: (answer: WireAnswer, sends: number) => T,
    faulted: (error: unknown, sends: number) => T,
  ): Promise<T>;
  /** Closes the transport and, for stdio, ends the child process. Never rejects. */
  close(): Promise<void>;
}

/** Makes the SDK transport for a server in place of the configured one (tests, in-memory). */
export type TransportFactory = (config: McpServerConfig) => unknown;

/** Options of {@link openConnection}. */
export interface OpenConnectionOptions {
  /** Where a bearer token named by the configuration is read from. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The most pages a tool listing may take before it is refused. */
  readonly maxListPages: number;
  /** Bounds the handshake; aborting it abandons the connect. */
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  readonly transportFactory?: TransportFactory | undefined;
  /** The largest answer accepted, in bytes; a larger one fails its call only. Default 10 MiB. */
  readonly maxAnswerBytes?: number | undefined;
}

const CLIENT_INFO = { name: 'runledger', version: '0.1.0' };
const STDERR_TAIL_BYTES = 2048;

/**
 * Makes the object to abort a request with so that the SDK rejects with that very object.
 *
 * @remarks
 * The v2 client rejects an aborted request with `signal.reason` only when the reason is an
 * instance of its own `SdkError`; any other reason is replaced by a new `REQUEST_TIMEOUT` error,
 * the same code as a real timeout (typescript-sdk issue 2165). A fresh instance per purpose lets
 * the caller tell its own abort from everything else by identity alone.
 */
export function newAbortReason(message: string): Error {
  return new SdkError(SdkErrorCode.RequestTimeout, message);
}

/** True when a listing failed because the server's pagination went past the page limit. */
export function isListPageLimit(error: unknown): boolean {
  return error instanceof SdkError && error.code === SdkErrorCode.ListPaginationExceeded;
}

/**
 * Opens a connection to a server: starts the transport and runs the MCP handshake.
 *
 * @throws McpTransportException for a missing credential; anything else the SDK or the transport
 * throws is passed on for {@link toTransportException}.
 */
export async function openConnection(config: McpServerConfig, options: OpenConnectionOptions): Promise<McpConnection> {
  // 'auto': a `server/discover` probe first; a server of 2026-07-28 (stateless) answers it, one of
  // an older revision refuses it (or, over stdio, stays silent) and gets the `initialize` handshake.
  const client = new Client(CLIENT_INFO, { listMaxPages: options.maxListPages, versionNegotiation: { mode: 'auto' } });
  const state: ConnectionState = { closed: false, lastError: undefined, stderrTail: '' };
  const transport = makeTransport(config, options, state);
  client.onclose = () => {
    state.closed = true;
  };
  client.onerror = (error: Error) => {
    state.lastError = error;
    // The HTTP transport keeps a request waiting while it retries its event stream, even when the
    // server is gone. A refused reconnect, or giving up on it, means the session is dead: close it
    // so that the calls in flight fail now instead of at their deadline.
    if (config.transport.type === McpTransportType.HTTP && isFatalHttpError(error)) {
      void client.close().catch(() => undefined);
    }
  };
  try {
    await client.connect(transport, { signal: options.signal, timeout: options.timeoutMs });
  } catch (error) {
    await client.close().catch(() => undefined);
    // A connect cut short by a transport error rejects with "connection closed"; the transport's
    // own error says why.
    const closedEarly = error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed;
    throw closedEarly && state.lastError !== undefined ? state.lastError : error;
  }
  return new SdkConnection(client, transport, state);
}

interface ConnectionState {
  closed: boolean;
  lastError: Error | undefined;
  stderrTail: string;
}

class SdkConnection implements McpConnection {
  readonly #client: Client;
  readonly #transport: Transport;
  readonly #state: ConnectionState;
  /** What each call's requests were sent and written as. */
  readonly #sends: RequestSends;
  /**
   * Whether a request lost on its broken stream is sent again: 2026-07-28 and later over a transport
   * with one stream per request (Streamable HTTP). Over stdio nothing is lost that way; under older
   * revisions the server may still be running a request whose stream broke.
   */
  readonly #reissuesLost: boolean;

  constructor(client: Client, transport: Transport, state: ConnectionState) {
    this.#client = client;
    this.#transport = transport;
    this.#state = state;
    this.#reissuesLost = client.getProtocolEra() === 'modern' && transport.hasPerRequestStream === true;
    this.#sends = RequestSends.on(transport);
  }

  get closed(): boolean {
    return this.#state.closed;
  }

  get pid(): number | null {
    return this.#transport instanceof StdioProcessTransport ? this.#transport.pid : null;
  }

  get sessionId(): string | undefined {
    return this.#transport.sessionId;
  }

  get protocolVersion(): string | undefined {
    return this.#client.getNegotiatedProtocolVersion();
  }

  /** What the transport last said went wrong, for the message of a failure. */
  get evidence(): string {
    const parts: string[] = [];
    if (this.#state.lastError !== undefined) parts.push(describeError(this.#state.lastError));
    const stderr = lastLines(this.#state.stderrTail);
    if (stderr !== '') parts.push(`server stderr: ${stderr}`);
    return parts.join('; ');
  }

  async listTools(options: WireRequestOptions): Promise<WireTool[]> {
    const result = await this.#client.listTools(undefined, {
      ...(options.signal !== undefined && { signal: options.signal }),
      timeout: options.timeoutMs,
      cacheMode: 'refresh',
    });
    return result.tools.map((tool) => ({
      name: tool.name,
      title: typeof tool.title === 'string' ? tool.title : undefined,
      description: typeof tool.description === 'string' ? tool.description : '',
      inputSchema: tool.inputSchema as Readonly<Record<string, unknown>>,
      annotations: wireAnnotations(tool.annotations),
    }));
  }

  callTool<T>(
    name: string,
    args: Readonly<Record<string, unknown>>,
    options: WireCallOptions,
    answered: (answer: WireAnswer, sends: number) => T,
    faulted: (error: unknown, sends: number) => T,
  ): Promise<T> {
    // The call sends its own copy of the arguments: the key that tells it of its requests' sends.
    const sentArgs = { ...args };
    const written = { count: 0 };
    this.#sends.watch(sentArgs, {
      sent: options.onSent,
      written: () => {
        written.count++;
      },
    });
    const params = { name, arguments: sentArgs, ...(options.meta !== undefined && { _meta: { ...options.meta } }) };
    const signal = options.signal;
    const send = (timeoutMs: number) =>
      this.#client.callTool(params, signal === undefined ? { timeout: timeoutMs } : { signal, timeout: timeoutMs });
    // The arguments are forgotten as the call settles, in its own handlers: no promise of its own
    // (a `.finally` was one more promise and one more turn per call, on the cancel path too).
    const sends = this.#sends;
    if (this.#reissuesLost && options.resendLost === true) {
      return this.#callReissuingLost(
        send,
        options.timeoutMs,
        signal,
        written,
        (answer, count) => {
          sends.forget(sentArgs);
          return answered(answer, count);
        },
        (error, count) => {
          sends.forget(sentArgs);
          return faulted(error, count);
        },
      );
    }
    return send(options.timeoutMs).then(
      (answer) => {
        sends.forget(sentArgs);
        return answered(answer, written.count);
      },
      (error: unknown) => {
        sends.forget(sentArgs);
        return faulted(error, written.count);
      },
    );
  }

  /**
   * Sends the call, and again under a new id (the client numbers each send) while its request is
   * lost, as long as it was written fewer than 1 + {@link MAX_LOST_REQUEST_REISSUES} times.
   */
  #callReissuingLost<T>(
    send: (timeoutMs: number) => Promise<Awaited<ReturnType<Client['callTool']>>>,
    timeoutMs: number,
    signal: AbortSignal | undefined,
    written: { readonly count: number },
    answered: (answer: WireAnswer, sends: number) => T,
    faulted: (error: unknown, sends: number) => T,
  ): Promise<T> {
    const startedAt = performance.now();
    const attempt = (tries: number, budgetMs: number): Promise<T> =>
      send(budgetMs).then(
        (answer) => answered(answer, written.count),
        (error: unknown) => {
          const sends = written.count;
          if (!isLostRequest(error) || signal?.aborted === true || this.#state.closed) return faulted(error, sends);
          const remainingMs = timeoutMs - (performance.now() - startedAt);
          if (tries > MAX_LOST_REQUEST_REISSUES || sends > MAX_LOST_REQUEST_REISSUES || remainingMs < 1) {
            return faulted(sends <= 1 ? error : lostOnEverySend(error, sends), sends);
          }
          return attempt(tries + 1, remainingMs);
        },
      );
    return attempt(1, timeoutMs);
  }

  async close(): Promise<void> {
    this.#state.closed = true;
    await this.#client.close().catch(() => undefined);
  }
}

/** The four hints of a listed tool's `annotations`, each kept only when the server gave a boolean. */
function wireAnnotations(given: unknown): WireToolAnnotations {
  const a = typeof given === 'object' && given !== null ? (given as Record<string, unknown>) : {};
  const hint = (key: string) => (typeof a[key] === 'boolean' ? (a[key] as boolean) : undefined);
  return {
    readOnlyHint: hint('readOnlyHint'),
    destructiveHint: hint('destructiveHint'),
    idempotentHint: hint('idempotentHint'),
    openWorldHint: hint('openWorldHint'),
  };
}

function makeTransport(config: McpServerConfig, options: OpenConnectionOptions, state: ConnectionState): Transport {
  if (options.transportFactory !== undefined) {
    return options.transportFactory(config) as Transport;
  }
  const t = config.transport;
  const maxAnswerBytes = options.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES;
  if (t.type === McpTransportType.STDIO) {
    const transport = new StdioProcessTransport({
      command: t.command,
      args: t.args,
      env: { ...getDefaultEnvironment(), ...t.env },
      cwd: t.cwd,
      maxMessageBytes: maxAnswerBytes,
      parse: deserializeMessage,
      onStderr: (chunk) => {
        state.stderrTail = (state.stderrTail + chunk).slice(-STDERR_TAIL_BYTES);
      },
    });
    return transport as unknown as Transport;
  }
  const headers: Record<string, string> = { ...t.headers };
  if (t.bearerTokenEnv !== undefined) {
    const token = options.env[t.bearerTokenEnv];
    if (token === undefined || token === '') {
      throw McpTransportException.forMissingCredential(config.id, t.bearerTokenEnv);
    }
    headers.Authorization = `Bearer ${token}`;
  }
  return trackedHttpTransport(new URL(t.url), headers, maxAnswerBytes, state, config.deadlineMs);
}

function isFatalHttpError(error: Error): boolean {
  if (/^Maximum reconnection attempts/.test(error.message)) return true;
  const code = errorCode(error);
  return code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EHOSTUNREACH';
}

/**
 * Turns whatever a connect, a listing or a call rejected with into the matching
 * McpTransportException. Never used for our own abort reasons: the caller compares those by
 * identity first.
 */
export function toTransportException(
  server: string,
  error: unknown,
  context: { readonly deadlineMs: number; readonly connection?: McpConnection | undefined },
): McpTransportException {
  if (McpTransportException.is(error)) return error;
  const cause = { cause: error };
  const evidence = context.connection instanceof SdkConnection ? context.connection.evidence : '';
  const withEvidence = (detail: string) => (evidence === '' ? detail : `${detail} (${evidence})`);
  const local = LocalRequestFailure.in(error);
  if (local !== undefined) {
    // Its detail already carries what the transport said; the size is the whole story of a big answer.
    return local.kind === 'too-large'
      ? McpTransportException.forMalformedResponse(server, local.detail, cause)
      : McpTransportException.forTransportFailure(server, local.detail, cause);
  }
  if (error instanceof SdkHttpError) {
    const data = (error.data ?? {}) as { status?: unknown; text?: unknown };
    if (typeof data.status === 'number') {
      return McpTransportException.forHttpStatus(server, data.status, typeof data.text === 'string' ? data.text : undefined, cause);
    }
  }
  if (error instanceof SdkError && error.code === SdkErrorCode.EraNegotiationFailed && error.cause !== undefined) {
    // The `server/discover` probe met the fault the handshake would have met: read that fault.
    return toTransportException(server, error.cause, context);
  }
  if (error instanceof SdkError) {
    switch (error.code) {
      case SdkErrorCode.RequestTimeout:
        return McpTransportException.forTimeout(server, context.deadlineMs, cause);
      case SdkErrorCode.InvalidResult:
        return McpTransportException.forMalformedResponse(server, error.message, cause);
      case SdkErrorCode.ClientHttpUnexpectedContent: {
        const data = (error.data ?? {}) as { contentType?: unknown };
        return McpTransportException.forUnsupportedContentType(
          server,
          typeof data.contentType === 'string' ? data.contentType : 'unknown',
          cause,
        );
      }
      case SdkErrorCode.ConnectionClosed:
        return McpTransportException.forTransportFailure(server, withEvidence('the connection closed before the server answered'), cause);
      case SdkErrorCode.NotConnected:
      case SdkErrorCode.SendFailed:
        return McpTransportException.forTransportFailure(server, withEvidence(error.message), cause);
      default:
        return McpTransportException.forTransportFailure(server, withEvidence(`${error.code}: ${error.message}`), cause);
    }
  }
  if (error instanceof ProtocolError) {
    return McpTransportException.forJsonRpcError(server, error.code, error.message, cause);
  }
  if (error instanceof SyntaxError) {
    return McpTransportException.forMalformedResponse(server, error.message, cause);
  }
  return McpTransportException.forTransportFailure(server, withEvidence(describeError(error)), cause);
}

function lastLines(text: string): string {
  return text.trim().split(/\r?\n/).slice(-3).join(' | ');
}
