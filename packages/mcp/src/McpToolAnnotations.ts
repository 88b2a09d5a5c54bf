/**
 * The behaviour hints of an MCP tool, as its server lists them (`annotations` in `tools/list`).
 *
 * @remarks
 * Each hint is the boolean the server gave, or `undefined` when it gave none; the protocol's
 * defaults for an absent hint are `readOnlyHint: false`, `destructiveHint: true`,
 * `idempotentHint: false`, `openWorldHint: true`. The specification makes a client treat them as
 * untrusted unless the server is trusted: runledger acts on them only for a server whose
 * configuration sets `trustAnnotations` (see {@link McpServerConfig.trustAnnotations}).
 *
 * @public
 */
export interface McpToolAnnotations {
  /** True: the tool does not change its environment. */
  readonly readOnlyHint: boolean | undefined;
  /** True: a change the tool makes may destroy something (meaningful when not read-only). */
  readonly destructiveHint: boolean | undefined;
  /** True: calling it again with the same arguments has no further effect (when not read-only). */
  readonly idempotentHint: boolean | undefined;
  /** True: the tool reaches entities outside the server (the web, other systems). */
  readonly openWorldHint: boolean | undefined;
}
