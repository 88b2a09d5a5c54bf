import type { McpTransportType } from './McpTransportType.js';

/**
 * The deadline of one operation on an MCP server (connect and call together) when the
 * configuration gives none: 20 000 ms.
 *
 * @public
 */
export const DEFAULT_MCP_DEADLINE_MS = 20_000;

/**
 * How to start an MCP server as a child process that speaks MCP over stdio.
 *
 * @public
 */
export interface McpStdioTransportConfig {
  /** Always `"stdio"`. */
  readonly type: typeof McpTransportType.STDIO;
  /** The executable to start (looked up on `PATH` when not a path). */
  readonly command: string;
  /** Its command-line arguments. */
  readonly args: readonly string[];
  /**
   * Environment variables for the child, on top of a small safe set inherited from this process
   * (`HOME`, `LOGNAME`, `PATH`, `SHELL`, `TERM`, `USER`); nothing else is inherited.
   */
  readonly env: Readonly<Record<string, string>>;
  /** The working directory of the child; `undefined` keeps this process's. */
  readonly cwd: string | undefined;
}

/**
 * How to reach an MCP server over Streamable HTTP.
 *
 * @public
 */
export interface McpHttpTransportConfig {
  /** Always `"http"`. */
  readonly type: typeof McpTransportType.HTTP;
  /** The MCP endpoint, `http:` or `https:`. */
  readonly url: string;
  /** Extra request headers (never `Authorization`: see `bearerTokenEnv`). */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * The name of the environment variable that holds the bearer token, read when connecting and
   * sent as `Authorization: Bearer <token>`; the token itself is never part of the configuration.
   * `undefined` sends no credential.
   */
  readonly bearerTokenEnv: string | undefined;
}

/**
 * One configured MCP server, as returned by {@link parseServerConfig}.
 *
 * @public
 */
export interface McpServerConfig {
  /** The server id, `^[a-z0-9_]{1,32}$`, unique in a configuration; part of each local tool name. */
  readonly id: string;
  /** A human-readable name; the id when the configuration gives none. */
  readonly name: string;
  /** How to reach the server. */
  readonly transport: McpStdioTransportConfig | McpHttpTransportConfig;
  /**
   * The most milliseconds one call may take, waiting for a connection included; then it ends
   * `failed`. Also bounds a tool listing. {@link DEFAULT_MCP_DEADLINE_MS} when not configured.
   *
   * @remarks
   * Opening a connection (starting a process, the MCP handshake) may take up to
   * `max(deadlineMs, 10 000)` ms in the background; a call waiting for it still ends at its own
   * deadline.
   */
  readonly deadlineMs: number;
  /** True when a person must approve each call of this server's tools before it is executed. */
  readonly requiresApproval: boolean;
  /**
   * True when the server is trusted to describe its tools truly: only then do its tools'
   * annotations change what runledger does. `false` (or absent, the default) treats every tool as
   * one that may write and must not run twice.
   *
   * @remarks
   * A call whose request was lost on a broken stream (MCP 2026-07-28 over Streamable HTTP) is sent
   * again only to a trusted server's tool that says `readOnlyHint: true` or `idempotentHint: true`.
   */
  readonly trustAnnotations?: boolean;
}
