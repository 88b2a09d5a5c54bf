// The OpenTelemetry instrumentation of tool calls, after the semantic conventions for MCP
// (development status, attribute names of @opentelemetry/semantic-conventions 1.45.0, a pinned
// devDependency whose constants the build inlines). Only this module and McpTracingOptions know
// OpenTelemetry; @opentelemetry/api is imported here alone, at run time only when tracing is on.
import type * as OtelApi from '@opentelemetry/api';
import type { Attributes, Span, Tracer } from '@opentelemetry/api';
import { McpTransportErrorCode, type McpTransportException, ToolOutcome, type ToolResult } from '@runledger/core';
import { claimToolSpan } from '@runledger/core/internal';
import {
  ATTR_ERROR_TYPE,
  ATTR_NETWORK_PROTOCOL_NAME,
  ATTR_NETWORK_TRANSPORT,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ERROR_TYPE_VALUE_OTHER,
  NETWORK_TRANSPORT_VALUE_PIPE,
  NETWORK_TRANSPORT_VALUE_TCP,
} from '@opentelemetry/semantic-conventions';
import {
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_TOOL_TYPE,
  ATTR_JSONRPC_REQUEST_ID,
  ATTR_MCP_METHOD_NAME,
  ATTR_MCP_PROTOCOL_VERSION,
  ATTR_MCP_SESSION_ID,
  ATTR_RPC_RESPONSE_STATUS_CODE,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
  MCP_METHOD_NAME_VALUE_TOOLS_CALL,
  MCP_METHOD_NAME_VALUE_TOOLS_LIST,
} from '@opentelemetry/semantic-conventions/incubating';
import type { McpServerConfig } from './McpServerConfig.js';
import type { McpTracingOptions } from './McpTracingOptions.js';
import { McpTransportType } from './McpTransportType.js';
import type { WireRequestId } from './RequestSends.js';

/** How every tool call ended: `ok`, `failed` or `cancelled` (runledger's own attribute). */
export const ATTR_RUNLEDGER_TOOL_OUTCOME = 'runledger.tool.outcome';
/** The id of the configured server (runledger's own attribute). */
export const ATTR_RUNLEDGER_TOOL_SERVER = 'runledger.tool.server';
/** `gen_ai.tool.type` of an MCP server's tool: called by the agent on an external server. */
export const GEN_AI_TOOL_TYPE_EXTENSION = 'extension';
/** The tracer name of this package. */
export const TRACER_NAME = '@runledger/mcp';

/** What a traced call learns of its connection: McpConnection's part that tracing reads. */
export interface TracedConnection {
  readonly sessionId: string | undefined;
  readonly protocolVersion: string | undefined;
}

/**
 * Makes the spans of a registry's tool calls.
 *
 * @internal
 */
export class McpCallTracing {
  readonly #api: typeof OtelApi;
  readonly #tracer: Tracer;
  readonly #propagate: boolean;

  private constructor(api: typeof OtelApi, tracer: Tracer, propagate: boolean) {
    this.#api = api;
    this.#tracer = tracer;
    this.#propagate = propagate;
  }

  /** Loads @opentelemetry/api and gets the tracer; the options are already checked. */
  static async load(options: McpTracingOptions): Promise<McpCallTracing> {
    const api = await import('@opentelemetry/api');
    const tracer = options.tracer ?? options.tracerProvider?.getTracer(TRACER_NAME);
    if (tracer === undefined) throw new TypeError('tracing needs a tracer or a tracerProvider');
    return new McpCallTracing(api, tracer, options.propagateContext === true);
  }

  /** The tracer of one tool's calls: `name` is its local name, `remoteName` its name on the server. */
  forTool(config: McpServerConfig, remoteName: string, name: string): ToolTracer {
    return new ToolTracer(this.#api, this.#tracer, this.#propagate, remoteName, config.id, name, toolAttributes(config, name));
  }

  /**
   * Runs one listing of a server's tools (all its pages) inside a `tools/list` span, a child of the
   * active context; `errorType` names the class of what the listing rejects with.
   */
  async traceListing<T>(
    config: McpServerConfig,
    run: (listing: TracedListing | undefined) => Promise<T>,
    errorType: (error: unknown) => string,
  ): Promise<T> {
    let listing: TracedListing;
    try {
      const api = this.#api;
      const attributes = { ...serverAttributes(config), [ATTR_MCP_METHOD_NAME]: MCP_METHOD_NAME_VALUE_TOOLS_LIST };
      const span = this.#tracer.startSpan(
        MCP_METHOD_NAME_VALUE_TOOLS_LIST,
        { kind: api.SpanKind.CLIENT, attributes },
        api.context.active(),
      );
      listing = new TracedListing(api, span);
    } catch {
      return run(undefined);
    }
    try {
      const result = await run(listing);
      listing.end(undefined);
      return result;
    } catch (error) {
      listing.end(errorType(error));
      throw error;
    }
  }
}

/**
 * Makes the span of each call of one tool.
 *
 * @internal
 */
export class ToolTracer {
  readonly #api: typeof OtelApi;
  readonly #tracer: Tracer;
  readonly #propagate: boolean;
  readonly #spanName: string;
  readonly #server: string;
  readonly #name: string;
  readonly #attributes: Attributes;
  /** The options of every span this tracer starts: made once, not per call. */
  readonly #spanOptions: OtelApi.SpanOptions;

  constructor(
    api: typeof OtelApi,
    tracer: Tracer,
    propagate: boolean,
    remoteName: string,
    server: string,
    name: string,
    attributes: Attributes,
  ) {
    this.#api = api;
    this.#tracer = tracer;
    this.#propagate = propagate;
    this.#spanName = `${MCP_METHOD_NAME_VALUE_TOOLS_CALL} ${remoteName}`;
    this.#server = server;
    this.#name = name;
    this.#attributes = attributes;
    this.#spanOptions = Object.freeze({ kind: api.SpanKind.CLIENT, attributes });
  }

  /**
   * Starts the span of one call: the `execute_tool` span live export (`@runledger/otel`) offers
   * for the call when there is one (the MCP attributes join it; the export ends it with the
   * recorded outcome), else a CLIENT span of its own, a child of the active context. The caller
   * ends it with {@link TracedCall.end} where the call's result is made: no promise of its own per
   * call. A fault of the tracing itself gives undefined: the call runs untraced; it never changes
   * the result.
   */
  start(toolCallId?: string): TracedCall | undefined {
    const api = this.#api;
    let parent: OtelApi.Context;
    let span: Span;
    let owned = true;
    try {
      parent = api.context.active();
      const offered = claimToolSpan(this.#server, this.#name, toolCallId) as Span | undefined;
      if (offered === undefined) {
        span = this.#tracer.startSpan(this.#spanName, this.#spanOptions, parent);
      } else {
        span = offered;
        owned = false;
        span.setAttributes(this.#attributes);
      }
    } catch {
      return undefined;
    }
    let meta: Record<string, string> | undefined;
    if (this.#propagate) {
      try {
        const carrier: Record<string, string> = {};
        api.propagation.inject(api.trace.setSpan(parent, span), carrier);
        // No propagator configured writes nothing: then the request carries no _meta either.
        for (const _ in carrier) {
          meta = carrier;
          break;
        }
      } catch {
        // Tracing is an observer only: the request goes without the context.
      }
    }
    return new TracedCall(api, span, meta, owned);
  }
}

/** A failing span (a broken SDK, exporter or processor) never changes the call it describes. */
function guard(action: () => void): void {
  try {
    action();
  } catch {
    // Tracing is an observer only.
  }
}

/** Records what a request knows of the connection it is sent on. */
function recordConnection(span: Span, connection: TracedConnection): void {
  // Inline try/catch, not guard(): the per-call path allocates no closure for it.
  try {
    const { sessionId, protocolVersion } = connection;
    if (sessionId !== undefined) span.setAttribute(ATTR_MCP_SESSION_ID, sessionId);
    if (protocolVersion !== undefined) span.setAttribute(ATTR_MCP_PROTOCOL_VERSION, protocolVersion);
  } catch {
    // Tracing is an observer only.
  }
}

/**
 * The span of one listing of a server's tools.
 *
 * @internal
 */
export class TracedListing {
  readonly #api: typeof OtelApi;
  readonly #span: Span;

  constructor(api: typeof OtelApi, span: Span) {
    this.#api = api;
    this.#span = span;
  }

  connected(connection: TracedConnection): void {
    recordConnection(this.#span, connection);
  }

  /** Ends the span: ERROR with `error.type` when the listing failed. */
  end(errorType: string | undefined): void {
    if (errorType !== undefined) {
      guard(() => {
        this.#span.setAttribute(ATTR_ERROR_TYPE, errorType);
        this.#span.setStatus({ code: this.#api.SpanStatusCode.ERROR });
      });
    }
    guard(() => this.#span.end());
  }
}

/**
 * The span of one call, as the call goes.
 *
 * @internal
 */
export class TracedCall {
  /** Entries for the request's `params._meta`, when the context is propagated. */
  readonly meta: Readonly<Record<string, string>> | undefined;
  readonly #api: typeof OtelApi;
  readonly #span: Span;
  /** False for a span live export offered: it sets the status and ends it. */
  readonly #owned: boolean;

  constructor(api: typeof OtelApi, span: Span, meta: Readonly<Record<string, string>> | undefined, owned = true) {
    this.#api = api;
    this.#span = span;
    this.meta = meta;
    this.#owned = owned;
  }

  /** Records the JSON-RPC id the request went out with. */
  readonly onSent = (id: WireRequestId): void => {
    try {
      this.#span.setAttribute(ATTR_JSONRPC_REQUEST_ID, String(id));
    } catch {
      // Tracing is an observer only.
    }
  };

  /** Records what the call knows of the connection it is sent on. */
  connected(connection: TracedConnection): void {
    recordConnection(this.#span, connection);
  }

  /** Records the JSON-RPC error code of a call the server answered with an error. */
  faulted(exception: McpTransportException): void {
    if (exception.code !== McpTransportErrorCode.JSON_RPC_ERROR) return;
    const rpcCode = (exception.cause as { code?: unknown } | undefined)?.code;
    if (typeof rpcCode === 'number') guard(() => this.#span.setAttribute(ATTR_RPC_RESPONSE_STATUS_CODE, String(rpcCode)));
  }

  /**
   * Ends the span with the call's outcome: only `failed` is an error, `cancelled` is not. A span
   * live export offered is left to it: it ends it with the outcome the store recorded. Returns the
   * result, for the caller's `return`.
   */
  end(result: ToolResult): ToolResult {
    if (!this.#owned) return result;
    const span = this.#span;
    try {
      span.setAttribute(ATTR_RUNLEDGER_TOOL_OUTCOME, result.outcome);
      if (result.outcome === ToolOutcome.FAILED) {
        span.setAttribute(ATTR_ERROR_TYPE, result.failureCause ?? ERROR_TYPE_VALUE_OTHER);
        span.setStatus({ code: this.#api.SpanStatusCode.ERROR });
      }
    } catch {
      // Tracing is an observer only: the span still ends.
    }
    try {
      span.end();
    } catch {
      // Tracing is an observer only.
    }
    return result;
  }

  /** Ends the span of a call that rejected, which no call should. */
  endUnexpected(): void {
    if (!this.#owned) return;
    guard(() => {
      this.#span.setAttribute(ATTR_ERROR_TYPE, ERROR_TYPE_VALUE_OTHER);
      this.#span.setStatus({ code: this.#api.SpanStatusCode.ERROR });
    });
    guard(() => this.#span.end());
  }
}

/** The attributes every call of a tool starts with: its local name, as the run records it. */
function toolAttributes(config: McpServerConfig, name: string): Attributes {
  return Object.freeze({
    ...serverAttributes(config),
    [ATTR_MCP_METHOD_NAME]: MCP_METHOD_NAME_VALUE_TOOLS_CALL,
    [ATTR_GEN_AI_TOOL_NAME]: name,
    [ATTR_GEN_AI_TOOL_TYPE]: GEN_AI_TOOL_TYPE_EXTENSION,
    [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
  });
}

/** The attributes of every request to a server: its id, and where it is. */
function serverAttributes(config: McpServerConfig): Attributes {
  const attributes: Attributes = { [ATTR_RUNLEDGER_TOOL_SERVER]: config.id };
  const transport = config.transport;
  if (transport.type === McpTransportType.STDIO) {
    attributes[ATTR_NETWORK_TRANSPORT] = NETWORK_TRANSPORT_VALUE_PIPE;
    return attributes;
  }
  const url = new URL(transport.url);
  attributes[ATTR_NETWORK_TRANSPORT] = NETWORK_TRANSPORT_VALUE_TCP;
  attributes[ATTR_NETWORK_PROTOCOL_NAME] = 'http';
  attributes[ATTR_SERVER_ADDRESS] = url.hostname.replace(/^\[(.*)\]$/, '$1');
  attributes[ATTR_SERVER_PORT] = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  return attributes;
}
