/**
 * A tool a server lists that was not imported, and why.
 *
 * @public
 */
export interface McpSkippedTool {
  /** The server id. */
  readonly server: string;
  /** The tool's name on the server. */
  readonly remoteName: string;
  /** Why it was skipped, naming the rule, e.g. a local name longer than 64 characters. */
  readonly reason: string;
}
