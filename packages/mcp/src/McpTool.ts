import type { ToolResult } from '@runledger/core';
import type { McpToolAnnotations } from './McpToolAnnotations.js';

/**
 * Options of one {@link McpTool.execute} call.
 *
 * @public
 */
export interface McpExecuteOptions {
  /**
   * The run's signal. Aborting it ends the call `cancelled` at once: the client stops waiting
   * and tells the server — over Streamable HTTP under MCP 2026-07-28 by closing the call's response
   * stream, otherwise with `notifications/cancelled`.
   */
  readonly signal?: AbortSignal;
  /**
   * The id the run records this call under (`recordToolStart`'s `toolCallId`). With MCP tracing
   * and live OpenTelemetry export (`@runledger/otel`) both on, the call's MCP attributes join the
   * `execute_tool` span of exactly this call; without it, of the tool's oldest started call.
   */
  readonly toolCallId?: string;
}

/**
 * One tool of a configured MCP server, ready for an agent loop.
 *
 * @remarks
 * Made by {@link McpServerRegistry.tools}. `execute()` always resolves to a {@link ToolResult}
 * whose `outcome` says how the call ended, and never rejects for anything the server or the wire
 * does:
 *
 * - `ok` — the server answered and did not set `isError`;
 *
 * - `failed` — the server answered `isError: true`, or the transport, the protocol, the HTTP
 *   status, a malformed answer, a JSON-RPC error, a crashed process, a hung server or the
 *   server's deadline ended the call (the content is the matching `McpTransportException`
 *   message); `failureCause` says which: `server_error` for the `isError` answer,
 *   `invalid_arguments` when the server refused the arguments against its input schema (JSON-RPC
 *   `-32602` other than an output validation error, or an MCP SDK's refusal answer: `Input
 *   validation error: …` or `Invalid arguments for tool …`, alone as SDK 2.x sends it or after
 *   SDK 1.x's `MCP error -32602: `), `tool_not_found` when the server says it has no such tool (or
 *   has it disabled; never charged to the server), else the exception's `code`;
 *
 * - `cancelled` — the caller's `signal` was aborted before the call ended (also before it was
 *   sent), or the registry was closed before or while the call ran. Decided by identity with an
 *   abort reason of our own and by the registry's own state, never by an error code. It means
 *   the client stopped waiting; whether the server already changed something is not knowable
 *   from this side. An answer that arrives after the abort changes nothing.
 *
 * Every result has passed `withBoundedChannels()` and states its `sends`: how many times the
 * call's request was written towards the server (`0` when it never left). A request is never sent
 * twice by runledger unless it cannot change anything twice: only a request that provably never
 * left (its connection failed before it was written) is sent again, and a request lost on a broken
 * stream (MCP 2026-07-28 over Streamable HTTP) is sent again, at most twice, only to a tool whose
 * trusted annotations say it is read-only or idempotent. Every other call that may have reached the
 * server without an answer ends `failed` (or `cancelled`) with `sends` ≥ 1: a writing tool's step
 * then reads as "may have executed". The connection to the server is shared by all its tools and
 * reopened after a crash.
 *
 * @public
 */
export interface McpTool {
  /** The local name, `mcp_<server>_<remote>`, matching {@link MCP_LOCAL_TOOL_NAME_PATTERN}. */
  readonly name: string;
  /** The server id. */
  readonly server: string;
  /** The tool's name on the server. */
  readonly remoteName: string;
  /** The tool's title as the server gives it, or undefined. */
  readonly title: string | undefined;
  /** The tool's description as the server gives it ('' when none). */
  readonly description: string;
  /** The JSON Schema of the arguments, as the server lists it (frozen). */
  readonly inputSchema: Readonly<Record<string, unknown>>;
  /** True when the server is configured to need a person's approval before each call. */
  readonly requiresApproval: boolean;
  /**
   * The tool's behaviour hints as the server lists them (frozen); untrusted unless the server's
   * configuration sets `trustAnnotations`. Absent on a tool not made by {@link McpServerRegistry}.
   */
  readonly annotations?: McpToolAnnotations;
  /** The server's operation deadline in milliseconds (connecting included). */
  readonly deadlineMs: number;
  /** Calls the tool with the arguments (a JSON object) and resolves to the result. */
  execute(args: Readonly<Record<string, unknown>>, options?: McpExecuteOptions): Promise<ToolResult>;
}
