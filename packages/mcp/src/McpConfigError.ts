import { crossRealmBrand } from '@runledger/core/internal';

const BRAND = crossRealmBrand('@runledger/mcp/McpConfigError', () => McpConfigError);

/**
 * A refused MCP server configuration: every problem found, each naming the path and the rule.
 *
 * @remarks
 * Thrown by {@link parseServerConfig} and {@link McpServerRegistry.create}. A configuration with
 * any problem is refused whole: none of its servers is used. Each problem reads like
 * `servers[2].id must match ^[a-z0-9_]{1,32}$`; the message lists them all.
 * {@link McpConfigError.is} and `instanceof` recognise an error made by another copy of this
 * package.
 *
 * @public
 */
export class McpConfigError extends Error {
  /** Each problem, as `<path> <rule>`, in the order found. */
  readonly problems: readonly string[];

  /**
   * Makes the error from its problems.
   *
   * @throws TypeError from `new McpConfigError` when `problems` is empty.
   */
  constructor(problems: readonly string[]) {
    if (problems.length === 0) {
      throw new TypeError('McpConfigError.problems must name at least one problem');
    }
    super(
      problems.length === 1
        ? `MCP server configuration refused: ${problems[0]}`
        : `MCP server configuration refused (${problems.length} problems): ${problems.join('; ')}`,
    );
    this.name = 'McpConfigError';
    this.problems = Object.freeze([...problems]);
    BRAND.mark(this);
  }

  /** Tells whether a value is an McpConfigError, also one made by another copy of this package. */
  static is(value: unknown): value is McpConfigError {
    return BRAND.is(value);
  }

  /** Makes `instanceof McpConfigError` true also for an error made by another copy of this package. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return BRAND.hasInstance(this, value);
  }
}
