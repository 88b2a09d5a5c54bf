import { type Attributes, type HrTime, SpanKind, type SpanStatus, SpanStatusCode } from '@opentelemetry/api';
import { isToolFailureCause, ToolOutcome } from '@runledger/core';
import {
  applyPrivacy,
  isLateCancel,
  PrivacyLevel,
  redactText,
  RunStatus,
  RUN_STEP_CONTENT_KEYS,
  RunStepKind,
  stepOutcome,
  type StoredCancelRequest,
  type StoredRun,
} from '@runledger/trace';
import { Attr, EventName, Operation, OTHER_ERROR, ToolType } from './attributes.js';
import { providerName } from './providerName.js';
import { hrTimeOf } from './hrTimeOf.js';

/** One stored step as the mapping reads it (a step being appended, or one read back), without its sequence. */
export interface StepFields {
  readonly kind: string;
  readonly round: number;
  readonly durationMs: number;
  readonly createdAt: number;
  /** The stored payload, or null when it cannot be read. */
  readonly payload: Readonly<Record<string, unknown>> | null;
}

/** A step with its sequence. */
export interface StepRecord extends StepFields {
  readonly sequence: number;
}

/** A step that becomes a child span of the run's span. */
export interface SpanPlan {
  readonly type: 'span';
  readonly name: string;
  readonly kind: SpanKind;
  readonly start: HrTime;
  readonly end: HrTime;
  readonly attributes: Attributes;
  readonly status: SpanStatus | null;
}

/** A step that becomes an event of the run's span. */
export interface EventPlan {
  readonly type: 'event';
  readonly name: string;
  readonly time: HrTime;
  readonly attributes: Attributes;
}

/** A `tool_start` step: no span; remembered until its call's `tool` step arrives. */
export interface CallStartPlan {
  readonly type: 'call_start';
  readonly callId: string;
  readonly event: EventPlan;
}

export type StepPlan = SpanPlan | EventPlan | CallStartPlan;

/** What a privacy level lets through: the texts (masked below `full`), or names and sizes only. */
function showsText(level: PrivacyLevel): boolean {
  return level === PrivacyLevel.REDACTED || level === PrivacyLevel.FULL;
}

/** A free text of the run (actor, termination reason) as the level shows it; null: not at all. */
function runText(text: string | null, level: PrivacyLevel, max: number): string | null {
  if (text === null || text === '' || level === PrivacyLevel.NONE) return null;
  return level === PrivacyLevel.FULL ? (text.length > max ? text.slice(0, max) : text) : redactText(text, max);
}

/** Whether a payload holds a content field (the step schema's content flag): only then does the metadata filter change it. */
function hasContent(payload: Readonly<Record<string, unknown>>): boolean {
  for (const key of RUN_STEP_CONTENT_KEYS) if (payload[key] !== undefined) return true;
  return false;
}

/** A payload's string field, or undefined when it is not a non-empty string. */
export const str = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
const num = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

/** The root span's name and its attributes at the start. */
export function rootStart(run: StoredRun, level: PrivacyLevel): { name: string; start: HrTime; attributes: Attributes } {
  const attributes: Attributes = {
    [Attr.OPERATION]: Operation.INVOKE_AGENT,
    [Attr.AGENT_NAME]: run.configuration,
    [Attr.RUN_ID]: run.id,
  };
  const actor = runText(run.actor, level, 200);
  if (actor !== null) attributes[Attr.RUN_ACTOR] = actor;
  return { name: `${Operation.INVOKE_AGENT} ${run.configuration}`, start: hrTimeOf(run.startedAt ?? run.createdAt), attributes };
}

/** Who asked for the cancel, from where (metadata) and why: the texts at the privacy level, as the run's actor is. */
function cancelAttributes(request: StoredCancelRequest | null, level: PrivacyLevel): Attributes {
  if (request === null) return {};
  const attributes: Attributes = { [Attr.CANCEL_FROM]: request.from };
  const by = runText(request.by, level, 200);
  if (by !== null) attributes[Attr.CANCEL_BY] = by;
  const reason = runText(request.reason, level, 500);
  if (reason !== null) attributes[Attr.CANCEL_REASON] = reason;
  return attributes;
}

/** The run's lifecycle event at its start. */
export function startedEvent(run: StoredRun): EventPlan {
  return { type: 'event', name: `${EventName.RUN_PREFIX}started`, time: hrTimeOf(run.startedAt ?? run.createdAt), attributes: {} };
}

/** What the root span gets when the run's final status is known. */
export function rootEnd(
  run: StoredRun,
  level: PrivacyLevel,
): { attributes: Attributes; status: SpanStatus; events: EventPlan[]; end: HrTime } {
  const finishedAt = run.finishedAt ?? run.startedAt ?? run.createdAt;
  const counts = run.outcomeCounts;
  const attributes: Attributes = {
    [Attr.RUN_STATUS]: run.status,
    [Attr.RUN_OK]: counts.ok,
    [Attr.RUN_FAILED]: counts.failed,
    [Attr.RUN_CANCELLED]: counts.cancelled,
  };
  if ((run.unstoredSteps ?? 0) > 0) attributes[Attr.RUN_UNSTORED] = run.unstoredSteps!;
  const reason = runText(run.terminationReason, level, 500);
  // a completed run is a success: UNSET, as the GenAI conventions leave it (only a failure sets a status)
  let status: SpanStatus;
  if (run.status === RunStatus.FAILED || run.status === RunStatus.INTERRUPTED) {
    attributes[Attr.ERROR_TYPE] = run.status;
    status = reason === null ? { code: SpanStatusCode.ERROR } : { code: SpanStatusCode.ERROR, message: reason };
  } else status = { code: SpanStatusCode.UNSET };
  const events: EventPlan[] = [];
  if (run.cancelRequestedAt !== null && !isLateCancel(run)) {
    events.push({
      type: 'event',
      name: `${EventName.RUN_PREFIX}cancel_requested`,
      time: hrTimeOf(run.cancelRequestedAt),
      attributes: cancelAttributes(run.cancelRequest ?? null, level),
    });
  }
  events.push({
    type: 'event',
    name: `${EventName.RUN_PREFIX}${run.status}`,
    time: hrTimeOf(finishedAt),
    attributes: reason === null ? {} : { [Attr.RUN_REASON]: reason },
  });
  return { attributes, status, events, end: hrTimeOf(finishedAt) };
}

/**
 * The `execute_tool` span of a started call, opened before its `tool` step arrives (live export,
 * when the MCP instrumentation claims it): its name and the attributes its `tool_start` step gives.
 */
export function startedCallSpan(start: EventPlan): { name: string; attributes: Attributes } {
  const name = start.attributes[Attr.TOOL_NAME];
  const attributes: Attributes = { [Attr.OPERATION]: Operation.EXECUTE_TOOL };
  for (const key of [Attr.TOOL_NAME, Attr.TOOL_CALL_ID, Attr.TOOL_SERVER] as const) {
    if (start.attributes[key] !== undefined) attributes[key] = start.attributes[key];
  }
  attributes[Attr.TOOL_TYPE] = start.attributes[Attr.TOOL_SERVER] === undefined ? ToolType.FUNCTION : ToolType.EXTENSION;
  return { name: spanName(Operation.EXECUTE_TOOL, typeof name === 'string' ? name : undefined), attributes };
}

/** The event of a started call that never ended (the run ended without its `tool` step). */
export function interruptedCall(start: EventPlan): EventPlan {
  return { ...start, name: EventName.INTERRUPTED_CALL };
}

/**
 * Maps one stored step to its span or event (docs/otel.md, "The mapping"), after the privacy
 * level was applied to its payload.
 */
export function planStep(step: StepRecord, level: PrivacyLevel): StepPlan {
  return planStepAt(step.sequence, step, level);
}

/** {@link planStep} with the sequence apart (the live path passes the store's input as it is). */
export function planStepAt(sequence: number, step: StepFields, level: PrivacyLevel): StepPlan {
  if (step.payload === null) {
    return {
      type: 'event',
      name: EventName.UNREADABLE,
      time: hrTimeOf(step.createdAt),
      attributes: { [Attr.SEQUENCE]: sequence, [Attr.ROUND]: step.round, [Attr.STEP_KIND]: step.kind },
    };
  }
  // a payload stored at `metadata` (the default) holds no content key: the filter would copy it unchanged
  const p =
    level === PrivacyLevel.METADATA && !hasContent(step.payload)
      ? (step.payload as Record<string, unknown>)
      : applyPrivacy(step.payload, level);
  const text = showsText(level);
  // spans carry the sequence only (each attribute costs the SDK a validation); events the round too
  if (step.kind === RunStepKind.TOOL) return toolSpan(step, p, { [Attr.SEQUENCE]: sequence }, text);
  if (step.kind === RunStepKind.LLM) return chatSpan(step, p, { [Attr.SEQUENCE]: sequence }, text);
  const time = hrTimeOf(step.createdAt);
  const common: Attributes = { [Attr.SEQUENCE]: sequence, [Attr.ROUND]: step.round };
  switch (step.kind) {
    case RunStepKind.TOOL_START: {
      const attributes: Attributes = { ...common };
      const name = str(p['toolName']);
      if (name !== undefined) attributes[Attr.TOOL_NAME] = name;
      const callId = str(p['toolCallId']);
      if (callId !== undefined) attributes[Attr.TOOL_CALL_ID] = callId;
      const server = str(p['toolServer']);
      if (server !== undefined) attributes[Attr.TOOL_SERVER] = server;
      const event: EventPlan = { type: 'event', name: EventName.INTERRUPTED_CALL, time, attributes };
      return callId === undefined ? event : { type: 'call_start', callId, event };
    }
    case RunStepKind.REQUEST: {
      const content = str(p['content']);
      const length = num(p['contentLength']);
      if (text && content !== undefined)
        common[Attr.INPUT_MESSAGES] = JSON.stringify([{ role: 'user', parts: [{ type: 'text', content }] }]);
      else if (length !== undefined) common[Attr.CONTENT_LENGTH] = length;
      return { type: 'event', name: EventName.REQUEST, time, attributes: common };
    }
    case RunStepKind.CONTEXT: {
      const budget = num(p['tokenBudget']);
      const used = num(p['tokensUsed']);
      if (budget !== undefined) common[Attr.TOKEN_BUDGET] = budget;
      if (used !== undefined) common[Attr.TOKENS_USED] = used;
      return { type: 'event', name: EventName.BUDGET, time, attributes: common };
    }
    case RunStepKind.DROPPED: {
      const sources = p['droppedSources'];
      if (Array.isArray(sources)) common[Attr.DROPPED_SOURCES] = sources.filter((s): s is string => typeof s === 'string');
      return { type: 'event', name: EventName.DROPPED, time, attributes: common };
    }
    case RunStepKind.ASSEMBLED: {
      const messages = p['messages'];
      const count = Array.isArray(messages) ? messages.length : num(p['messageCount']);
      if (count !== undefined) common[Attr.MESSAGE_COUNT] = count;
      return { type: 'event', name: EventName.ASSEMBLED, time, attributes: common };
    }
    default:
      return { type: 'event', name: EventName.STEP, time, attributes: { ...common, [Attr.STEP_KIND]: step.kind } };
  }
}

/** Span names by operation, then tool or model name, kept for the first names seen (a run uses a few). */
const NAMES = new Map<string, Map<string, string>>();
const MAX_NAMES = 1000;

function spanName(operation: string, name: string | undefined): string {
  if (name === undefined) return operation;
  let names = NAMES.get(operation);
  if (names === undefined) NAMES.set(operation, (names = new Map()));
  let named = names.get(name);
  if (named === undefined) {
    named = `${operation} ${name}`;
    if (names.size < MAX_NAMES) names.set(name, named);
  }
  return named;
}

const UNSET_STATUS: SpanStatus = Object.freeze({ code: SpanStatusCode.UNSET });
/** The ERROR status of each failure cause (a closed vocabulary, so a few objects). */
const ERROR_STATUS = new Map<string, SpanStatus>();

function errorStatus(cause: string): SpanStatus {
  let status = ERROR_STATUS.get(cause);
  if (status === undefined) ERROR_STATUS.set(cause, (status = Object.freeze({ code: SpanStatusCode.ERROR, message: cause })));
  return status;
}

/** The `error.type` of a failed call's payload: its recorded failure cause, else `_OTHER`. */
export function errorTypeOf(p: Readonly<Record<string, unknown>>): string {
  const cause = p['toolFailureCause'];
  return isToolFailureCause(cause) ? cause : OTHER_ERROR;
}

function toolSpan(step: StepFields, p: Record<string, unknown>, attributes: Attributes, text: boolean): SpanPlan {
  const name = str(p['toolName']);
  attributes[Attr.OPERATION] = Operation.EXECUTE_TOOL;
  if (name !== undefined) attributes[Attr.TOOL_NAME] = name;
  const callId = str(p['toolCallId']);
  if (callId !== undefined) attributes[Attr.TOOL_CALL_ID] = callId;
  const server = str(p['toolServer']);
  if (server !== undefined) attributes[Attr.TOOL_SERVER] = server;
  attributes[Attr.TOOL_TYPE] = server === undefined ? ToolType.FUNCTION : ToolType.EXTENSION;
  const outcome = stepOutcome(p);
  let status: SpanStatus | null = null;
  if (outcome !== '') {
    attributes[Attr.TOOL_OUTCOME] = outcome;
    // ok and cancelled leave the status UNSET (the conventions set none on success; a cancel is no verdict)
    if (outcome === ToolOutcome.FAILED) {
      const cause = errorTypeOf(p);
      attributes[Attr.ERROR_TYPE] = cause;
      status = errorStatus(cause);
    } else status = UNSET_STATUS;
  }
  if (p['toolWrites'] === true) attributes[Attr.TOOL_WRITES] = true;
  const args = p['toolArguments'];
  const result = p['toolResult'];
  if (text && typeof args === 'object' && args !== null) attributes[Attr.TOOL_ARGUMENTS] = JSON.stringify(args);
  if (text && typeof result === 'string') attributes[Attr.TOOL_RESULT] = result;
  return {
    type: 'span',
    name: spanName(Operation.EXECUTE_TOOL, name),
    kind: SpanKind.INTERNAL,
    start: hrTimeOf(step.createdAt, step.durationMs),
    end: hrTimeOf(step.createdAt),
    attributes,
    status,
  };
}

function chatSpan(step: StepFields, p: Record<string, unknown>, attributes: Attributes, text: boolean): SpanPlan {
  const model = str(p['model']);
  attributes[Attr.OPERATION] = Operation.CHAT;
  attributes[Attr.PROVIDER] = providerName(p['provider']);
  if (model !== undefined) attributes[Attr.MODEL] = model;
  const input = num(p['promptTokens']);
  if (input !== undefined) attributes[Attr.INPUT_TOKENS] = input;
  const output = num(p['completionTokens']);
  if (output !== undefined) attributes[Attr.OUTPUT_TOKENS] = output;
  const finish = str(p['finishReason']);
  if (finish !== undefined) attributes[Attr.FINISH_REASONS] = [finish];
  const cost = num(p['costUsd']);
  if (cost !== undefined) attributes[Attr.COST_USD] = cost;
  const requested = p['requestedToolCalls'];
  const names = Array.isArray(requested) ? requested.map((c: { name?: unknown }) => c?.name) : p['requestedToolNames'];
  if (Array.isArray(names)) attributes[Attr.REQUESTED_TOOLS] = names.filter((n): n is string => typeof n === 'string');
  const content = str(p['content']);
  if (text && content !== undefined) {
    attributes[Attr.OUTPUT_MESSAGES] = JSON.stringify([
      { role: 'assistant', parts: [{ type: 'text', content }], ...(finish === undefined ? {} : { finish_reason: finish }) },
    ]);
  }
  return {
    type: 'span',
    name: spanName(Operation.CHAT, model),
    kind: SpanKind.CLIENT,
    start: hrTimeOf(step.createdAt, step.durationMs),
    end: hrTimeOf(step.createdAt),
    attributes,
    status: null,
  };
}
