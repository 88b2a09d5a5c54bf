import {
  type ArtifactType,
  type ToolArtifact,
  type ToolFailureCause,
  type ToolFailureFacts,
  ToolOutcome,
  type WriteKind,
  type WriteTarget,
} from '@runledger/core';
import { crossRealmBrand } from '@runledger/core/internal';
import { readRunStepPayload } from './readRunStepPayload.js';
import { RunStepError } from './RunStepError.js';
import { RunStepKind } from './RunStepKind.js';
import { RUN_STEP_KEYS, type RunStepKey, show } from './RunStepSchema.js';
import type { ToolApproval } from './ToolApproval.js';
import { checkStepFields } from './toolStepFastPath.js';

/**
 * One message of the assembled context of an LLM call.
 *
 * @public
 */
export interface RunStepMessage {
  readonly role: string;
  readonly content: string;
}

/**
 * A tool call an LLM asked for.
 *
 * @public
 */
export interface RunStepToolCall {
  /** The call id the LLM gave, if any. */
  readonly id?: string;
  readonly name: string;
  readonly arguments: Readonly<Record<string, unknown>>;
}

/**
 * The fields of a {@link RunStep}: the common ones, then those of each kind.
 *
 * @remarks
 * Common: `kind`, `round`, `durationMs`. `request`: `content` (the incoming request). `llm`:
 * `model`, `provider` (who serves the model, e.g. the AI SDK's `openai.chat`), `content` (the answer), `thinking`, `finishReason`, `promptTokens`,
 * `completionTokens`, `costUsd`, `requestedToolCalls`, `raw` (the provider's raw answer).
 * `context`: `tokenBudget`, `tokensUsed`. `dropped`: `droppedSources`. `assembled`:
 * `messages`. `tool`: `toolName`, `toolServer`, `toolArguments`, `toolResult`, `toolIsError`,
 * `toolOutcome`, `toolFailureCause` (why a failed call failed), `toolFailureFacts` (what the
 * transport knew about it: JSON-RPC code, HTTP status, error class, the server's `isError`), `toolArtifacts`,
 * `toolWriteTarget`, `toolWrites` (the tool is declared as writing, so a cancelled call may have
 * changed something), `toolCallId` (the id its `tool_start` step named), `toolSends` (how many
 * times the call's request was written towards the server, `0` when it never left), `toolApproval`
 * (who decided a call that needed approval; a refused one is `failed`). `tool_start`:
 * `toolName`, `toolServer`, `toolArguments`, `toolWrites`, `toolCallId` (required). An absent or
 * `null` field is not set.
 *
 * @public
 */
export interface RunStepFields {
  readonly kind: RunStepKind;
  /** The agent loop's round, from 0. */
  readonly round: number;
  /** How long the step took, in ms (kept to 2 decimals). */
  readonly durationMs: number;
  readonly model?: string | null;
  readonly provider?: string | null;
  readonly content?: string | null;
  readonly thinking?: string | null;
  readonly messages?: readonly RunStepMessage[] | null;
  readonly finishReason?: string | null;
  readonly promptTokens?: number | null;
  readonly completionTokens?: number | null;
  readonly costUsd?: number | null;
  readonly requestedToolCalls?: readonly RunStepToolCall[] | null;
  readonly raw?: unknown;
  readonly tokenBudget?: number | null;
  readonly tokensUsed?: number | null;
  readonly droppedSources?: readonly string[] | null;
  readonly toolName?: string | null;
  readonly toolServer?: string | null;
  readonly toolArguments?: Readonly<Record<string, unknown>> | null;
  readonly toolResult?: string | null;
  readonly toolIsError?: boolean | null;
  readonly toolOutcome?: ToolOutcome | null;
  /** Why the call failed; only on a `tool` step whose outcome is `failed`. */
  readonly toolFailureCause?: ToolFailureCause | null;
  /** What the transport knew about why the call failed; only on a `tool` step whose outcome is `failed`. */
  readonly toolFailureFacts?: ToolFailureFacts | null;
  readonly toolArtifacts?: readonly ToolArtifact[] | null;
  readonly toolWriteTarget?: WriteTarget | null;
  /** True when the tool is declared as writing (or wrote a target); only on `tool` and `tool_start` steps. */
  readonly toolWrites?: boolean | null;
  /** The id that pairs a `tool_start` step with the `tool` step that ends the call; only on those two kinds. */
  readonly toolCallId?: string | null;
  /** How many times the call's request was written towards the server (0: it never left); only on `tool` steps. */
  readonly toolSends?: number | null;
  readonly toolApproval?: ToolApproval | null;
}

/**
 * A step as a plain JSON object: what {@link RunStep.toPayload} writes and
 * {@link RunStep.fromPayload} reads.
 *
 * @public
 */
export interface RunStepPayload {
  readonly kind: RunStepKind;
  readonly round: number;
  readonly durationMs: number;
  readonly model?: string;
  readonly provider?: string;
  readonly content?: string;
  readonly thinking?: string;
  readonly messages?: readonly RunStepMessage[];
  readonly finishReason?: string;
  readonly promptTokens?: number;
  readonly completionTokens?: number;
  readonly costUsd?: number;
  readonly requestedToolCalls?: readonly RunStepToolCall[];
  readonly raw?: unknown;
  readonly tokenBudget?: number;
  readonly tokensUsed?: number;
  readonly droppedSources?: readonly string[];
  readonly toolName?: string;
  readonly toolServer?: string;
  readonly toolArguments?: Readonly<Record<string, unknown>>;
  readonly toolResult?: string;
  readonly toolIsError?: boolean;
  readonly toolOutcome?: ToolOutcome;
  readonly toolFailureCause?: ToolFailureCause;
  readonly toolFailureFacts?: ToolFailureFacts;
  readonly toolArtifacts?: readonly { readonly type: ArtifactType; readonly label: string; readonly data: unknown }[];
  readonly toolWriteTarget?: { readonly resource: string; readonly id: string; readonly kind: WriteKind };
  readonly toolWrites?: boolean;
  readonly toolCallId?: string;
  readonly toolSends?: number;
  readonly toolApproval?: ToolApproval;
}

const CONSTRUCT = Symbol('RunStep.construct');
const BRAND = crossRealmBrand('@runledger/trace/RunStep', () => RunStep);

/**
 * One recorded step of a run: the request, an LLM call, a tool call, the context budget,
 * dropped sources or the assembled messages.
 *
 * @remarks
 * Immutable; made by {@link RunStep.of} (or read back by {@link RunStep.fromPayload}). Each field's
 * own rule is the step schema's (`RunStepSchema.ts`); the rules between fields (see
 * docs/architecture.md) are refused here, once, for every writer: a `toolOutcome` on a step
 * that is not a `tool` step, and a `toolIsError` that contradicts `toolOutcome`
 * (`toolIsError === (toolOutcome !== 'ok')`). `toolIsError` alone on another kind stays
 * allowed (older data has it). On a `tool` step either field gives the other: an outcome
 * derives the boolean, and a lone boolean (a row written before outcomes existed) reads as
 * `failed` or `ok`. A tool step that did not end `ok` is fail-closed: no artifacts, no write
 * target.
 *
 * @public
 */
export class RunStep {
  readonly kind!: RunStepKind;
  readonly round!: number;
  /** Rounded to 2 decimals. */
  readonly durationMs!: number;
  readonly model!: string | undefined;
  /** Who serves the model (an LLM step's provider id, e.g. `openai.chat`). */
  readonly provider!: string | undefined;
  readonly content!: string | undefined;
  readonly thinking!: string | undefined;
  readonly messages!: readonly RunStepMessage[] | undefined;
  readonly finishReason!: string | undefined;
  readonly promptTokens!: number | undefined;
  readonly completionTokens!: number | undefined;
  readonly costUsd!: number | undefined;
  readonly requestedToolCalls!: readonly RunStepToolCall[] | undefined;
  readonly raw!: unknown;
  readonly tokenBudget!: number | undefined;
  readonly tokensUsed!: number | undefined;
  readonly droppedSources!: readonly string[] | undefined;
  readonly toolName!: string | undefined;
  readonly toolServer!: string | undefined;
  readonly toolArguments!: Readonly<Record<string, unknown>> | undefined;
  readonly toolResult!: string | undefined;
  readonly toolIsError!: boolean | undefined;
  readonly toolOutcome!: ToolOutcome | undefined;
  /** Why the call failed, when known; only on a failed tool step. */
  readonly toolFailureCause!: ToolFailureCause | undefined;
  /** What the transport knew about why the call failed, when known; only on a failed tool step. */
  readonly toolFailureFacts!: ToolFailureFacts | undefined;
  readonly toolArtifacts!: readonly ToolArtifact[] | undefined;
  readonly toolWriteTarget!: WriteTarget | undefined;
  /** True when the tool is declared as writing (or wrote a target). */
  readonly toolWrites!: boolean | undefined;
  /** The id pairing a `tool_start` step with the `tool` step that ends the call. */
  readonly toolCallId!: string | undefined;
  /** How many times the call's request was written towards the server, when the tool said so. */
  readonly toolSends!: number | undefined;
  readonly toolApproval!: ToolApproval | undefined;

  private constructor(token: symbol, fields: RunStepFields) {
    if (token !== CONSTRUCT) throw new TypeError('RunStep is made through RunStep.of() or RunStep.fromPayload()');
    if (typeof fields !== 'object' || fields === null) throw new RunStepError('kind', 'RunStep fields must be an object');
    const checked = checkStepFields(fields);
    if (!('data' in checked)) throw new RunStepError(checked.field, checked.message);
    const self = this as unknown as Record<RunStepKey, unknown>;
    assignFields(self, checked.data as unknown as Readonly<Record<RunStepKey, unknown>>);
    self.durationMs = toHundredths(this.durationMs);

    // The rules between fields (see the class remarks); each field's own rule is the schema's.
    const kind = this.kind;
    let isError = this.toolIsError;
    let outcome = this.toolOutcome;
    if (outcome !== undefined && kind !== RunStepKind.TOOL) {
      throw new RunStepError('toolOutcome', `RunStep.toolOutcome must not be set on a "${kind}" step, got ${show(outcome)}`);
    }
    if (outcome !== undefined && isError !== undefined && isError !== (outcome !== ToolOutcome.OK)) {
      throw new RunStepError(
        'toolIsError',
        `RunStep.toolIsError ${isError} contradicts RunStep.toolOutcome ${show(outcome)}: toolIsError must be ${outcome !== ToolOutcome.OK} for that outcome`,
      );
    }
    if (kind === RunStepKind.TOOL) {
      if (outcome !== undefined) isError = outcome !== ToolOutcome.OK;
      else if (isError !== undefined) outcome = isError ? ToolOutcome.FAILED : ToolOutcome.OK;
    }
    self.toolIsError = isError;
    self.toolOutcome = outcome;
    const cause = this.toolFailureCause;
    if (cause !== undefined && outcome !== ToolOutcome.FAILED) {
      throw new RunStepError(
        'toolFailureCause',
        `RunStep.toolFailureCause must be set only when RunStep.toolOutcome is "failed", got ${show(cause)} on ${show(outcome)}`,
      );
    }
    const facts = this.toolFailureFacts;
    if (facts !== undefined && outcome !== ToolOutcome.FAILED) {
      throw new RunStepError(
        'toolFailureFacts',
        `RunStep.toolFailureFacts must be set only when RunStep.toolOutcome is "failed", got facts on ${show(outcome)}`,
      );
    }
    const writes = this.toolWrites;
    if (writes !== undefined && kind !== RunStepKind.TOOL && kind !== RunStepKind.TOOL_START) {
      throw new RunStepError('toolWrites', `RunStep.toolWrites must not be set on a "${kind}" step, got ${show(writes)}`);
    }
    const callId = this.toolCallId;
    if (callId !== undefined && kind !== RunStepKind.TOOL && kind !== RunStepKind.TOOL_START) {
      throw new RunStepError('toolCallId', `RunStep.toolCallId must not be set on a "${kind}" step, got ${show(callId)}`);
    }
    const sends = this.toolSends;
    if (sends !== undefined && kind !== RunStepKind.TOOL) {
      throw new RunStepError('toolSends', `RunStep.toolSends must not be set on a "${kind}" step, got ${show(sends)}`);
    }
    const approval = this.toolApproval;
    if (approval !== undefined && kind !== RunStepKind.TOOL) {
      throw new RunStepError('toolApproval', `RunStep.toolApproval must not be set on a "${kind}" step, got an object`);
    }
    if (approval !== undefined && !approval.approved && outcome !== ToolOutcome.FAILED) {
      throw new RunStepError(
        'toolApproval',
        `RunStep.toolApproval.approved must be true when RunStep.toolOutcome is ${show(outcome)}: a refused call is not sent, so its step is "failed"`,
      );
    }
    const target = this.toolWriteTarget;
    if (kind === RunStepKind.TOOL_START) {
      if (callId === undefined) throw new RunStepError('toolCallId', 'RunStep.toolCallId must be set on a "tool_start" step');
      if (this.toolName === undefined) throw new RunStepError('toolName', 'RunStep.toolName must be set on a "tool_start" step');
      if (isError !== undefined)
        throw new RunStepError(
          'toolIsError',
          `RunStep.toolIsError must not be set on a "tool_start" step: the call has no outcome yet, got ${show(isError)}`,
        );
      if (this.toolResult !== undefined || this.toolArtifacts !== undefined || target !== undefined) {
        throw new RunStepError(
          'toolResult',
          'RunStep.toolResult, toolArtifacts and toolWriteTarget must not be set on a "tool_start" step: the call has no answer yet',
        );
      }
    }
    if (outcome !== undefined && outcome !== ToolOutcome.OK) {
      if (this.toolArtifacts !== undefined && this.toolArtifacts.length > 0) {
        throw new RunStepError(
          'toolArtifacts',
          `RunStep.toolArtifacts must be empty when RunStep.toolOutcome is ${show(outcome)}: a call that did not end ok is fail-closed`,
        );
      }
      if (target !== undefined) {
        throw new RunStepError(
          'toolWriteTarget',
          `RunStep.toolWriteTarget must not be set when RunStep.toolOutcome is ${show(outcome)}: a call that did not end ok is fail-closed`,
        );
      }
    }
    Object.freeze(this);
  }

  /**
   * Makes a step from its fields.
   *
   * @throws RunStepError from `RunStep.of` when a field breaks a rule; the message names the
   * field, its value and the rule (both fields, when two disagree).
   */
  static of(fields: RunStepFields): RunStep {
    return new RunStep(CONSTRUCT, fields);
  }

  /**
   * Reads a stored payload (an object, or its JSON text) back into a step.
   *
   * @remarks
   * Tolerant of what older versions wrote: unknown keys are ignored, `null` reads as not set,
   * and a tool step without `toolOutcome` reads its outcome from `toolIsError` (true →
   * `failed`, false → `ok`). Anything else malformed is refused whole — never a half-built step.
   *
   * @throws RunStepReadError from `RunStep.fromPayload` naming the path of the first bad value.
   */
  static fromPayload(payload: unknown): RunStep {
    return readRunStepPayload(payload, (fields) => new RunStep(CONSTRUCT, fields));
  }

  /** Tells whether a value is a RunStep, also one made by another copy of this package. */
  static is(value: unknown): value is RunStep {
    return BRAND.is(value);
  }

  static [Symbol.hasInstance](value: unknown): boolean {
    return BRAND.hasInstance(this, value);
  }

  static {
    // the brand lives on the prototype: every step carries it without a per-instance property
    BRAND.mark(RunStep.prototype);
  }

  /**
   * The step as a plain payload: keys in a fixed order, each optional key present only when
   * set (zero, false, empty strings and empty arrays are kept), the outcome as its
   * `ToolOutcome` string, artifacts and write target as plain objects.
   */
  toPayload(): RunStepPayload {
    return payloadOf(this, undefined) as unknown as RunStepPayload;
  }

  /** The same as {@link RunStep.toPayload}, for `JSON.stringify`. */
  toJSON(): RunStepPayload {
    return this.toPayload();
  }
}

/** How {@link RunStep.toPayload} copies a key's value, by key: the ones not listed are kept as they are. */
const PAYLOAD_COPIES: ReadonlyMap<RunStepKey, (value: never) => unknown> = new Map<RunStepKey, (value: never) => unknown>([
  ['toolArtifacts', (value: readonly ToolArtifact[]) => value.map((a) => a.toJSON())],
  ['toolWriteTarget', (value: WriteTarget) => value.toJSON()],
  ['messages', (value: readonly object[]) => value.map((v) => ({ ...v }))],
  ['requestedToolCalls', (value: readonly object[]) => value.map((v) => ({ ...v }))],
  ['droppedSources', (value: readonly string[]) => [...value]],
  ['toolFailureFacts', (value: ToolFailureFacts) => ({ ...value })],
  ['toolApproval', (value: ToolApproval) => ({ ...value })],
]);
/** {@link PAYLOAD_COPIES} in the order of RUN_STEP_KEYS (null: kept as it is), read by index on every step. */
const COPY_AT: readonly (((value: never) => unknown) | null)[] = RUN_STEP_KEYS.map((key) => PAYLOAD_COPIES.get(key) ?? null);

/**
 * A step's payload (see {@link RunStep.toPayload}), each key whose value is set in order; a key in
 * `content` is written by its function instead (the privacy filter's `metadata` sizes: made from the
 * step's own value, which measures as its payload copy does, without making the copy).
 *
 * @internal
 */
export function payloadOf(
  step: RunStep,
  content: ReadonlyMap<string, (value: unknown, out: Record<string, unknown>) => void> | undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const fields = step as unknown as Readonly<Record<RunStepKey, unknown>>;
  for (let i = 0; i < RUN_STEP_KEYS.length; i++) {
    const key = RUN_STEP_KEYS[i]!;
    const value = fields[key];
    if (value === undefined) continue;
    const replace = content?.get(key);
    if (replace !== undefined) {
      replace(value, out);
      continue;
    }
    const copy = COPY_AT[i]!;
    out[key] = copy === null ? value : copy(value as never);
  }
  return out;
}

/**
 * Sets every field of a new step from its checked data, as `settled` keeps each value: one named
 * store and load per field, made from RUN_STEP_KEYS when the module loads. (A loop over the keys
 * makes every load and store a keyed one, which V8 does not specialise: the constructor took a third
 * longer, and the recording of a step 20 % more CPU, measured with trace/bench/record.bench.mjs.) Where
 * code may not be made from strings, the same loop.
 */
type AssignFields = (self: Record<RunStepKey, unknown>, data: Readonly<Record<RunStepKey, unknown>>) => void;
const assignFields = ((): AssignFields => {
  for (const key of RUN_STEP_KEYS) if (!/^[A-Za-z]\w*$/.test(key)) throw new Error(`RunStep field ${key} is not an identifier`);
  const body = RUN_STEP_KEYS.map((key) => `self.${key} = settled('${key}', data.${key});`).join('\n');
  try {
    return new Function('settled', `return function assignFields(self, data) {\n${body}\n};`)(settled) as AssignFields;
  } catch {
    // where code is not made from strings (an edge runtime, node --disallow-code-generation-from-strings): the loop
    return (self, data) => {
      for (const key of RUN_STEP_KEYS) self[key] = settled(key, data[key]);
    };
  }
})();

const EMPTY: readonly never[] = Object.freeze([]);

/** A checked value as the step keeps it: `null` as not set, −0 as 0, lists frozen (one shared empty list). */
function settled(key: RunStepKey, value: unknown): unknown {
  if (value === null || value === undefined) return undefined;
  if (key === 'raw' || key === 'toolArguments') return value;
  if (typeof value === 'number') return value + 0;
  if (!Array.isArray(value)) return value;
  if (value.length === 0) return EMPTY;
  for (const item of value) if (typeof item === 'object' && item !== null) Object.freeze(item);
  return Object.freeze(value);
}

/**
 * A duration rounded to hundredths of a millisecond, the same again when rounded twice (a step read
 * back must equal the step written). `Math.round(x * 100) / 100` is exact enough below 2^33 ms and
 * fast; above it `x * 100` loses the digit being rounded (40393828915167.02, already in hundredths,
 * rounded to .03), so large values round through their decimal text. `+ 0` turns -0 into 0.
 */
function toHundredths(ms: number): number {
  return (ms < 2 ** 33 ? Math.round(ms * 100) / 100 : Number(ms.toFixed(2))) + 0;
}
