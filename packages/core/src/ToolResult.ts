import { hasBrand, setBrand } from './brand.js';
import { type ChannelBounds, resolveChannelBounds } from './ChannelBounds.js';
import { boundText } from './boundText.js';
import { encodeArtifacts } from './encodeArtifacts.js';
import { ToolArtifact } from './ToolArtifact.js';
import { ToolOutcome } from './ToolOutcome.js';
import { WriteTarget } from './WriteTarget.js';

const BRAND = Symbol.for('@runledger/core/ToolResult');
const CONSTRUCT = Symbol('ToolResult.construct');

/**
 * The result of one tool call: the content for the model, the outcome, run-only artifacts and,
 * for a writing tool, the record it wrote.
 *
 * @remarks
 * Immutable. Made only through the named factories. `isError` is derived from the outcome, so
 * `isError === (outcome !== 'ok')` always holds. A failed or cancelled result is fail-closed: it
 * has no artifacts and no write target, and there is no way to give it any.
 *
 * @public
 */
export class ToolResult {
  /** The text the model sees. */
  readonly content: string;
  /** How the call ended. */
  readonly outcome: ToolOutcome;
  /** Structured output for the run only; always empty unless the outcome is `ok`. */
  readonly artifacts: readonly ToolArtifact[];
  /** The record a writing tool created, changed or deleted; `null` unless the outcome is `ok`. */
  readonly writeTarget: WriteTarget | null;

  private constructor(
    token: symbol,
    content: string,
    outcome: ToolOutcome,
    artifacts: readonly ToolArtifact[],
    writeTarget: WriteTarget | null,
  ) {
    if (token !== CONSTRUCT) {
      throw new TypeError('ToolResult is made through its factories: text(), written(), error(), cancelled()');
    }
    if (typeof content !== 'string') {
      throw new TypeError(`ToolResult.content must be a string, got ${typeof content}`);
    }
    for (const [index, artifact] of artifacts.entries()) {
      if (!(artifact instanceof ToolArtifact)) {
        throw new TypeError(`ToolResult.artifacts[${index}] must be a ToolArtifact`);
      }
    }
    if (writeTarget !== null && !(writeTarget instanceof WriteTarget)) {
      throw new TypeError('ToolResult.writeTarget must be a WriteTarget');
    }
    this.content = content;
    this.outcome = outcome;
    this.artifacts = Object.freeze([...artifacts]);
    this.writeTarget = writeTarget;
    setBrand(this, BRAND);
    Object.freeze(this);
  }

  /** True when the call did not end `ok`: for `failed` and for `cancelled`. */
  get isError(): boolean {
    return this.outcome !== ToolOutcome.OK;
  }

  /** An answered call: outcome `ok`, with optional run-only artifacts. */
  static text(content: string, ...artifacts: ToolArtifact[]): ToolResult {
    return new ToolResult(CONSTRUCT, content, ToolOutcome.OK, artifacts, null);
  }

  /**
   * An answered call of a writing tool: outcome `ok`, with the record it wrote.
   *
   * @throws TypeError from `ToolResult.written` when the target is not a WriteTarget.
   */
  static written(content: string, target: WriteTarget, ...artifacts: ToolArtifact[]): ToolResult {
    if (!(target instanceof WriteTarget)) {
      throw new TypeError('ToolResult.written target must be a WriteTarget');
    }
    return new ToolResult(CONSTRUCT, content, ToolOutcome.OK, artifacts, target);
  }

  /**
   * A failed call: outcome `failed`, fail-closed (no artifacts, no write target).
   *
   * @throws TypeError from `ToolResult.error` when given anything beside the content.
   */
  static error(content: string): ToolResult {
    refuseExtras('error', arguments.length);
    return new ToolResult(CONSTRUCT, content, ToolOutcome.FAILED, [], null);
  }

  /**
   * A call our own side stopped waiting for: outcome `cancelled`, fail-closed (no artifacts, no
   * write target).
   *
   * @throws TypeError from `ToolResult.cancelled` when given anything beside the content.
   */
  static cancelled(content: string): ToolResult {
    refuseExtras('cancelled', arguments.length);
    return new ToolResult(CONSTRUCT, content, ToolOutcome.CANCELLED, [], null);
  }

  /**
   * Tells whether a value is a ToolResult, also one made by another copy of this package.
   */
  static is(value: unknown): value is ToolResult {
    return hasBrand(value, BRAND);
  }

  static [Symbol.hasInstance](value: unknown): boolean {
    return hasBrand(value, BRAND);
  }

  /**
   * Returns a new result whose channels are bounded, keeping the outcome and the write target.
   *
   * @remarks
   * The content is made well-formed (lone surrogates replaced) and cut to at most
   * `contentBytes` UTF-8 bytes on a character boundary, with a visible truncation marker inside
   * the limit; content of exactly the limit passes unchanged. When the JSON of the artifacts
   * exceeds `artifactBytes`, or cannot be made (cycle, BigInt, non-finite number, nesting over
   * 64), they are replaced whole by one `text` artifact labelled "Artifacts omitted" that says
   * why. Linear in the size of the result.
   *
   * @throws RangeError from `ToolResult.withBoundedChannels` when a bound is not a positive integer.
   */
  withBoundedChannels(bounds?: ChannelBounds): ToolResult {
    const limits = resolveChannelBounds(bounds);
    const content = boundText(this.content, limits.contentBytes);
    let artifacts = this.artifacts;
    if (artifacts.length > 0) {
      const encoding = encodeArtifacts(artifacts);
      if (!encoding.ok) {
        artifacts = [omitted(encoding.reason, limits.artifactBytes)];
      } else {
        const bytes = Buffer.byteLength(encoding.json, 'utf8');
        if (bytes > limits.artifactBytes) {
          const count = artifacts.length === 1 ? '1 artifact takes' : `${artifacts.length} artifacts take`;
          artifacts = [omitted(`${count} ${bytes} bytes as JSON, over the limit of ${limits.artifactBytes} bytes`, limits.artifactBytes)];
        }
      }
    }
    return new ToolResult(CONSTRUCT, content, this.outcome, artifacts, this.writeTarget);
  }
}

const OMITTED_LABEL = 'Artifacts omitted';

function omitted(reason: string, artifactBytes: number): ToolArtifact {
  // The replacement must itself fit the channel: the JSON wrapper takes about 60 bytes.
  const room = Math.max(1, artifactBytes - 64 - Buffer.byteLength(OMITTED_LABEL, 'utf8'));
  return ToolArtifact.text(OMITTED_LABEL, boundText(`Artifacts omitted: ${reason}.`, room));
}

function refuseExtras(factory: 'error' | 'cancelled', argumentCount: number): void {
  if (argumentCount > 1) {
    throw new TypeError(
      `ToolResult.${factory}() takes only the content: a ${factory === 'error' ? 'failed' : 'cancelled'} result is fail-closed, with no artifacts and no write target`,
    );
  }
}
