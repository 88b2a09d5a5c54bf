const PREFIX = 'mcp_';

/**
 * Reads the MCP server id out of a tool name of the form `mcp_<server>_<tool>`, or returns null.
 *
 * @remarks
 * The rule, used for rows written before steps had a server column: the name must start with
 * `mcp_`; the server id is everything after that prefix up to (not including) the next `_`; it
 * must be non-empty and be followed by a non-empty tool name. So `mcp_github_search_issues` is
 * server `github` (tool `search_issues`), while `mcp__x`, `mcp_github_`, `mcp_github` and
 * `search` have no server. A server id that itself contains `_` cannot be recovered from a
 * legacy name: the first `_` after the prefix always ends the server id. Case is kept as written.
 *
 * @public
 */
export function serverFromToolName(name: unknown): string | null {
  if (typeof name !== 'string' || !name.startsWith(PREFIX)) return null;
  const end = name.indexOf('_', PREFIX.length);
  if (end <= PREFIX.length || end === name.length - 1) return null;
  return name.slice(PREFIX.length, end);
}
