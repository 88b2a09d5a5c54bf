// The one schema of a step: every field, its rule and the message that names it. The payload key
// list, the step's field checks (RunStep.of) and the payload reader (readRunStepPayload) are all
// derived from it; the value lists come from @runledger/core and RunStepKind, never spelled here.
import {
  ArtifactType,
  TOOL_FAILURE_CAUSES,
  TOOL_OUTCOMES,
  ToolArtifact,
  type ToolFailureCause,
  type ToolOutcome,
  WriteKind,
  WriteTarget,
  isToolErrorClass,
  isToolFailureCause,
  type ToolFailureFacts,
} from '@runledger/core';
import { z } from 'zod';
import { MAX_DURATION_MS, MAX_INT32 } from './numericLimits.js';
import { RUN_STEP_KINDS, type RunStepKind } from './RunStepKind.js';
import { lineProblem } from '../text/lineRule.js';
import { MAX_APPROVAL_BY_LENGTH, MAX_APPROVAL_REASON_LENGTH, type ToolApproval } from './ToolApproval.js';

/** The longest `toolCallId`. */
export const MAX_CALL_ID_LENGTH = 200;

/** The most `toolSends` a step may state (as `ToolResult.sends`). */
export const MAX_TOOL_SENDS = 1000;

/** A value as a rule message shows it: strings quoted, objects by their kind only. */
export function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined) return String(value);
  return Array.isArray(value) ? 'an array' : typeof value;
}

/** `"a", "b" or "c"`. */
function orList(values: readonly string[]): string {
  const quoted = values.map((value) => JSON.stringify(value));
  return quoted.length < 2 ? (quoted[0] ?? '') : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)!}`;
}

/** A schema's error: `must be <rule>, got <value>` (the reader of the issue prefixes `RunStep.<path> `). */
function must(rule: string, showValue = true): { readonly error: (issue: { readonly input?: unknown }) => string } {
  return { error: (issue) => (showValue ? `must be ${rule}, got ${show(issue.input)}` : `must be ${rule}`) };
}

const isObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const text = z.string(must('a string')).nullish();
const flag = z.boolean(must('a boolean')).nullish();
const count = z
  .number(must(`an integer from 0 to ${Number.MAX_SAFE_INTEGER}`))
  .int()
  .min(0)
  .nullish();
const object = z.custom<Readonly<Record<string, unknown>>>(isObject, must('an object'));
const array = <T extends z.ZodType>(item: T) => z.array(item, must('an array')).nullish();

/** A measure of a content value: a number, or undefined when the value is not of the field's type. */
type Measure = (value: unknown) => number | undefined;

/**
 * The flag of a content field: prompts, answers, tool arguments and results, what the user or a
 * server said. Where content may not go (privacy level `metadata`, the timeline, OpenTelemetry
 * spans below `redacted`), each of its `sizes` stands for it; `names` only where the privacy
 * filter keeps names (`metadata`).
 */
export interface RunStepContentFlag {
  readonly sizes: Readonly<Record<string, Measure>>;
  readonly names?: Readonly<Record<string, (value: unknown) => readonly string[]>>;
}

const contentFlags = z.registry<RunStepContentFlag>();

/** Flags a field of the schema as content (a copy of `schema`: the shared rules stay unflagged). */
function content<T extends z.ZodType>(schema: T, flag: RunStepContentFlag): T {
  const copy = schema.clone();
  contentFlags.add(copy, flag);
  return copy;
}

const textLength: Measure = (value) => (typeof value === 'string' ? value.length : undefined);
const arrayLength: Measure = (value) => (Array.isArray(value) ? value.length : undefined);
const keyCount: Measure = (value) => (isObject(value) ? Object.keys(value).length : undefined);
const jsonLength: Measure = (value) => {
  try {
    return JSON.stringify(value)?.length;
  } catch {
    return undefined;
  }
};
const toolNames = (value: unknown): readonly string[] =>
  Array.isArray(value) ? value.map((call: unknown) => (isObject(call) && typeof call['name'] === 'string' ? call['name'] : '')) : [];

/**
 * What the transport knew about why a call failed (`ToolResult.failureFacts`): each fact checked by
 * its rule, unknown keys dropped, frozen; no fact set reads as not set.
 */
const failureFacts = z
  .object(
    {
      jsonRpcCode: z.number(must('an integer')).int(must('an integer')).optional(),
      httpStatus: z
        .number(must('an integer from 100 to 599'))
        .int(must('an integer from 100 to 599'))
        .min(100, must('an integer from 100 to 599'))
        .max(599, must('an integer from 100 to 599'))
        .optional(),
      errorClass: z
        .string(must('1 to 64 letters, digits and "_ . : -" starting with a letter'))
        .refine(isToolErrorClass, must('1 to 64 letters, digits and "_ . : -" starting with a letter'))
        .optional(),
      serverIsError: z.boolean(must('a boolean')).optional(),
    },
    must('an object of failure facts'),
  )
  .transform((facts): ToolFailureFacts | undefined => {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(facts)) if (value !== undefined) out[key] = value;
    return Object.keys(out).length === 0 ? undefined : (Object.freeze(out) as ToolFailureFacts);
  });

/** A one-line text of 1 to `maxLength` characters without control characters, or null: the store's line rule. */
const line = (maxLength: number) =>
  z.unknown().superRefine((value, ctx) => {
    const problem = lineProblem(value, maxLength);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem, input: value });
  });

/** Who decided a call that needed approval (`ToolApproval`): frozen, unknown keys dropped, an absent line as null. */
const toolApproval = z
  .object(
    {
      approved: z.boolean(must('a boolean')),
      by: line(MAX_APPROVAL_BY_LENGTH).optional(),
      reason: line(MAX_APPROVAL_REASON_LENGTH).optional(),
    },
    must('an object { approved: boolean, by: string | null, reason: string | null }'),
  )
  .transform(({ approved, by, reason }): ToolApproval =>
    Object.freeze({ approved, by: (by as string | null | undefined) ?? null, reason: (reason as string | null | undefined) ?? null }),
  );

/**
 * Reads stored failure facts leniently: an object, or its JSON text, whose facts keep their rules;
 * anything else (malformed text, a fact that breaks its rule, no fact) reads as null.
 */
export function readFailureFacts(value: unknown): ToolFailureFacts | null {
  // no facts at all (most failed calls): null without a schema's failure, which builds its issues
  if (value === undefined || value === null) return null;
  let parsed = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      return null;
    }
  }
  const read = failureFacts.safeParse(parsed);
  return read.success ? (read.data ?? null) : null;
}

/**
 * A step as a stored payload (JSON): the fields in their fixed key order. `null` reads as not set;
 * unknown keys are dropped; artifacts and the write target are read into their core classes; a
 * failure cause this version does not know (written by a newer one) reads as not recorded, and so
 * do failure facts that break their rules.
 */
export const RunStepSchema = z.object({
  kind: z.enum(
    RUN_STEP_KINDS as [RunStepKind, ...RunStepKind[]],
    must(`one of ${RUN_STEP_KINDS.map((kind) => JSON.stringify(kind)).join(', ')}`),
  ),
  round: z
    .number({
      error: (issue) =>
        issue.input === undefined || issue.input === null
          ? 'must be set'
          : `must be an integer from 0 to ${MAX_INT32}, got ${show(issue.input)}`,
    })
    .int()
    .min(0)
    .max(MAX_INT32),
  durationMs: z
    .number(must(`a number of milliseconds from 0 to ${MAX_DURATION_MS}`))
    .min(0)
    .max(MAX_DURATION_MS),
  model: text,
  provider: text,
  content: content(text, { sizes: { contentLength: textLength } }),
  thinking: content(text, { sizes: { thinkingLength: textLength } }),
  messages: content(
    array(
      z.object({ role: z.string(must('a string')), content: z.string(must('a string')) }, must('{ role: string, content: string }', false)),
    ),
    { sizes: { messageCount: arrayLength } },
  ),
  finishReason: text,
  promptTokens: count,
  completionTokens: count,
  costUsd: z.number(must('a finite number ≥ 0')).min(0).nullish(),
  requestedToolCalls: content(
    array(
      z
        .object({ id: text, name: z.string(must('a string', false)), arguments: object }, must('an object'))
        .transform(({ id, name, arguments: args }): RunStepToolCallData =>
          id === undefined || id === null ? { name, arguments: args } : { id, name, arguments: args },
        ),
    ),
    { sizes: { requestedToolCallCount: arrayLength }, names: { requestedToolNames: toolNames } },
  ),
  raw: content(z.unknown().optional(), { sizes: { rawLength: jsonLength } }),
  tokenBudget: count,
  tokensUsed: count,
  droppedSources: array(z.string(must('a string'))),
  toolName: text,
  toolServer: text,
  toolArguments: content(object.nullish(), { sizes: { toolArgumentCount: keyCount } }),
  toolResult: content(text, { sizes: { toolResultLength: textLength } }),
  toolIsError: flag,
  toolOutcome: z.enum(TOOL_OUTCOMES as [ToolOutcome, ...ToolOutcome[]], must(orList(TOOL_OUTCOMES))).nullish(),
  toolFailureCause: z
    .unknown()
    .transform((value): ToolFailureCause | undefined => (isToolFailureCause(value) ? value : undefined))
    .optional(),
  toolFailureFacts: z
    .unknown()
    .transform((value): ToolFailureFacts | undefined => (typeof value === 'object' ? (readFailureFacts(value) ?? undefined) : undefined))
    .optional(),
  toolArtifacts: content(
    array(
      z
        .object({
          type: z.enum(Object.values(ArtifactType), must(orList(Object.values(ArtifactType)))),
          label: z.string(must('a string')),
          data: z.unknown(),
        })
        .transform((artifact) => ToolArtifact.of(artifact.type, artifact.label, artifact.data)),
    ),
    { sizes: { toolArtifactCount: arrayLength } },
  ),
  toolWriteTarget: z
    .object({
      resource: z.string(must('a non-empty string')).min(1),
      id: z.string(must('a non-empty string')).min(1),
      kind: z.enum(Object.values(WriteKind), must(orList(Object.values(WriteKind)))),
    })
    .transform((target) => WriteTarget.of(target.resource, target.id, target.kind))
    .nullish(),
  toolWrites: flag,
  toolCallId: z
    .string(must('a string'))
    .min(1, must(`1 to ${MAX_CALL_ID_LENGTH} characters`))
    .max(MAX_CALL_ID_LENGTH, must(`1 to ${MAX_CALL_ID_LENGTH} characters`))
    .nullish(),
  toolSends: z
    .number(must(`an integer from 0 to ${MAX_TOOL_SENDS}`))
    .int(must(`an integer from 0 to ${MAX_TOOL_SENDS}`))
    .min(0, must(`an integer from 0 to ${MAX_TOOL_SENDS}`))
    .max(MAX_TOOL_SENDS, must(`an integer from 0 to ${MAX_TOOL_SENDS}`))
    .nullish(),
  toolApproval: toolApproval.nullish(),
});

/**
 * The schema of the fields `RunStep.of` takes: the payload schema with the fields that hold core
 * values in memory (artifacts, write target) or must be known to this version (the cause, the
 * failure facts).
 */
export const RunStepFieldsSchema = RunStepSchema.extend({
  toolFailureCause: z.enum(TOOL_FAILURE_CAUSES as [ToolFailureCause, ...ToolFailureCause[]], must('a ToolFailureCause')).nullish(),
  toolFailureFacts: failureFacts.nullish(),
  toolArtifacts: array(z.custom<ToolArtifact>((value) => value instanceof ToolArtifact, must('a ToolArtifact', false))),
  toolWriteTarget: z.custom<WriteTarget>((value) => value instanceof WriteTarget, must('a WriteTarget', false)).nullish(),
});

/** A requested tool call as read: the id only when the LLM gave one. */
interface RunStepToolCallData {
  readonly id?: string;
  readonly name: string;
  readonly arguments: Readonly<Record<string, unknown>>;
}

/** A step's field names, in payload order. */
export type RunStepKey = keyof typeof RunStepSchema.shape;

/** Every payload key, in its fixed order: the schema's own. */
export const RUN_STEP_KEYS: readonly RunStepKey[] = Object.freeze(Object.keys(RunStepSchema.shape) as RunStepKey[]);

/** The content fields of a step, in payload order, each with its flag: read from the schema's flags. */
export const RUN_STEP_CONTENT: ReadonlyMap<RunStepKey, RunStepContentFlag> = new Map(
  RUN_STEP_KEYS.flatMap((key) => {
    const flag = contentFlags.get(RunStepSchema.shape[key]);
    return flag === undefined ? [] : [[key, flag] as const];
  }),
);

/** What the fields schema gives: each field checked, `null` still to be read as not set. */
export type RunStepData = z.output<typeof RunStepFieldsSchema>;

/**
 * Checks fields against the schema; the first issue becomes `RunStep.<path> must be …`, with the
 * top-level field it is under.
 */
export function checkRunStepFields(fields: unknown): { readonly data: RunStepData } | { readonly field: string; readonly message: string } {
  const parsed = RunStepFieldsSchema.safeParse(fields);
  if (parsed.success) return { data: parsed.data };
  const issue = parsed.error.issues[0]!;
  return { field: String(issue.path[0] ?? 'kind'), message: `RunStep.${formatPath(issue.path)} ${issue.message}` };
}

/** `a.b[0].c`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out;
}
