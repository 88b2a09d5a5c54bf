// The fast path of RunStep.of for the step recorded most: a well-formed `tool` step as
// RunTrace's one tool builder makes it. It only ever accepts: fields it accepts are fields the
// schema (RunStepFieldsSchema) accepts, and it gives the same data (a fresh list for artifacts,
// the other values as they are). Anything it is not certain of — another kind, a field outside
// its set, a value near a rule's edge, failure facts — it leaves to the schema, which then
// accepts or refuses as always, with its own error. So the accept/refuse rule and every error
// message stay the schema's (RunStep.fastPath.test.ts proves the verdicts equal on generated input).
import { TOOL_FAILURE_CAUSES, TOOL_OUTCOMES, ToolArtifact, WriteTarget } from '@runledger/core';
import { MAX_DURATION_MS, MAX_INT32 } from './numericLimits.js';
import { RunStepKind } from './RunStepKind.js';
import { wellFormedToolApproval } from './ToolApproval.js';
import {
  checkRunStepFields,
  MAX_CALL_ID_LENGTH,
  MAX_TOOL_SENDS,
  RUN_STEP_KEYS,
  type RunStepData,
  type RunStepKey,
} from './RunStepSchema.js';

const OUTCOMES: ReadonlySet<unknown> = new Set(TOOL_OUTCOMES);
const CAUSES: ReadonlySet<unknown> = new Set(TOOL_FAILURE_CAUSES);

/** The fields the fast path reads; every other schema field must be absent (undefined). */
const TOOL_KEYS: ReadonlySet<RunStepKey> = new Set<RunStepKey>([
  'kind',
  'round',
  'durationMs',
  'toolName',
  'toolServer',
  'toolArguments',
  'toolResult',
  'toolIsError',
  'toolOutcome',
  'toolFailureCause',
  'toolFailureFacts',
  'toolArtifacts',
  'toolWriteTarget',
  'toolWrites',
  'toolCallId',
  'toolSends',
  'toolApproval',
]);
const OTHER_KEYS: readonly RunStepKey[] = Object.freeze(RUN_STEP_KEYS.filter((key) => !TOOL_KEYS.has(key)));

const nullish = (value: unknown): value is null | undefined => value === undefined || value === null;
const optionalString = (value: unknown): boolean => nullish(value) || typeof value === 'string';
const optionalBoolean = (value: unknown): boolean => nullish(value) || typeof value === 'boolean';

/**
 * What `RunStep.of` checks fields with: {@link checkRunStepFields}'s verdict, the same data and the
 * same error, sooner for a well-formed tool step.
 */
export function checkStepFields(fields: object): ReturnType<typeof checkRunStepFields> {
  const fast = fastToolStepData(fields);
  return fast === undefined ? checkRunStepFields(fields) : { data: fast };
}

/**
 * The checked data of a well-formed tool step, or undefined when the schema must decide. Each
 * field is read once.
 */
export function fastToolStepData(fields: object): RunStepData | undefined {
  const input = fields as Readonly<Record<RunStepKey, unknown>>;
  if (Array.isArray(input) || input.kind !== RunStepKind.TOOL) return undefined;
  for (const key of OTHER_KEYS) if (input[key] !== undefined) return undefined;
  const round = input.round;
  // Number.isInteger(round) && ≤ MAX_INT32: a safe integer, as the schema's .int() wants
  if (typeof round !== 'number' || !Number.isInteger(round) || round < 0 || round > MAX_INT32) return undefined;
  const durationMs = input.durationMs;
  if (typeof durationMs !== 'number' || !(durationMs >= 0 && durationMs <= MAX_DURATION_MS)) return undefined;
  const toolName = input.toolName;
  const toolServer = input.toolServer;
  const toolResult = input.toolResult;
  if (!optionalString(toolName) || !optionalString(toolServer) || !optionalString(toolResult)) return undefined;
  const toolArguments = input.toolArguments;
  if (!nullish(toolArguments) && (typeof toolArguments !== 'object' || Array.isArray(toolArguments))) return undefined;
  const toolIsError = input.toolIsError;
  const toolWrites = input.toolWrites;
  if (!optionalBoolean(toolIsError) || !optionalBoolean(toolWrites)) return undefined;
  const toolOutcome = input.toolOutcome;
  if (!nullish(toolOutcome) && !OUTCOMES.has(toolOutcome)) return undefined;
  const toolFailureCause = input.toolFailureCause;
  if (!nullish(toolFailureCause) && !CAUSES.has(toolFailureCause)) return undefined;
  const toolFailureFacts = input.toolFailureFacts;
  if (!nullish(toolFailureFacts)) return undefined;
  const artifacts = input.toolArtifacts;
  let toolArtifacts: ToolArtifact[] | null | undefined;
  if (nullish(artifacts)) toolArtifacts = artifacts;
  else {
    if (!Array.isArray(artifacts)) return undefined;
    // the schema's list is a fresh one: the step freezes its own, never the caller's
    toolArtifacts = new Array<ToolArtifact>(artifacts.length);
    for (let i = 0; i < artifacts.length; i++) {
      const artifact: unknown = artifacts[i];
      if (!(artifact instanceof ToolArtifact)) return undefined;
      toolArtifacts[i] = artifact;
    }
  }
  const toolWriteTarget = input.toolWriteTarget;
  if (!nullish(toolWriteTarget) && !(toolWriteTarget instanceof WriteTarget)) return undefined;
  const toolCallId = input.toolCallId;
  if (!nullish(toolCallId) && (typeof toolCallId !== 'string' || toolCallId.length < 1 || toolCallId.length > MAX_CALL_ID_LENGTH)) {
    return undefined;
  }
  const toolSends = input.toolSends;
  if (
    !nullish(toolSends) &&
    (typeof toolSends !== 'number' || !Number.isInteger(toolSends) || toolSends < 0 || toolSends > MAX_TOOL_SENDS)
  ) {
    return undefined;
  }
  const approval = input.toolApproval;
  let toolApproval: ReturnType<typeof wellFormedToolApproval> | null;
  if (nullish(approval)) toolApproval = approval;
  else {
    toolApproval = wellFormedToolApproval(approval);
    if (toolApproval === undefined) return undefined;
  }
  return {
    kind: RunStepKind.TOOL,
    round,
    durationMs,
    toolName,
    toolServer,
    toolArguments,
    toolResult,
    toolIsError,
    toolOutcome,
    toolFailureCause,
    toolFailureFacts,
    toolArtifacts,
    toolWriteTarget,
    toolWrites,
    toolCallId,
    toolSends,
    toolApproval,
  } as RunStepData;
}
