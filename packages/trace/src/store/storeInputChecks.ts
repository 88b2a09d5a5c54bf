import type {
  AppendStepInput,
  CreateRunInput,
  FinishRunInput,
  RunQuery,
  RunStatus,
  RunStoreError,
  ServerHealthQuery,
  StepQuery,
  StoredRun,
  StoredStep,
} from '@runledger/trace';
import { isToolOutcome } from '@runledger/core';
import { isRunStatus, isTerminalRunStatus } from '../step/RunStatus.js';
import { RunTerminationKind } from '../step/RunTerminationReason.js';
import {
  checkTermination,
  terminationColumns,
  terminationColumnsOfText,
  terminationOfColumns,
  terminationTextOfColumns,
} from './storedTermination.js';
import {
  count,
  duration,
  int32,
  invalid,
  jsonObjectText,
  lineOrNull,
  name,
  nameOrNull,
  nonEmptyText,
  object,
  payloadNames,
  show,
  storable,
  text,
  textOrNull,
  time,
  timeOrNow,
  UUID,
  uuid,
} from './storeValueRules.js';
import { DEFAULT_FLAKY_THRESHOLD, FLAKY_THRESHOLD_RULES } from '../health/FlakyThreshold.js';

import { cancelRequestOf } from './CancelRequest.js';
import { decodeRunCursor } from './runCursor.js';
import type { RunCursorPosition } from '@runledger/trace';
import type {
  NormalizedAppendStep,
  NormalizedCreateRun,
  NormalizedFinishRun,
  NormalizedHealthQuery,
  NormalizedRunQuery,
  NormalizedStepQuery,
} from './NormalizedStoreInput.js';

export type {
  NormalizedAppendStep,
  NormalizedCreateRun,
  NormalizedFinishRun,
  NormalizedHealthQuery,
  NormalizedRunQuery,
  NormalizedStepQuery,
} from './NormalizedStoreInput.js';

/** Default and largest page size of a run listing. */
const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 200;
/** The longest run title, in characters (code points). */
const MAX_TITLE_LENGTH = 200;

/**
 * Checks the run id a method is given: a string, or `invalid_input`. Returns the key the run is
 * stored under (a UUID in lower case, so any case finds the run), or null for a string that is
 * not a UUID, which no run has (the method then answers as for an unknown run).
 *
 * @throws RunStoreError (`invalid_input`) from `checkRunId` when `runId` is not a string.
 *
 * @public
 */
export function checkRunId(runId: string): string | null {
  if (typeof runId !== 'string') throw invalid(`runId must be a string, got ${show(runId)}`);
  return UUID.test(runId) ? runId.toLowerCase() : null;
}

/**
 * Checks a run creation; makes a UUID when none is given.
 *
 * @throws RunStoreError (`invalid_input`) from `checkCreateRun`.
 *
 * @public
 */
export function checkCreateRun(input: CreateRunInput, now: number): NormalizedCreateRun {
  object(input, 'CreateRunInput');
  const id = input.id === undefined ? crypto.randomUUID() : uuid(input.id, 'CreateRunInput.id');
  const configuration = name(input.configuration, 'CreateRunInput.configuration');
  const actor = textOrNull(input.actor, 'CreateRunInput.actor');
  const title = lineOrNull(input.title, 'CreateRunInput.title', MAX_TITLE_LENGTH);
  const createdAt = timeOrNow(input.createdAt, now, 'CreateRunInput.createdAt');
  return { id, configuration, actor, title, createdAt };
}

/**
 * Checks a step to append and serialises its payload.
 *
 * @remarks
 * The payload must be a plain object whose `JSON.stringify` is the text of a JSON object: one
 * whose serialisation throws (a BigInt, a cycle, a getter that throws anything) or gives undefined
 * or another JSON value (its `toJSON` returns undefined, a number, an array) is refused.
 *
 * @throws RunStoreError (`invalid_input`) from `checkAppendStep`.
 *
 * @public
 */
export function checkAppendStep(input: AppendStepInput): NormalizedAppendStep {
  object(input, 'AppendStepInput');
  const kind = nonEmptyText(input.kind, 'AppendStepInput.kind');
  const round = int32(input.round, 'AppendStepInput.round');
  const durationMs = duration(input.durationMs, 'AppendStepInput.durationMs');
  const createdAt = time(input.createdAt, 'AppendStepInput.createdAt');
  const payload = input.payload;
  const payloadText = jsonObjectText(payload, 'AppendStepInput.payload');
  const toolServer = nameOrNull(input.toolServer, 'AppendStepInput.toolServer');
  payloadNames(kind, payload, 'AppendStepInput.payload');
  const toolOutcome = input.toolOutcome ?? null;
  if (toolOutcome !== null && !isToolOutcome(toolOutcome)) {
    throw invalid(`AppendStepInput.toolOutcome must be "ok", "failed", "cancelled" or null, got ${show(toolOutcome)}`);
  }
  const sequence = input.sequence === undefined ? null : int32(input.sequence, 'AppendStepInput.sequence');
  return { kind, round, durationMs, createdAt, payload, payloadText, toolServer, toolOutcome, sequence };
}

/**
 * Checks a finish.
 *
 * @throws RunStoreError (`invalid_input`) from `checkFinishRun`.
 *
 * @public
 */
export function checkFinishRun(input: FinishRunInput, now: number): NormalizedFinishRun {
  object(input, 'FinishRunInput');
  if (!isTerminalRunStatus(input.status)) {
    throw invalid(`FinishRunInput.status must be one of "completed", "failed", "cancelled", "interrupted", got ${show(input.status)}`);
  }
  const finishedAt = timeOrNow(input.finishedAt, now, 'FinishRunInput.finishedAt');
  const reason = textOrNull(input.terminationReason, 'FinishRunInput.terminationReason');
  const unstoredSteps = input.unstoredSteps === undefined ? 0 : int32(input.unstoredSteps, 'FinishRunInput.unstoredSteps');
  // data wins; a reason given as text only is read as prose (a reason runledger wrote gets its kind)
  const termination =
    input.termination === undefined || input.termination === null
      ? terminationColumnsOfText(reason)
      : terminationColumns(checkTermination(input.termination, 'FinishRunInput.termination'));
  const cancelledTermination =
    input.status === 'cancelled'
      ? termination
      : terminationColumns({
          kind: RunTerminationKind.CANCEL_WHILE_RUNNING,
          reported: input.status,
          reason: terminationTextOfColumns(termination),
        });
  return { status: input.status, finishedAt, termination, unstoredSteps, cancelledTermination };
}

/**
 * Checks a listing query and decodes its cursor.
 *
 * @throws RunStoreError (`invalid_input`) from `checkRunQuery`.
 *
 * @public
 */
export function checkRunQuery(query: RunQuery = {}): NormalizedRunQuery {
  object(query, 'RunQuery');
  let statuses: RunStatus[] | null = null;
  if (query.status !== undefined) {
    const list = (Array.isArray(query.status) ? query.status : [query.status]) as unknown[];
    for (const status of list) {
      if (!isRunStatus(status)) throw invalid(`RunQuery.status must be run statuses, got ${show(status)}`);
    }
    statuses = [...new Set(list as RunStatus[])];
  }
  const configuration = textOrNull(query.configuration, 'RunQuery.configuration');
  const hasOutcome = query.hasOutcome ?? null;
  if (hasOutcome !== null && !isToolOutcome(hasOutcome)) {
    throw invalid(`RunQuery.hasOutcome must be "ok", "failed" or "cancelled", got ${show(hasOutcome)}`);
  }
  const createdFrom = query.createdFrom === undefined ? null : time(query.createdFrom, 'RunQuery.createdFrom');
  const createdTo = query.createdTo === undefined ? null : time(query.createdTo, 'RunQuery.createdTo');
  const server = query.server === undefined ? null : nonEmptyText(query.server, 'RunQuery.server');
  const tool = query.tool === undefined ? null : nonEmptyText(query.tool, 'RunQuery.tool');
  const titleContains = query.titleContains === undefined ? null : nonEmptyText(query.titleContains, 'RunQuery.titleContains');
  let limit = DEFAULT_LIMIT;
  if (query.limit !== undefined) {
    if (!Number.isSafeInteger(query.limit) || query.limit < 1) {
      throw invalid(`RunQuery.limit must be a positive integer, got ${show(query.limit)}`);
    }
    limit = Math.min(query.limit, MAX_LIMIT);
  }
  const after = query.cursor === undefined || query.cursor === null ? null : decodeRunCursor(query.cursor);
  return { statuses, configuration, hasOutcome, createdFrom, createdTo, server, tool, titleContains, limit, after };
}

/**
 * Checks a step read.
 *
 * @throws RunStoreError (`invalid_input`) from `checkStepQuery`.
 *
 * @public
 */
export function checkStepQuery(query: StepQuery = {}): NormalizedStepQuery {
  object(query, 'StepQuery');
  const fromSequence = query.fromSequence === undefined ? 0 : int32(query.fromSequence, 'StepQuery.fromSequence');
  const limit = query.limit === undefined ? null : count(query.limit, 'StepQuery.limit');
  return { fromSequence, limit };
}

/**
 * Checks a server health query and fills in the flaky threshold.
 *
 * @throws RunStoreError (`invalid_input`) from `checkHealthQuery`.
 *
 * @public
 */
export function checkHealthQuery(query: ServerHealthQuery = {}): NormalizedHealthQuery {
  object(query, 'ServerHealthQuery');
  const since = query.since === undefined ? null : time(query.since, 'ServerHealthQuery.since');
  const until = query.until === undefined ? null : time(query.until, 'ServerHealthQuery.until');
  const flaky = { ...DEFAULT_FLAKY_THRESHOLD };
  for (const key of ['failureRate', 'minAnsweredCalls'] as const) {
    const value = query.flaky?.[key] ?? DEFAULT_FLAKY_THRESHOLD[key];
    const { holds, rule } = FLAKY_THRESHOLD_RULES[key];
    if (!holds(value)) throw invalid(`ServerHealthQuery.flaky.${key} must be ${rule}, got ${show(value)}`);
    flaky[key] = value;
  }
  return { since, until, flaky };
}

/**
 * Checks a run and its steps given to `importRun` (sequences 0..n-1 in order, all of that run)
 * and returns them as a store writes them: id lower-case, absent fields null, −0 as 0.
 *
 * @throws RunStoreError (`invalid_input`) from `checkImportRun`.
 *
 * @public
 */
export function checkImportRun(
  run: StoredRun,
  steps: readonly StoredStep[],
): { readonly run: StoredRun; readonly steps: readonly StoredStep[] } {
  object(run, 'StoredRun');
  const id = uuid(run.id, 'StoredRun.id');
  if (!isRunStatus(run.status)) throw invalid(`StoredRun.status must be a run status, got ${show(run.status)}`);
  const optionalTime = (value: number | null | undefined, field: string): number | null =>
    value === undefined || value === null ? null : time(value, field);
  const lateFinishStatus = run.lateFinishStatus ?? null;
  if (lateFinishStatus !== null && !isTerminalRunStatus(lateFinishStatus)) {
    throw invalid(`StoredRun.lateFinishStatus must be a terminal run status or null, got ${show(run.lateFinishStatus)}`);
  }
  const reason = textOrNull(run.terminationReason, 'StoredRun.terminationReason');
  const cancelRequestedAt = optionalTime(run.cancelRequestedAt, 'StoredRun.cancelRequestedAt');
  const request =
    run.cancelRequest === undefined || run.cancelRequest === null ? null : cancelRequestOf(run.cancelRequest, 'StoredRun.cancelRequest');
  if (request !== null && cancelRequestedAt === null) {
    throw invalid('StoredRun.cancelRequest must be null when StoredRun.cancelRequestedAt is null, got an object');
  }
  const checkedRun: StoredRun = {
    id,
    status: run.status,
    configuration: name(run.configuration, 'StoredRun.configuration'),
    actor: textOrNull(run.actor, 'StoredRun.actor'),
    title: lineOrNull(run.title, 'StoredRun.title', MAX_TITLE_LENGTH),
    createdAt: time(run.createdAt, 'StoredRun.createdAt'),
    startedAt: optionalTime(run.startedAt, 'StoredRun.startedAt'),
    finishedAt: optionalTime(run.finishedAt, 'StoredRun.finishedAt'),
    terminationReason: reason,
    termination:
      run.termination === undefined || run.termination === null
        ? terminationOfColumns(terminationColumnsOfText(reason))
        : checkTermination(run.termination, 'StoredRun.termination'),
    cancelRequestedAt,
    ...(request === null || cancelRequestedAt === null ? {} : { cancelRequest: { at: cancelRequestedAt, ...request } }),
    heartbeatAt: optionalTime(run.heartbeatAt, 'StoredRun.heartbeatAt'),
    stepCount: Array.isArray(steps) ? steps.length : 0,
    outcomeCounts: run.outcomeCounts,
    unstoredSteps: run.unstoredSteps === undefined ? 0 : int32(run.unstoredSteps, 'StoredRun.unstoredSteps'),
    ...(lateFinishStatus === null ? {} : { lateFinishStatus, lateFinishAt: optionalTime(run.lateFinishAt, 'StoredRun.lateFinishAt') }),
  };
  if (!Array.isArray(steps)) throw invalid('importRun steps must be an array');
  const checkedSteps = steps.map((step: StoredStep, index): StoredStep => {
    object(step, `steps[${index}]`);
    if (step.runId !== run.id) {
      throw invalid(`steps[${index}].runId must be the run's id ${show(run.id)}, got ${show(step.runId)}`);
    }
    if (step.sequence !== index) {
      throw invalid(`steps[${index}].sequence must be ${index} (gap-free from 0, in order), got ${show(step.sequence)}`);
    }
    if (typeof step.payload !== 'string') throw invalid(`steps[${index}].payload must be JSON text, got ${show(step.payload)}`);
    payloadNames(String(step.kind), step.payload, `steps[${index}].payload`);
    const toolOutcome = step.toolOutcome ?? null;
    if (toolOutcome !== null && !isToolOutcome(toolOutcome)) {
      throw invalid(`steps[${index}].toolOutcome must be an outcome or null, got ${show(step.toolOutcome)}`);
    }
    return {
      runId: id,
      sequence: index,
      kind: text(step.kind, `steps[${index}].kind`),
      round: int32(step.round, `steps[${index}].round`),
      durationMs: duration(step.durationMs, `steps[${index}].durationMs`),
      createdAt: time(step.createdAt, `steps[${index}].createdAt`),
      payload: storable(step.payload, `steps[${index}].payload`),
      toolServer: nameOrNull(step.toolServer, `steps[${index}].toolServer`, true),
      toolOutcome,
    };
  });
  return { run: checkedRun, steps: checkedSteps };
}

/**
 * Checks the time of a cancel request (default `now`).
 *
 * @throws RunStoreError (`invalid_input`) from `checkRequestCancelAt`.
 *
 * @public
 */
export function checkRequestCancelAt(at: number | undefined, now: number): number {
  return timeOrNow(at, now, 'requestCancel at');
}

/**
 * Checks the time of a heartbeat (default `now`).
 *
 * @throws RunStoreError (`invalid_input`) from `checkHeartbeatAt`.
 *
 * @public
 */
export function checkHeartbeatAt(at: number | undefined, now: number): number {
  return timeOrNow(at, now, 'heartbeat at');
}

/**
 * Checks the bound of `recoverInterrupted`: a time like every other (no `Infinity`).
 *
 * @throws RunStoreError (`invalid_input`) from `checkStaleBefore`.
 *
 * @public
 */
export function checkStaleBefore(staleBefore: number): number {
  return time(staleBefore, 'recoverInterrupted staleBefore');
}

/**
 * The `invalid_input` error of an append whose sequence lies past the run's next one.
 *
 * @public
 */
export function sequencePastEndError(runId: string, sequence: number, next: number): RunStoreError {
  return invalid(
    `AppendStepInput.sequence must be at most the run's next sequence ${next} (sequences stay gap-free), got ${sequence} for run ${show(runId)}`,
  );
}

/**
 * The `invalid_input` error of a run creation whose id a run has already.
 *
 * @public
 */
export function duplicateRunIdError(id: string): RunStoreError {
  return invalid(`CreateRunInput.id must be new, but run ${JSON.stringify(id)} exists`);
}

/**
 * Tells whether a stored step is the one an idempotent append repeats: same kind, round,
 * duration, time, payload text and tool columns.
 *
 * @public
 */
export function isSameStep(
  stored: Pick<StoredStep, 'kind' | 'round' | 'durationMs' | 'createdAt' | 'payload' | 'toolServer' | 'toolOutcome'>,
  input: Pick<NormalizedAppendStep, 'kind' | 'round' | 'durationMs' | 'createdAt' | 'payloadText' | 'toolServer' | 'toolOutcome'>,
): boolean {
  return (
    stored.kind === input.kind &&
    stored.round === input.round &&
    stored.durationMs === input.durationMs &&
    stored.createdAt === input.createdAt &&
    stored.payload === input.payloadText &&
    stored.toolServer === input.toolServer &&
    stored.toolOutcome === input.toolOutcome
  );
}

/**
 * Compares two runs in listing order: negative when `a` comes first (newer createdAt, then greater id).
 *
 * @public
 */
export function compareNewestFirst(a: RunCursorPosition, b: RunCursorPosition): number {
  if (a.createdAt !== b.createdAt) return b.createdAt - a.createdAt;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}
