import type { ToolOutcome, ToolResult } from '@runledger/core';
import { crossRealmBrand } from '@runledger/core/internal';

const BRAND = crossRealmBrand('@runledger/ai-sdk/McpToolCallError', () => McpToolCallError);

/**
 * What a tool of {@link mcpToolSet} throws when its call ended `failed` or `cancelled`.
 *
 * @remarks
 * The AI SDK turns it into the call's tool error: the model reads `message` (the result's
 * content, e.g. the server's error text) and can recover. The call is already recorded on the run
 * with its outcome. {@link McpToolCallError.is} and `instanceof` recognise an error made by another
 * copy of this package.
 *
 * @public
 */
export class McpToolCallError extends Error {
  /** `failed` or `cancelled`: how the call ended. */
  readonly outcome: Exclude<ToolOutcome, 'ok'>;
  /** The call's result, as recorded. */
  readonly result: ToolResult;
  /** The tool's local name, `mcp_<server>_<remote>`. */
  readonly toolName: string;
  /** The server id. */
  readonly server: string;

  /**
   * Makes the error from a result that did not end ok.
   *
   * @throws TypeError from `new McpToolCallError` when the result's outcome is `ok`.
   */
  constructor(tool: { readonly name: string; readonly server: string }, result: ToolResult) {
    if (result.outcome === 'ok') throw new TypeError('McpToolCallError.result must not be an "ok" result');
    super(result.content);
    this.name = 'McpToolCallError';
    this.outcome = result.outcome;
    this.result = result;
    this.toolName = tool.name;
    this.server = tool.server;
    BRAND.mark(this);
  }

  /** Tells whether a value is an McpToolCallError, also one made by another copy of this package. */
  static is(value: unknown): value is McpToolCallError {
    return BRAND.is(value);
  }

  /** Makes `instanceof McpToolCallError` true also for an error made by another copy of this package. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return BRAND.hasInstance(this, value);
  }
}
