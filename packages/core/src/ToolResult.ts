import { crossRealmBrand } from './crossRealmBrand.js';
import { keepShapeAlive } from './keepShapeAlive.js';
import { type ChannelBounds, resolveChannelBounds } from './ChannelBounds.js';
import { boundText } from './boundText.js';
import { checkArtifacts } from './encodeArtifacts.js';
import { isGenuineToolArtifact, ToolArtifact } from './ToolArtifact.js';
import { isToolFailureCause, ToolFailureCause } from './ToolFailureCause.js';
import { checkToolFailureFacts, type ToolFailureFacts } from './ToolFailureFacts.js';
import { isToolOutcome, ToolOutcome } from './ToolOutcome.js';
import { isGenuineWriteTarget, type WriteTarget } from './WriteTarget.js';

const BRAND = crossRealmBrand('@runledger/core/ToolResult', () => ToolResult, { ownField: 'outcome' });
const CONSTRUCT = Symbol('ToolResult.construct');
/**
 * Constructs from parts taken from a result that already passed every check of the constructor
 * (only {@link ToolResult.withBoundedChannels} uses it): a frozen array of genuine artifacts, a
 * valid outcome and write target, fail-closed.
 */
const CONSTRUCT_CHECKED = Symbol('ToolResult.constructChecked');

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
  /** Why a `failed` call failed, when the tool knows it; `null` on every other result. */
  readonly failureCause: ToolFailureCause | null;
  /**
   * How many times the call's request was written towards the server (`0`: it never left), when
   * the tool that made the result knows it (McpTool always does, see {@link ToolResult.withSends});
   * `null` otherwise.
   */
  readonly sends: number | null;
  /**
   * What the transport knew about why a `failed` call failed (JSON-RPC code, HTTP status, error
   * class, the server's `isError`), when the tool knows it; `null` on every other result.
   */
  readonly failureFacts: ToolFailureFacts | null;
  /** Present only on instances made by this class's constructor: unforgeable, unlike the brand. */
  readonly #checked = true;

  private constructor(
    token: symbol,
    content: string,
    outcome: ToolOutcome,
    artifacts: readonly ToolArtifact[],
    writeTarget: WriteTarget | null,
    failureCause: ToolFailureCause | null = null,
    sends: number | null = null,
    failureFacts: ToolFailureFacts | null = null,
  ) {
    if (token === CONSTRUCT_CHECKED) {
      this.content = content;
      this.outcome = outcome;
      this.artifacts = artifacts;
      this.writeTarget = writeTarget;
      this.failureCause = failureCause;
      this.sends = sends;
      this.failureFacts = failureFacts;
      Object.freeze(this);
      return;
    }
    if (token !== CONSTRUCT) {
      throw new TypeError('ToolResult is made through its factories: text(), written(), error(), cancelled()');
    }
    if (typeof content !== 'string') {
      throw new TypeError(`ToolResult.content must be a string, got ${typeof content}`);
    }
    if (!isToolOutcome(outcome)) {
      throw new TypeError('ToolResult.outcome must be one of "ok", "failed", "cancelled"');
    }
    if (!Array.isArray(artifacts)) {
      throw new TypeError('ToolResult.artifacts must be an array of ToolArtifact');
    }
    for (let index = 0; index < artifacts.length; index++) {
      if (!isGenuineToolArtifact(artifacts[index])) {
        throw new TypeError(`ToolResult.artifacts[${index}] must be a ToolArtifact made by its factories`);
      }
    }
    if (writeTarget !== null && !isGenuineWriteTarget(writeTarget)) {
      throw new TypeError('ToolResult.writeTarget must be a WriteTarget made by its factories');
    }
    // Fail-closed, checked where every result is made, whatever path led here.
    if (outcome !== ToolOutcome.OK && (artifacts.length > 0 || writeTarget !== null)) {
      throw new TypeError(`ToolResult.artifacts and ToolResult.writeTarget must be empty on a "${outcome}" result: it is fail-closed`);
    }
    if (failureCause !== null && (outcome !== ToolOutcome.FAILED || !isToolFailureCause(failureCause))) {
      throw new TypeError(
        `ToolResult.failureCause must be a ToolFailureCause on a "failed" result, got ${String(failureCause)} on "${outcome}"`,
      );
    }
    if (sends !== null && !isSendCount(sends)) {
      throw new RangeError(`ToolResult.sends must be null or an integer from 0 to ${MAX_SENDS}, got ${String(sends)}`);
    }
    const facts = checkToolFailureFacts(failureFacts, 'ToolResult.failureFacts');
    if (facts !== null && outcome !== ToolOutcome.FAILED) {
      throw new TypeError(`ToolResult.failureFacts must be null on a "${outcome}" result: only a failed call has them`);
    }
    this.content = content;
    this.outcome = outcome;
    this.failureCause = failureCause;
    this.sends = sends;
    this.failureFacts = facts;
    // Every caller passes an array of its own (a rest parameter or a literal): frozen, not copied.
    this.artifacts = Object.freeze(artifacts);
    this.writeTarget = writeTarget;
    Object.freeze(this);
  }

  static {
    // The registered brand lives on the prototype, once, not on every result: an own
    // non-enumerable property costs a slow defineProperty per result, on the path of every
    // tool call. Non-enumerable, so a spread copy of a result does not carry it.
    BRAND.mark(ToolResult.prototype);
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
    if (!isGenuineWriteTarget(target)) {
      throw new TypeError('ToolResult.written target must be a WriteTarget made by its factories');
    }
    return new ToolResult(CONSTRUCT, content, ToolOutcome.OK, artifacts, target);
  }

  /**
   * A failed call, failed by the caller's own code: outcome `failed`, fail-closed (no artifacts, no
   * write target), cause `recorder_error`.
   *
   * @throws TypeError from `ToolResult.error` when given anything beside the content.
   */
  static error(content: string): ToolResult {
    refuseExtras('error', arguments.length);
    return new ToolResult(CONSTRUCT, content, ToolOutcome.FAILED, [], null, ToolFailureCause.RECORDER_ERROR);
  }

  /**
   * A failed call whose cause is known: outcome `failed`, fail-closed, with its
   * {@link (ToolFailureCause:type)} and, when the transport knew them, its {@link ToolFailureFacts}.
   *
   * @throws TypeError from `ToolResult.failure` when the cause is not a ToolFailureCause, or a
   * fact breaks its rule (the message names the fact).
   */
  static failure(content: string, cause: ToolFailureCause, facts?: ToolFailureFacts): ToolResult {
    if (!isToolFailureCause(cause)) {
      throw new TypeError(`ToolResult.failure cause must be a ToolFailureCause, got ${String(cause)}`);
    }
    return new ToolResult(
      CONSTRUCT,
      content,
      ToolOutcome.FAILED,
      [],
      null,
      cause,
      null,
      checkToolFailureFacts(facts, 'ToolResult.failure facts'),
    );
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
   * Returns this result with the number of times its call's request was written towards the server.
   *
   * @remarks
   * A tool that talks to a server says how often the request left (`0` when the call ended before
   * anything was written: a cancel or a refusal before sending). Readers use it to tell a write that
   * may have run on the server from one that never reached it.
   *
   * @throws RangeError from `ToolResult.withSends` when `sends` is not an integer from 0 to 1000.
   */
  withSends(sends: number): ToolResult {
    if (!isSendCount(sends)) {
      throw new RangeError(`ToolResult.withSends sends must be an integer from 0 to ${MAX_SENDS}, got ${String(sends)}`);
    }
    if (sends === this.sends) return this;
    const { content, outcome, artifacts, writeTarget } = this;
    const failureCause = this.failureCause ?? null;
    const failureFacts = this.failureFacts ?? null;
    if (#checked in this) {
      return new ToolResult(CONSTRUCT_CHECKED, content, outcome, artifacts, writeTarget, failureCause, sends, failureFacts);
    }
    // The method applied to a look-alike: every check runs, on a copy of its artifacts.
    return new ToolResult(
      CONSTRUCT,
      content,
      outcome,
      Array.isArray(artifacts) ? [...artifacts] : artifacts,
      writeTarget,
      failureCause,
      sends,
      failureFacts,
    );
  }

  /**
   * Tells whether a value is a ToolResult, also one made by another copy of this package.
   */
  static is(value: unknown): value is ToolResult {
    if (typeof value !== 'object' || value === null) return false;
    // Made by this copy: its private field. Made by another copy (a second node_modules folder,
    // another vm realm): the registered brand on its prototype, on a frozen result with fields
    // of its own (which a bare Object.create(ToolResult.prototype) does not have).
    return #checked in value || BRAND.is(value);
  }

  /**
   * Makes `instanceof ToolResult` work like {@link ToolResult.is}, also across copies of this package.
   *
   * @remarks
   * Only `ToolResult` itself answers; `instanceof` a subclass is always false (no instance of a
   * subclass can exist).
   */
  static [Symbol.hasInstance](value: unknown): boolean {
    return this === ToolResult && ToolResult.is(value);
  }

  /**
   * Returns a result whose channels are bounded, keeping the outcome and the write target.
   *
   * @remarks
   * The content is made well-formed (lone surrogates replaced) and cut to at most
   * `contentBytes` UTF-8 bytes on a character boundary, with a visible truncation marker inside
   * the limit; content of exactly the limit passes unchanged. When the JSON of the artifacts
   * exceeds `artifactBytes`, or cannot be made (cycle, BigInt, non-finite number, nesting over
   * 64, a getter or `toJSON` that throws), they are replaced whole by one `text` artifact
   * labelled "Artifacts omitted" that says why; the notice itself fits `artifactBytes` from 56
   * bytes on (the smallest notice there is). Linear in the size of the content; the artifacts cost
   * no more than their size or the limit, whichever is smaller, even for data whose shared
   * references would expand to a huge tree.
   *
   * A result that is already within the bounds is returned itself (results are immutable, so
   * nothing can tell the two apart but identity); otherwise a new result is made.
   *
   * @throws RangeError from `ToolResult.withBoundedChannels` when a bound is not a positive integer.
   */
  withBoundedChannels(bounds?: ChannelBounds): ToolResult {
    const limits = resolveChannelBounds(bounds);
    const content = boundText(this.content, limits.contentBytes);
    let artifacts = this.artifacts;
    let artifactsKept = true;
    if (artifacts.length > 0) {
      const check = checkArtifacts(artifacts, limits.artifactBytes);
      if (!check.ok) {
        artifacts = Object.freeze([omitted(check.reason, limits.artifactBytes)]);
        artifactsKept = false;
      }
    }
    const { outcome, writeTarget } = this;
    const failureCause = this.failureCause ?? null;
    const sends = this.sends ?? null;
    const failureFacts = this.failureFacts ?? null;
    if (#checked in this) {
      // Immutable: a genuine result that is already within the bounds is its own bounded result.
      if (artifactsKept && content === this.content) {
        return this;
      }
      // Every part passed the constructor's checks already: the artifacts are this result's own
      // (frozen, genuine) or one genuine notice on an ok result, the outcome and target are this
      // result's, and the bounded content is a string.
      return new ToolResult(CONSTRUCT_CHECKED, content, outcome, artifacts, writeTarget, failureCause, sends, failureFacts);
    }
    // The method applied to a look-alike: every check runs, on a copy of its artifacts.
    return new ToolResult(
      CONSTRUCT,
      content,
      outcome,
      Array.isArray(artifacts) ? [...artifacts] : artifacts,
      writeTarget,
      failureCause,
      sends,
      failureFacts,
    );
  }
}

const OMITTED_LABEL = 'Artifacts omitted';
/** The most sends a result may state: far above any retry rule, low enough to stay a small integer. */
const MAX_SENDS = 1000;

function isSendCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_SENDS;
}

function omitted(reason: string, artifactBytes: number): ToolArtifact {
  // The notice must itself fit the channel, JSON wrapper and escapes included; when even the
  // shortest notice cannot fit (a limit of a few dozen bytes), the shortest one is kept.
  const text = `Artifacts omitted: ${reason}.`;
  let room = artifactBytes;
  for (;;) {
    const notice = ToolArtifact.text(OMITTED_LABEL, boundText(text, room));
    const excess = Buffer.byteLength(JSON.stringify([notice]), 'utf8') - artifactBytes;
    if (excess <= 0 || room === 1) {
      return notice;
    }
    room = Math.max(1, room - excess);
  }
}

function refuseExtras(factory: 'error' | 'cancelled', argumentCount: number): void {
  if (argumentCount > 1) {
    throw new TypeError(
      `ToolResult.${factory}() takes only the content: a ${factory === 'error' ? 'failed' : 'cancelled'} result is fail-closed, with no artifacts and no write target`,
    );
  }
}

// See keepShapeAlive: results are made and dropped on every tool call. The frozen artifacts
// array of each form (none, some) has a hidden class of its own.
keepShapeAlive(ToolResult.text('', ToolArtifact.text('', '')));
keepShapeAlive(ToolResult.text(''));
keepShapeAlive(ToolResult.error(''));
keepShapeAlive(ToolResult.failure('', 'server_error'));
keepShapeAlive(ToolResult.failure('', 'server_error').withSends(1));
keepShapeAlive(ToolResult.failure('', 'server_error', { serverIsError: true }).withSends(1));
