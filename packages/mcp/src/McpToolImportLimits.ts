/**
 * The most a server may list when its tools are imported: 50 pages and 500 tools. A server that
 * lists more is refused whole (none of its tools is imported), with a reason saying which limit.
 *
 * @public
 */
export const MCP_TOOL_IMPORT_LIMITS: Readonly<{ maxPages: number; maxTools: number }> = Object.freeze({
  maxPages: 50,
  maxTools: 500,
});

/**
 * The pattern every local tool name `mcp_<server>_<remote>` must match. A tool whose local name
 * would not match is skipped, never renamed.
 *
 * @public
 */
export const MCP_LOCAL_TOOL_NAME_PATTERN: RegExp = /^[a-zA-Z0-9_-]{1,64}$/;
