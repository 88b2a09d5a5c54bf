import { isToolErrorClass, isToolFailureCause } from '@runledger/core';
import { mayHaveExecuted } from '../step/mayHaveExecuted.js';
import { readStepOutcome } from '../step/readStepOutcome.js';
import { UNKNOWN_FAILURE_CAUSE } from '../health/ServerHealth.js';
import { RunStatus } from '../step/RunStatus.js';
import { RunStepKind } from '../step/RunStepKind.js';
import { RUN_STEP_CONTENT } from '../step/RunStepSchema.js';
import type { StoredRun, StoredStep } from '../store/RunStore.js';
import { RunCallState, RunLifecycleEvent, type RunTimelineDetail, RunTimelineEntry } from './RunTimelineEntry.js';
import { serverFromToolName } from '../health/serverFromToolName.js';
import { MAX_APPROVAL_REASON_LENGTH } from '../step/ToolApproval.js';

/**
 * The sizes that stand for each content field (the step schema's content flag): a stored size
 * (a payload filtered at `metadata`) is copied when it is a finite number, else the size is
 * measured from the content itself. The content never reaches the timeline.
 */
const CONTENT_SIZES: readonly (readonly [content: string, size: string, measure: (value: unknown) => number | undefined])[] = [
  ...RUN_STEP_CONTENT,
].flatMap(([key, flag]) => Object.entries(flag.sizes).map(([size, measure]) => [key, size, measure] as const));

/** Payload keys copied into details when they hold a finite number. */
const NUMBER_KEYS = [
  'promptTokens',
  'completionTokens',
  'costUsd',
  'tokenBudget',
  'tokensUsed',
  ...CONTENT_SIZES.map(([, size]) => size),
] as const;

/** Payload keys copied into details when they hold a string (capped). */
const STRING_KEYS = ['model', 'finishReason', 'toolName', 'toolServer', 'toolCallId'] as const;

/** Details derived from other payload keys. */
const DERIVED_KEYS = [
  'droppedSourceCount',
  'writeKind',
  'writeResource',
  'writeId',
  'writes',
  'sends',
  'failureCause',
  'httpStatus',
  'jsonRpcCode',
  'errorClass',
  'serverIsError',
  'approved',
  'approvedBy',
  'approvalReason',
] as const;

const MAX_DETAIL_LENGTH = 200;

/** Sort groups at equal times: the start, the cancel request (a cause before its effects), steps, the end. */
const GROUP_STARTED = 0;
const GROUP_CANCEL = 1;
const GROUP_STEP = 2;
const GROUP_END = 3;

/**
 * Options of {@link buildRunTimeline}.
 *
 * @public
 */
export interface RunTimelineOptions {
  /**
   * Call ids of `tool` steps that are not among the steps given (a later page of a long run):
   * their `tool_start` steps are ended too.
   */
  readonly endedCallIds?: ReadonlySet<string>;
}

/**
 * Every detail key a timeline entry can carry: the allow-list of metadata keys and sizes a
 * {@link RunTimelineEntry}'s details come from.
 *
 * @public
 */
export const RUN_TIMELINE_DETAIL_KEYS: readonly string[] = Object.freeze([
  ...new Set([...STRING_KEYS, ...NUMBER_KEYS, ...DERIVED_KEYS, 'reason']),
]);

/**
 * Builds the timeline of a run from its stored run and steps: its steps and lifecycle events, in
 * (time, sequence) order.
 *
 * @remarks
 * The timeline shows metadata only: each entry's details come from an allow-list
 * ({@link RUN_TIMELINE_DETAIL_KEYS}) of metadata keys and sizes, never content, whatever the
 * privacy level the steps were recorded with.
 *
 * A step whose payload is not a JSON object becomes an entry marked `unreadable` with its
 * sequence, kind and time; the rest renders. Lifecycle events come from the run's times:
 * `started`, `cancel_requested`, and the terminal `completed` / `failed` / `cancelled` /
 * `interrupted` (with the termination reason as the `reason` detail). At equal times the
 * start sorts first, then the cancel request, then steps, then the end. Linear in the
 * number of steps when they are stored in time order.
 *
 * A `tool_start` step whose call ended (a `tool` step with the same `toolCallId`, among the
 * steps or in `options.endedCallIds`) is left out: the call's row is its step, with the
 * outcome. One without an end becomes an entry of kind `tool_start` with a
 * {@link RunTimelineEntry.callState}: `on_the_wire` while the run runs (or when the run is not
 * given), `interrupted` once it ended. A step of a kind this version does not know renders as
 * a plain row (source `agent`, no outcome).
 *
 * A call to a writing tool whose request may have reached the server with no answer saying what
 * became of it is marked {@link RunTimelineEntry.mayHaveExecuted}: cancelled or failed unanswered
 * after it was sent (a `toolSends` of 0 says it never left), or started and interrupted.
 *
 * @public
 */
export function buildRunTimeline(
  run: StoredRun | null,
  steps: readonly StoredStep[],
  options: RunTimelineOptions = {},
): RunTimelineEntry[] {
  const items: RunTimelineEntry[] = [];
  if (run !== null) {
    const started = run.startedAt ?? run.createdAt;
    items.push(lifecycle(RunLifecycleEvent.STARTED, started, {}));
    if (run.cancelRequestedAt !== null) {
      items.push(lifecycle(RunLifecycleEvent.CANCEL_REQUESTED, run.cancelRequestedAt, {}));
    }
    const end = terminalEvent(run.status);
    if (end !== null) {
      const details: Record<string, RunTimelineDetail> = {};
      if (typeof run.terminationReason === 'string' && run.terminationReason.length > 0)
        details['reason'] = cap(run.terminationReason, 500);
      items.push(lifecycle(end, run.finishedAt ?? started, details));
    }
  }
  const running = run === null || run.status === RunStatus.RUNNING;
  let ended: Set<string> | null = null;
  for (const step of steps) {
    const entry = stepEntry(step);
    if (entry.kind === RunStepKind.TOOL_START && !entry.unreadable) {
      ended ??= endedCalls(steps, options.endedCallIds);
      const callId = entry.details['toolCallId'];
      if (typeof callId === 'string' && ended.has(callId)) continue;
      items.push(withCallState(entry, running ? RunCallState.ON_THE_WIRE : RunCallState.INTERRUPTED));
      continue;
    }
    items.push(entry);
  }
  let ordered = true;
  for (let i = 1; i < items.length && ordered; i++) ordered = compare(items[i - 1]!, items[i]!) <= 0;
  if (!ordered) items.sort(compare);
  return items;
}

/** The call ids of the tool steps that ended a call. */
function endedCalls(steps: readonly StoredStep[], more: ReadonlySet<string> | undefined): Set<string> {
  const ids = new Set<string>(more ?? []);
  for (const step of steps) {
    if (step.kind !== RunStepKind.TOOL || !step.payload.includes('"toolCallId"')) continue;
    try {
      const id = (JSON.parse(step.payload) as Record<string, unknown>)['toolCallId'];
      if (typeof id === 'string') ids.add(id);
    } catch {
      // an unreadable row ends nothing
    }
  }
  return ids;
}

/**
 * A started call without its end, in its state. An interrupted call to a writing tool may have run:
 * it was recorded as going on the wire, and nothing ever said what became of it.
 */
function withCallState(entry: RunTimelineEntry, state: RunCallState): RunTimelineEntry {
  return new RunTimelineEntry(
    entry.time,
    entry.sequence,
    null,
    entry.kind,
    entry.source,
    entry.round,
    null,
    RunTimelineEntry.OUTCOME_NONE,
    entry.details,
    false,
    null,
    state,
    state === RunCallState.INTERRUPTED && entry.details['writes'] === true,
  );
}

function groupOf(entry: RunTimelineEntry): number {
  switch (entry.event) {
    case null:
      return GROUP_STEP;
    case RunLifecycleEvent.STARTED:
      return GROUP_STARTED;
    case RunLifecycleEvent.CANCEL_REQUESTED:
      return GROUP_CANCEL;
    default:
      return GROUP_END;
  }
}

function compare(a: RunTimelineEntry, b: RunTimelineEntry): number {
  if (a.time !== b.time) return a.time - b.time;
  const group = groupOf(a) - groupOf(b);
  if (group !== 0) return group;
  return (a.sequence ?? 0) - (b.sequence ?? 0);
}

function terminalEvent(status: string): RunLifecycleEvent | null {
  switch (status) {
    case RunStatus.COMPLETED:
      return RunLifecycleEvent.COMPLETED;
    case RunStatus.FAILED:
      return RunLifecycleEvent.FAILED;
    case RunStatus.CANCELLED:
      return RunLifecycleEvent.CANCELLED;
    case RunStatus.INTERRUPTED:
      return RunLifecycleEvent.INTERRUPTED;
    default:
      return null;
  }
}

function lifecycle(event: RunLifecycleEvent, time: number, details: Record<string, RunTimelineDetail>): RunTimelineEntry {
  return new RunTimelineEntry(time, null, event, 'run', 'run', null, null, RunTimelineEntry.OUTCOME_NONE, details, false, null);
}

function stepEntry(step: StoredStep): RunTimelineEntry {
  let payload: unknown;
  let reason: string | null = null;
  try {
    payload = JSON.parse(step.payload);
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
      reason = `the payload is ${payload === null ? 'null' : Array.isArray(payload) ? 'an array' : `a ${typeof payload}`}, not an object`;
    }
  } catch (error) {
    reason = `the payload is not JSON (${error instanceof Error ? error.message : String(error)})`;
  }
  if (reason !== null) {
    const source = step.toolServer ?? '';
    return new RunTimelineEntry(
      step.createdAt,
      step.sequence,
      null,
      step.kind,
      source,
      step.round,
      step.durationMs,
      RunTimelineEntry.OUTCOME_NONE,
      {},
      true,
      reason,
    );
  }
  const record = payload as Record<string, unknown>;
  const details = detailsOf(record);
  let source: string;
  if (step.kind === RunStepKind.TOOL || step.kind === RunStepKind.TOOL_START) {
    source = intern(
      step.toolServer ??
        (typeof record['toolServer'] === 'string' ? record['toolServer'] : null) ??
        serverFromToolName(record['toolName']) ??
        '',
    );
  } else if (step.kind === RunStepKind.LLM) {
    source = typeof details['model'] === 'string' ? details['model'] : '';
  } else {
    source = 'agent';
  }
  return new RunTimelineEntry(
    step.createdAt,
    step.sequence,
    null,
    step.kind,
    source,
    step.round,
    step.durationMs,
    readStepOutcome(record),
    details,
    false,
    null,
    null,
    mayHaveExecuted(record),
  );
}

function detailsOf(p: Record<string, unknown>): Record<string, RunTimelineDetail> {
  // Direct loads of the allow-listed keys (monomorphic on payloads of one shape, which is most of
  // a timeline); only metadata and sizes are copied. Keep in step with STRING_KEYS, NUMBER_KEYS
  // and DERIVED_KEYS above; the content sizes come from the step schema's content flag.
  const d: Record<string, RunTimelineDetail> = {};
  let v: unknown;
  if (typeof (v = p['model']) === 'string') d['model'] = intern(cap(v, MAX_DETAIL_LENGTH));
  if (typeof (v = p['finishReason']) === 'string') d['finishReason'] = intern(cap(v, MAX_DETAIL_LENGTH));
  if (typeof (v = p['toolName']) === 'string') d['toolName'] = intern(cap(v, MAX_DETAIL_LENGTH));
  if (typeof (v = p['toolServer']) === 'string') d['toolServer'] = intern(cap(v, MAX_DETAIL_LENGTH));
  if (typeof (v = p['toolCallId']) === 'string') d['toolCallId'] = cap(v, MAX_DETAIL_LENGTH);
  if (finite((v = p['promptTokens']))) d['promptTokens'] = v;
  if (finite((v = p['completionTokens']))) d['completionTokens'] = v;
  if (finite((v = p['costUsd']))) d['costUsd'] = v;
  if (finite((v = p['tokenBudget']))) d['tokenBudget'] = v;
  if (finite((v = p['tokensUsed']))) d['tokensUsed'] = v;
  for (const [key, size, measure] of CONTENT_SIZES) {
    if (finite((v = p[size]))) d[size] = v;
    else if ((v = p[key]) !== undefined && finite((v = measure(v)))) d[size] = v;
  }
  if (Array.isArray((v = p['droppedSources']))) d['droppedSourceCount'] = v.length;
  if (p['toolWrites'] === true) d['writes'] = true;
  if (finite((v = p['toolSends']))) d['sends'] = v;
  // A failed tool call's cause, from the closed vocabulary only; a row without one reads "unknown".
  if (p['kind'] === RunStepKind.TOOL && readStepOutcome(p) === 'failed') {
    d['failureCause'] = isToolFailureCause((v = p['toolFailureCause'])) ? v : UNKNOWN_FAILURE_CAUSE;
    // What the transport knew (metadata at every privacy level), each fact by its own rule.
    if (typeof (v = p['toolFailureFacts']) === 'object' && v !== null) {
      const { httpStatus, jsonRpcCode, errorClass, serverIsError } = v as Record<string, unknown>;
      if (Number.isInteger(httpStatus) && (httpStatus as number) >= 100 && (httpStatus as number) <= 599)
        d['httpStatus'] = httpStatus as number;
      if (Number.isSafeInteger(jsonRpcCode)) d['jsonRpcCode'] = jsonRpcCode as number;
      if (isToolErrorClass(errorClass)) d['errorClass'] = errorClass;
      if (serverIsError === true) d['serverIsError'] = true;
    }
  }
  // Who decided a call that needed approval, and why (metadata: kept at every privacy level).
  if (p['kind'] === RunStepKind.TOOL && typeof (v = p['toolApproval']) === 'object' && v !== null) {
    const { approved, by, reason } = v as Record<string, unknown>;
    if (typeof approved === 'boolean') {
      d['approved'] = approved;
      if (typeof by === 'string') d['approvedBy'] = cap(by, MAX_DETAIL_LENGTH);
      if (typeof reason === 'string') d['approvalReason'] = cap(reason, MAX_APPROVAL_REASON_LENGTH);
    }
  }
  if (typeof (v = p['toolWriteTarget']) === 'object' && v !== null) {
    const { kind, resource, id } = v as Record<string, unknown>;
    if (typeof kind === 'string') d['writeKind'] = cap(kind, MAX_DETAIL_LENGTH);
    if (typeof resource === 'string') d['writeResource'] = cap(resource, MAX_DETAIL_LENGTH);
    if (typeof id === 'string') d['writeId'] = cap(id, MAX_DETAIL_LENGTH);
  }
  return d;
}

function finite(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/**
 * Shares equal short strings between entries: a timeline repeats a handful of tool names, servers
 * and models thousands of times, and each parse makes a fresh copy that the entry would keep.
 */
const INTERNED = new Map<string, string>();
const MAX_INTERNED = 10_000;

function intern(text: string): string {
  if (text.length > 64) return text;
  const known = INTERNED.get(text);
  if (known !== undefined) return known;
  if (INTERNED.size >= MAX_INTERNED) INTERNED.clear();
  INTERNED.set(text, text);
  return text;
}

function cap(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
