/**
 * Evidence that an MCP server answered a call: handed to
 * {@link McpServerRegistryOptions.onHealthContact} once per answered call.
 *
 * @remarks
 * Only a call the server answered makes a contact, also one answered with `isError: true`. A
 * call that failed on the wire, hit its deadline or was cancelled by the caller makes none, so a
 * contact always means "the server was there and answered in `latencyMs`".
 *
 * @public
 */
export interface McpHealthContact {
  /** The server id. */
  readonly server: string;
  /** The local tool name, `mcp_<server>_<remote>`. */
  readonly tool: string;
  /** The tool's name on the server. */
  readonly remoteTool: string;
  /** Milliseconds from sending the call to its answer. */
  readonly latencyMs: number;
  /** True when the server answered with `isError: true`. */
  readonly isError: boolean;
  /** When the answer arrived, in milliseconds since the epoch. */
  readonly at: number;
}
