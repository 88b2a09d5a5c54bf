import { isToolFailureCause, ToolArtifact, WriteTarget } from '@runledger/core';
import { z } from 'zod';
import type { RunStep, RunStepFields } from './RunStep.js';
import { RunStepError } from './RunStepError.js';
import { RunStepReadError } from './RunStepReadError.js';
import { RUN_STEP_KINDS } from './RunStepKind.js';

const text = z.string().nullish();
const tokens = z.number().int().min(0).nullish();

/** The stored payload shape; unknown keys are dropped, `null` means not set. */
const PayloadSchema = z.object({
  kind: z.enum(RUN_STEP_KINDS as [string, ...string[]]),
  round: z.number().int().min(0),
  durationMs: z.number().min(0),
  model: text,
  content: text,
  thinking: text,
  messages: z.array(z.object({ role: z.string(), content: z.string() })).nullish(),
  finishReason: text,
  promptTokens: tokens,
  completionTokens: tokens,
  costUsd: z.number().min(0).nullish(),
  requestedToolCalls: z
    .array(z.object({ id: z.string().nullish(), name: z.string(), arguments: z.record(z.string(), z.unknown()) }))
    .nullish(),
  raw: z.unknown().optional(),
  tokenBudget: tokens,
  tokensUsed: tokens,
  droppedSources: z.array(z.string()).nullish(),
  toolName: text,
  toolServer: text,
  toolArguments: z.record(z.string(), z.unknown()).nullish(),
  toolResult: text,
  toolIsError: z.boolean().nullish(),
  toolOutcome: z.enum(['ok', 'failed', 'cancelled']).nullish(),
  // A cause this version does not know (written by a newer one) reads as not recorded ("unknown").
  toolFailureCause: z.unknown().transform((value) => (isToolFailureCause(value) ? value : undefined)).optional(),
  toolArtifacts: z.array(z.object({ type: z.enum(['table', 'text']), label: z.string(), data: z.unknown() })).nullish(),
  toolWriteTarget: z
    .object({ resource: z.string().min(1), id: z.string().min(1), kind: z.enum(['created', 'changed', 'deleted']) })
    .nullish(),
  toolWrites: z.boolean().nullish(),
  toolCallId: text,
});

/**
 * Reads a stored payload into step fields and hands them to `build`; every failure becomes a
 * RunStepReadError naming the path.
 *
 * @internal
 */
export function readRunStepPayload(payload: unknown, build: (fields: RunStepFields) => RunStep): RunStep {
  let value = payload;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value) as unknown;
    } catch (error) {
      throw new RunStepReadError([], `it is not JSON (${error instanceof Error ? error.message : String(error)})`, error);
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new RunStepReadError([], `it must be an object, got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}`);
  }
  const parsed = PayloadSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new RunStepReadError(issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p)), issue.message);
  }
  const data = parsed.data;
  try {
    const fields: RunStepFields = {
      ...data,
      kind: data.kind as RunStepFields['kind'],
      requestedToolCalls: data.requestedToolCalls?.map((call) =>
        call.id === undefined || call.id === null ? { name: call.name, arguments: call.arguments } : { id: call.id, name: call.name, arguments: call.arguments },
      ),
      toolArtifacts: data.toolArtifacts?.map((a) => ToolArtifact.of(a.type, a.label, a.data)),
      toolWriteTarget: data.toolWriteTarget ? WriteTarget.of(data.toolWriteTarget.resource, data.toolWriteTarget.id, data.toolWriteTarget.kind) : data.toolWriteTarget,
    };
    return build(fields);
  } catch (error) {
    if (RunStepError.is(error)) throw new RunStepReadError([error.field], error.message, error);
    throw new RunStepReadError([], error instanceof Error ? error.message : String(error), error);
  }
}
