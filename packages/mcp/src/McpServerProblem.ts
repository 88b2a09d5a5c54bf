/**
 * A configured server whose tools could not be imported, and why.
 *
 * @public
 */
export interface McpServerProblem {
  /** The server id. */
  readonly server: string;
  /**
   * What went wrong: the server could not be reached or listed, or it lists more pages or tools
   * than {@link MCP_TOOL_IMPORT_LIMITS} allow.
   */
  readonly reason: string;
}
