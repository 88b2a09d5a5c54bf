/**
 * How runledger reaches an MCP server: a child process over `stdio`, or Streamable `http`.
 *
 * @public
 */
export const McpTransportType = {
  /** A child process started from a command, speaking MCP over its stdin and stdout. */
  STDIO: 'stdio',
  /** A remote server speaking MCP over Streamable HTTP. */
  HTTP: 'http',
} as const;

/**
 * One of the transport strings of {@link (McpTransportType:variable)}.
 *
 * @public
 */
export type McpTransportType = (typeof McpTransportType)[keyof typeof McpTransportType];
