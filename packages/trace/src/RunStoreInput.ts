import { isToolOutcome, type ToolOutcome } from '@runledger/core';
import { isRunStatus, isTerminalRunStatus, type RunStatus, type TerminalRunStatus } from './RunStatus.js';
import type {
  AppendStepInput,
  CreateRunInput,
  FinishRunInput,
  RunQuery,
  StepQuery,
  StoredRun,
  StoredStep,
} from './RunStore.js';
import { RunStoreError } from './RunStoreError.js';
import { DEFAULT_FLAKY_THRESHOLD, type FlakyThreshold, type ServerHealthQuery } from './ServerHealth.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Default and largest page size of a run listing. */
const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 200;

/** The latest time a store keeps: 8.64e15 ms after the epoch, the largest time a JS `Date` holds (year 275760). */
export const MAX_TIME_MS = 8_640_000_000_000_000;
/** The largest duration a store keeps, in ms (the span of every `Date`, about 273 790 years). */
export const MAX_DURATION_MS = MAX_TIME_MS;
/** The largest round and sequence number: PostgreSQL's `integer`. */
export const MAX_INT32 = 2_147_483_647;
/** A lone surrogate: a high one not followed by a low one, or a low one not after a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

/**
 * A run listing's position: the last run of the previous page.
 *
 * @public
 */
export interface RunCursorPosition {
  readonly createdAt: number;
  readonly id: string;
}

/**
 * A run creation, checked and with its defaults filled in.
 *
 * @public
 */
export interface NormalizedCreateRun {
  /** Lowercase UUID. */
  readonly id: string;
  readonly configuration: string;
  readonly actor: string | null;
  readonly createdAt: number;
}

/**
 * A finish, checked and with its defaults filled in.
 *
 * @public
 */
export interface NormalizedFinishRun {
  readonly status: TerminalRunStatus;
  readonly finishedAt: number;
  readonly terminationReason: string | null;
  /** Steps that could not be stored, to add to the run's count. */
  readonly unstoredSteps: number;
  /**
   * The termination reason to store instead when the run's cancel was requested first (the run
   * then ends `cancelled`): the given reason when the status is `cancelled` already, else one
   * that says what the run reported.
   */
  readonly cancelledTerminationReason: string | null;
}

/**
 * A step to append, checked, with its payload as JSON text.
 *
 * @public
 */
export interface NormalizedAppendStep {
  readonly kind: string;
  readonly round: number;
  readonly durationMs: number;
  readonly createdAt: number;
  readonly payload: Readonly<Record<string, unknown>>;
  /** `JSON.stringify(payload)`: the text a store keeps. */
  readonly payloadText: string;
  readonly toolServer: string | null;
  readonly toolOutcome: ToolOutcome | null;
  /** The sequence the step must get, or null for the run's next. */
  readonly sequence: number | null;
}

/**
 * A run listing query, checked, with defaults filled in and the cursor decoded.
 *
 * @public
 */
export interface NormalizedRunQuery {
  /** The statuses to keep, or null for all. */
  readonly statuses: readonly RunStatus[] | null;
  readonly configuration: string | null;
  readonly hasOutcome: ToolOutcome | null;
  readonly createdFrom: number | null;
  readonly createdTo: number | null;
  /** 1 to 200. */
  readonly limit: number;
  /** Runs strictly after this position in newest-first order (createdAt, then id, descending), or null. */
  readonly after: RunCursorPosition | null;
}

/**
 * A step read, checked, with defaults filled in.
 *
 * @public
 */
export interface NormalizedStepQuery {
  readonly fromSequence: number;
  /** The most steps to read, or null for all. */
  readonly limit: number | null;
}

/**
 * A server health query, checked, with defaults filled in.
 *
 * @public
 */
export interface NormalizedHealthQuery {
  readonly since: number | null;
  readonly until: number | null;
  readonly flaky: Required<FlakyThreshold>;
}

/**
 * The input rules of the {@link RunStore} contract, shared by every store so that all of them
 * refuse the same inputs with the same messages.
 *
 * @remarks
 * Each function checks one input and returns it normalized, or throws a
 * {@link RunStoreError} with code `invalid_input` whose message names the field and the rule.
 * Cursors are opaque to callers: base64url text of the last run's `createdAt` and `id`.
 *
 * @public
 */
export const RunStoreInput = Object.freeze({
  /**
   * Checks a run creation; makes a UUID when none is given.
   *
   * @throws RunStoreError (`invalid_input`) from `RunStoreInput.createRun`.
   */
  createRun(input: CreateRunInput, now: number): NormalizedCreateRun {
    object(input, 'CreateRunInput');
    const id = input.id === undefined ? crypto.randomUUID() : uuid(input.id, 'CreateRunInput.id');
    const configuration = nonEmptyText(input.configuration, 'CreateRunInput.configuration');
    const actor = textOrNull(input.actor, 'CreateRunInput.actor');
    const createdAt = timeOrNow(input.createdAt, now, 'CreateRunInput.createdAt');
    return { id, configuration, actor, createdAt };
  },

  /**
   * Checks a step to append and serialises its payload.
   *
   * @throws RunStoreError (`invalid_input`) from `RunStoreInput.appendStep`.
   */
  appendStep(input: AppendStepInput): NormalizedAppendStep {
    object(input, 'AppendStepInput');
    const kind = nonEmptyText(input.kind, 'AppendStepInput.kind');
    const round = int32(input.round, 'AppendStepInput.round');
    const durationMs = duration(input.durationMs, 'AppendStepInput.durationMs');
    const createdAt = time(input.createdAt, 'AppendStepInput.createdAt');
    const payload = input.payload;
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
      throw invalid(`AppendStepInput.payload must be a plain object, got ${Array.isArray(payload) ? 'an array' : show(payload)}`);
    }
    let payloadText: string;
    try {
      payloadText = JSON.stringify(payload);
    } catch (error) {
      throw invalid(`AppendStepInput.payload must be serialisable as JSON: ${error instanceof Error ? error.message : String(error)}`);
    }
    const toolServer =
      input.toolServer === undefined || input.toolServer === null
        ? null
        : nonEmptyText(input.toolServer, 'AppendStepInput.toolServer', ' or null');
    const toolOutcome = input.toolOutcome ?? null;
    if (toolOutcome !== null && !isToolOutcome(toolOutcome)) {
      throw invalid(`AppendStepInput.toolOutcome must be "ok", "failed", "cancelled" or null, got ${show(toolOutcome)}`);
    }
    const sequence = input.sequence === undefined ? null : int32(input.sequence, 'AppendStepInput.sequence');
    return { kind, round, durationMs, createdAt, payload, payloadText, toolServer, toolOutcome, sequence };
  },

  /**
   * Checks a finish.
   *
   * @throws RunStoreError (`invalid_input`) from `RunStoreInput.finishRun`.
   */
  finishRun(input: FinishRunInput, now: number): NormalizedFinishRun {
    object(input, 'FinishRunInput');
    if (!isTerminalRunStatus(input.status)) {
      throw invalid(`FinishRunInput.status must be one of "completed", "failed", "cancelled", "interrupted", got ${show(input.status)}`);
    }
    const finishedAt = timeOrNow(input.finishedAt, now, 'FinishRunInput.finishedAt');
    const reason = textOrNull(input.terminationReason, 'FinishRunInput.terminationReason');
    const unstoredSteps = input.unstoredSteps === undefined ? 0 : int32(input.unstoredSteps, 'FinishRunInput.unstoredSteps');
    const cancelledTerminationReason =
      input.status === 'cancelled'
        ? reason
        : `cancel requested while the run was running (the run reported "${input.status}"${reason === null ? '' : `: ${reason}`})`;
    return { status: input.status, finishedAt, terminationReason: reason, unstoredSteps, cancelledTerminationReason };
  },

  /**
   * Checks a listing query and decodes its cursor.
   *
   * @throws RunStoreError (`invalid_input`) from `RunStoreInput.runQuery`.
   */
  runQuery(query: RunQuery = {}): NormalizedRunQuery {
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
    let limit = DEFAULT_LIMIT;
    if (query.limit !== undefined) {
      if (!Number.isSafeInteger(query.limit) || query.limit < 1) {
        throw invalid(`RunQuery.limit must be a positive integer, got ${show(query.limit)}`);
      }
      limit = Math.min(query.limit, MAX_LIMIT);
    }
    const after = query.cursor === undefined || query.cursor === null ? null : RunStoreInput.decodeCursor(query.cursor);
    return { statuses, configuration, hasOutcome, createdFrom, createdTo, limit, after };
  },

  /**
   * Checks a step read.
   *
   * @throws RunStoreError (`invalid_input`) from `RunStoreInput.stepQuery`.
   */
  stepQuery(query: StepQuery = {}): NormalizedStepQuery {
    object(query, 'StepQuery');
    const fromSequence = query.fromSequence === undefined ? 0 : int32(query.fromSequence, 'StepQuery.fromSequence');
    const limit = query.limit === undefined ? null : count(query.limit, 'StepQuery.limit');
    return { fromSequence, limit };
  },

  /**
   * Checks a server health query and fills in the flaky threshold.
   *
   * @throws RunStoreError (`invalid_input`) from `RunStoreInput.healthQuery`.
   */
  healthQuery(query: ServerHealthQuery = {}): NormalizedHealthQuery {
    object(query, 'ServerHealthQuery');
    const since = query.since === undefined ? null : time(query.since, 'ServerHealthQuery.since');
    const until = query.until === undefined ? null : time(query.until, 'ServerHealthQuery.until');
    const failureRate = query.flaky?.failureRate ?? DEFAULT_FLAKY_THRESHOLD.failureRate;
    if (typeof failureRate !== 'number' || !(failureRate >= 0 && failureRate <= 1)) {
      throw invalid(`ServerHealthQuery.flaky.failureRate must be a number from 0 to 1, got ${show(failureRate)}`);
    }
    const minAnsweredCalls = query.flaky?.minAnsweredCalls ?? DEFAULT_FLAKY_THRESHOLD.minAnsweredCalls;
    if (!Number.isSafeInteger(minAnsweredCalls) || minAnsweredCalls < 1) {
      throw invalid(`ServerHealthQuery.flaky.minAnsweredCalls must be a positive integer, got ${show(minAnsweredCalls)}`);
    }
    return { since, until, flaky: { failureRate, minAnsweredCalls } };
  },

  /**
   * Checks a run and its steps given to `importRun` (sequences 0..n-1 in order, all of that run)
   * and returns them as a store writes them: id lower-case, absent fields null, −0 as 0.
   *
   * @throws RunStoreError (`invalid_input`) from `RunStoreInput.importRun`.
   */
  importRun(run: StoredRun, steps: readonly StoredStep[]): { readonly run: StoredRun; readonly steps: readonly StoredStep[] } {
    object(run, 'StoredRun');
    const id = uuid(run.id, 'StoredRun.id');
    if (!isRunStatus(run.status)) throw invalid(`StoredRun.status must be a run status, got ${show(run.status)}`);
    const optionalTime = (value: number | null | undefined, field: string): number | null =>
      value === undefined || value === null ? null : time(value, field);
    const checkedRun: StoredRun = {
      id,
      status: run.status,
      configuration: nonEmptyText(run.configuration, 'StoredRun.configuration'),
      actor: textOrNull(run.actor, 'StoredRun.actor'),
      createdAt: time(run.createdAt, 'StoredRun.createdAt'),
      startedAt: optionalTime(run.startedAt, 'StoredRun.startedAt'),
      finishedAt: optionalTime(run.finishedAt, 'StoredRun.finishedAt'),
      terminationReason: textOrNull(run.terminationReason, 'StoredRun.terminationReason'),
      cancelRequestedAt: optionalTime(run.cancelRequestedAt, 'StoredRun.cancelRequestedAt'),
      heartbeatAt: optionalTime(run.heartbeatAt, 'StoredRun.heartbeatAt'),
      stepCount: Array.isArray(steps) ? steps.length : 0,
      outcomeCounts: run.outcomeCounts,
      unstoredSteps: run.unstoredSteps === undefined ? 0 : int32(run.unstoredSteps, 'StoredRun.unstoredSteps'),
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
        toolServer: textOrNull(step.toolServer, `steps[${index}].toolServer`),
        toolOutcome,
      };
    });
    return { run: checkedRun, steps: checkedSteps };
  },

  /**
   * Checks the time of a cancel request (default `now`).
   *
   * @throws RunStoreError (`invalid_input`) from `RunStoreInput.requestCancel`.
   */
  requestCancel(at: number | undefined, now: number): number {
    return timeOrNow(at, now, 'requestCancel at');
  },

  /**
   * Checks the time of a heartbeat (default `now`).
   *
   * @throws RunStoreError (`invalid_input`) from `RunStoreInput.heartbeat`.
   */
  heartbeat(at: number | undefined, now: number): number {
    return timeOrNow(at, now, 'heartbeat at');
  },

  /**
   * Checks the bound of `recoverInterrupted`: a time like every other (no `Infinity`).
   *
   * @throws RunStoreError (`invalid_input`) from `RunStoreInput.recoverInterrupted`.
   */
  recoverInterrupted(staleBefore: number): number {
    return time(staleBefore, 'recoverInterrupted staleBefore');
  },

  /**
   * The `invalid_input` error of an append whose sequence lies past the run's next one.
   */
  sequencePastEnd(runId: string, sequence: number, next: number): RunStoreError {
    return invalid(
      `AppendStepInput.sequence must be at most the run's next sequence ${next} (sequences stay gap-free), got ${sequence} for run ${show(runId)}`,
    );
  },

  /**
   * Tells whether a stored step is the one an idempotent append repeats: same kind, round,
   * duration, time, payload text and tool columns.
   */
  sameStep(
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
  },

  /** The termination reason recovery stores for a run without a sign of life since `lastSign`. */
  recoveryReason(lastSign: number, cancelRequested: boolean): string {
    const since = `no sign of life since ${new Date(lastSign).toISOString()}`;
    return cancelRequested ? `cancel requested; ${since}` : since;
  },

  /** Encodes a listing position as an opaque cursor. */
  encodeCursor(position: RunCursorPosition): string {
    return Buffer.from(JSON.stringify([position.createdAt, position.id]), 'utf8').toString('base64url');
  },

  /**
   * Decodes a cursor made by {@link RunStoreInput.encodeCursor}.
   *
   * @throws RunStoreError (`invalid_input`) from `RunStoreInput.decodeCursor` when it is not one.
   */
  decodeCursor(cursor: string): RunCursorPosition {
    let decoded: unknown;
    try {
      if (typeof cursor !== 'string' || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw new Error('not base64url');
      decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    } catch {
      throw invalid(`RunQuery.cursor must be a nextCursor returned by listRuns, got ${show(cursor)}`);
    }
    if (!Array.isArray(decoded) || decoded.length !== 2 || typeof decoded[1] !== 'string' || !UUID.test(decoded[1])) {
      throw invalid(`RunQuery.cursor must be a nextCursor returned by listRuns, got ${show(cursor)}`);
    }
    if (timeProblem(decoded[0]) !== null) {
      throw invalid(
        `RunQuery.cursor must be a nextCursor returned by listRuns (its time must be ${TIME_RULE}, got ${show(decoded[0])}), got ${show(cursor)}`,
      );
    }
    return { createdAt: (decoded[0] as number) + 0, id: decoded[1].toLowerCase() };
  },

  /** Compares two runs in listing order: negative when `a` comes first (newer createdAt, then greater id). */
  compareNewestFirst(a: RunCursorPosition, b: RunCursorPosition): number {
    if (a.createdAt !== b.createdAt) return b.createdAt - a.createdAt;
    return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
  },
});

function invalid(message: string): RunStoreError {
  return RunStoreError.invalidInput(message);
}

function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined) return String(value);
  return Array.isArray(value) ? 'an array' : typeof value;
}

function object(value: unknown, name: string): void {
  if (typeof value !== 'object' || value === null) throw invalid(`${name} must be an object, got ${show(value)}`);
}

function uuid(value: unknown, field: string): string {
  if (typeof value !== 'string' || !UUID.test(value)) throw invalid(`${field} must be a UUID, got ${show(value)}`);
  return value.toLowerCase();
}

/** The time rule, in words, as messages give it. */
const TIME_RULE = `integer milliseconds since the epoch from 0 to ${MAX_TIME_MS}`;

/** What is wrong with a time, or null when it keeps the rule. */
function timeProblem(value: unknown): string | null {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_TIME_MS) return TIME_RULE;
  return null;
}

/** A time: integer ms from 0 to 8.64e15 (−0 reads as 0). */
function time(value: unknown, field: string): number {
  if (timeProblem(value) !== null) throw invalid(`${field} must be ${TIME_RULE}, got ${show(value)}`);
  return (value as number) + 0;
}

/** A time that defaults to the store's clock; the clock's value keeps the same rule. */
function timeOrNow(value: unknown, now: number, field: string): number {
  if (value !== undefined) return time(value, field);
  if (timeProblem(now) !== null) throw invalid(`${field} defaults to the store's clock, which must give ${TIME_RULE}, got ${show(now)}`);
  return now + 0;
}

function count(value: unknown, field: string): number {
  if (!Number.isSafeInteger(value) || (value as number) < 0) {
    throw invalid(`${field} must be an integer ≥ 0, got ${show(value)}`);
  }
  return (value as number) + 0;
}

/** A round or a sequence: PostgreSQL's `integer`, 0 to 2^31−1. */
function int32(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_INT32) {
    throw invalid(`${field} must be an integer from 0 to ${MAX_INT32}, got ${show(value)}`);
  }
  return value + 0;
}

/** A duration: a finite number of ms from 0 to 8.64e15, fractions kept (−0 reads as 0). */
function duration(value: unknown, field: string): number {
  if (typeof value !== 'number' || !(value >= 0 && value <= MAX_DURATION_MS)) {
    throw invalid(`${field} must be a number of milliseconds from 0 to ${MAX_DURATION_MS}, got ${show(value)}`);
  }
  return value + 0;
}

/** Refuses what a store cannot keep as it is: NUL (PostgreSQL text) and lone surrogates (not UTF-8). */
function storable(value: string, field: string): string {
  const nul = value.indexOf('\0');
  if (nul !== -1) throw invalid(`${field} must not contain NUL (U+0000), found at index ${nul}, got ${show(value)}`);
  const lone = LONE_SURROGATE.exec(value);
  if (lone !== null) {
    const unit = lone[0].charCodeAt(0).toString(16).toUpperCase();
    throw invalid(
      `${field} must be well-formed UTF-16 (no lone surrogate), found U+${unit} at index ${lone.index}, got ${show(value)}`,
    );
  }
  return value;
}

/** A string a store keeps as it is (empty allowed). */
function text(value: unknown, field: string): string {
  if (typeof value !== 'string') throw invalid(`${field} must be a string, got ${show(value)}`);
  return storable(value, field);
}

/** A non-empty string a store keeps as it is; `alternative` completes the rule's wording (" or null"). */
function nonEmptyText(value: unknown, field: string, alternative = ''): string {
  if (typeof value !== 'string' || value.length === 0) {
    throw invalid(`${field} must be a non-empty string${alternative}, got ${show(value)}`);
  }
  return storable(value, field);
}

/** A string a store keeps as it is, or null (undefined reads as null). */
function textOrNull(value: unknown, field: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw invalid(`${field} must be a string or null, got ${show(value)}`);
  return storable(value, field);
}

/**
 * The text with every NUL and lone surrogate replaced by U+FFFD, so that any string (an error
 * message turned into a termination reason) keeps the string rule of {@link RunStoreInput}.
 *
 * @internal
 */
export function storableText(value: string): string {
  return value.replaceAll('\0', '\uFFFD').replace(LONE_SURROGATES, '\uFFFD');
}
