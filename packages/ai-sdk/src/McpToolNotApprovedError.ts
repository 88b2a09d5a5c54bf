import { crossRealmBrand } from '@runledger/core/internal';

const BRAND = crossRealmBrand('@runledger/ai-sdk/McpToolNotApprovedError', () => McpToolNotApprovedError);

/**
 * What a tool of {@link mcpToolSet} throws when the `approve` callback refused a call of a tool
 * whose server requires approval: the call was not sent, and its tool step was recorded `failed`
 * with cause `not_approved`.
 *
 * @remarks
 * The AI SDK hands the message to the model as the call's tool error.
 * {@link McpToolNotApprovedError.is} and `instanceof` recognise an error made by another copy of
 * this package.
 *
 * @public
 */
export class McpToolNotApprovedError extends Error {
  /** The tool's local name, `mcp_<server>_<remote>`. */
  readonly toolName: string;
  /** The server id. */
  readonly server: string;

  /** Makes the error for a refused call of a tool. */
  constructor(tool: { readonly name: string; readonly server: string }) {
    super(`the call of ${tool.name} was not approved (MCP server "${tool.server}" requires approval of each call); it was not sent`);
    this.name = 'McpToolNotApprovedError';
    this.toolName = tool.name;
    this.server = tool.server;
    BRAND.mark(this);
  }

  /** Tells whether a value is an McpToolNotApprovedError, also one made by another copy of this package. */
  static is(value: unknown): value is McpToolNotApprovedError {
    return BRAND.is(value);
  }

  /** Makes `instanceof McpToolNotApprovedError` true also for an error made by another copy of this package. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return BRAND.hasInstance(this, value);
  }
}
