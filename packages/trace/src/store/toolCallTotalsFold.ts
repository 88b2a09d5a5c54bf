// What a store needs to answer ToolTotalsRunStore.toolCallTotals: the input rule, the fold it sums
// its calls and rollup rows with (the one place the figures are made, so every store gives the same
// shape and order), and the tool name a store keeps of a step.
import type { ServerFailureCauseCount, ToolCallTotals, ToolCallTotalsQuery } from '@runledger/trace';
import type { ToolFailureCause, ToolOutcome } from '@runledger/core';
import { isAnsweredCall } from '../health/ToolCallCounting.js';
import { TOOL_DURATION_BUCKET_COUNT, toolDurationBucket } from '../health/toolDurationBuckets.js';
import { UNKNOWN_FAILURE_CAUSE } from '../health/ServerHealth.js';
import { parsePayload } from '../step/readStepOutcome.js';
import { object, time } from './storeValueRules.js';

/**
 * A `ToolCallTotalsQuery` as checked: absent bounds null.
 *
 * @public
 */
export interface NormalizedToolCallTotalsQuery {
  /** The window's start (inclusive), or null: unbounded. */
  readonly since: number | null;
  /** The window's end (exclusive), or null: unbounded. */
  readonly until: number | null;
}

/**
 * Checks the window of `ToolTotalsRunStore.toolCallTotals`: `since` and `until` keep the time rule when given.
 *
 * @throws RunStoreError (`invalid_input`) from `checkToolCallTotalsQuery`.
 *
 * @public
 */
export function checkToolCallTotalsQuery(query: ToolCallTotalsQuery = {}): NormalizedToolCallTotalsQuery {
  object(query, 'ToolCallTotalsQuery');
  return {
    since: query.since === undefined ? null : time(query.since, 'ToolCallTotalsQuery.since'),
    until: query.until === undefined ? null : time(query.until, 'ToolCallTotalsQuery.until'),
  };
}

/**
 * Sums of calls of one server and tool, as a rollup row holds them.
 *
 * @public
 */
export interface ToolCallSums {
  /** Calls that ended ok. */
  readonly ok: number;
  /** Calls that ended failed. */
  readonly failed: number;
  /** Calls that ended cancelled. */
  readonly cancelled: number;
  /** Answered calls per duration bucket (`TOOL_DURATION_BUCKET_COUNT` of them). */
  readonly answeredBuckets: ArrayLike<number>;
  /** The answered calls' summed duration in ms. */
  readonly answeredMs: number;
}

interface Sums {
  ok: number;
  failed: number;
  cancelled: number;
  answeredBuckets: number[];
  answeredMs: number;
  causes: Map<string, number>;
}

const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Sums ended tool calls per server and tool into `ToolCallTotals`: calls one by one
 * ({@link ToolCallTotalsFold.addCall}, by trace's rules of how a call counts) and the sums of a
 * rollup's rows ({@link ToolCallTotalsFold.addSums}, {@link ToolCallTotalsFold.addCause}).
 *
 * @public
 */
export class ToolCallTotalsFold {
  readonly #servers = new Map<string, Map<string | null, Sums>>();

  /**
   * Adds one ended call of a server (a listed `StoredToolCall`, or a store's row of one): its
   * outcome, its cause when failed (`unknown` when null), its duration when answered
   * (`isAnsweredCall`).
   */
  addCall(server: string, tool: string | null, outcome: ToolOutcome, cause: string | null, durationMs: number): void {
    const sums = this.#sumsOf(server, tool);
    sums[outcome] += 1;
    const failedCause = outcome === 'failed' ? cause : null;
    if (outcome === 'failed') {
      const key = failedCause ?? UNKNOWN_FAILURE_CAUSE;
      sums.causes.set(key, (sums.causes.get(key) ?? 0) + 1);
    }
    if (!isAnsweredCall(outcome, failedCause as ToolFailureCause | null)) return;
    const k = toolDurationBucket(durationMs);
    sums.answeredBuckets[k] = (sums.answeredBuckets[k] as number) + 1;
    sums.answeredMs += durationMs;
  }

  /** Adds summed calls of a server and tool (a rollup row; its causes through {@link ToolCallTotalsFold.addCause}). */
  addSums(server: string, tool: string | null, add: ToolCallSums): void {
    const sums = this.#sumsOf(server, tool);
    sums.ok += add.ok;
    sums.failed += add.failed;
    sums.cancelled += add.cancelled;
    for (let k = 0; k < TOOL_DURATION_BUCKET_COUNT; k++)
      sums.answeredBuckets[k] = (sums.answeredBuckets[k] as number) + (add.answeredBuckets[k] ?? 0);
    sums.answeredMs += add.answeredMs;
  }

  /** Adds failed calls of one cause (`unknown` for none recorded) of a server and tool. */
  addCause(server: string, tool: string | null, cause: string, calls: number): void {
    const causes = this.#sumsOf(server, tool).causes;
    causes.set(cause, (causes.get(cause) ?? 0) + calls);
  }

  /** The totals, by server, then tool (null first); a server and tool whose sums hold no call is left out. */
  totals(): ToolCallTotals[] {
    const totals: ToolCallTotals[] = [];
    for (const server of [...this.#servers.keys()].sort(byName)) {
      const tools = this.#servers.get(server) as Map<string | null, Sums>;
      const names = [...tools.keys()].sort((a, b) => (a === null ? -1 : b === null ? 1 : byName(a, b)));
      for (const tool of names) {
        const s = tools.get(tool) as Sums;
        if (s.ok + s.failed + s.cancelled === 0) continue;
        const failureCauses = [...s.causes]
          .filter(([, calls]) => calls > 0)
          .sort(([a], [b]) => byName(a, b))
          .map(([cause, calls]) => Object.freeze({ cause: cause as ServerFailureCauseCount['cause'], calls }));
        totals.push(
          Object.freeze({
            server,
            tool,
            ok: s.ok,
            failed: s.failed,
            cancelled: s.cancelled,
            failureCauses: Object.freeze(failureCauses),
            answeredBuckets: Object.freeze([...s.answeredBuckets]),
            answeredMs: s.answeredMs,
          }),
        );
      }
    }
    return totals;
  }

  #sumsOf(server: string, tool: string | null): Sums {
    let tools = this.#servers.get(server);
    if (tools === undefined) this.#servers.set(server, (tools = new Map()));
    let sums = tools.get(tool);
    if (sums === undefined) {
      sums = {
        ok: 0,
        failed: 0,
        cancelled: 0,
        answeredBuckets: new Array<number>(TOOL_DURATION_BUCKET_COUNT).fill(0),
        answeredMs: 0,
        causes: new Map(),
      };
      tools.set(tool, sums);
    }
    return sums;
  }
}

/** A plain object without `toJSON`: JSON.stringify writes its own enumerable properties. */
function isPlainData(payload: unknown): payload is object {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return false;
  const prototype: unknown = Object.getPrototypeOf(payload);
  return (prototype === Object.prototype || prototype === null) && !('toJSON' in payload);
}

/**
 * The `toolName` JSON.stringify writes for a payload given as data: its own enumerable string
 * data property, when the payload is a plain object without `toJSON`; else undefined (read the
 * text instead).
 */
export function plainToolName(payload: unknown): string | undefined {
  if (!isPlainData(payload)) return undefined;
  const own = Object.getOwnPropertyDescriptor(payload, 'toolName');
  return own !== undefined && own.enumerable === true && typeof own.value === 'string' ? own.value : undefined;
}

/**
 * The tool name a store keeps of a step: its payload's `toolName` when that is a string, else
 * null; read from the appended data when that is plain (no JSON parsed), else from the stored
 * payload text (null when unreadable).
 *
 * @public
 */
export function toolNameOfPayload(appended: unknown, text: string): string | null {
  const plain = plainToolName(appended);
  if (plain !== undefined) return plain;
  // plain data without a toolName of its own: the text has none either
  if (isPlainData(appended) && Object.getOwnPropertyDescriptor(appended, 'toolName') === undefined) return null;
  const payload = parsePayload(text);
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return null;
  const name = (payload as Record<string, unknown>)['toolName'];
  return typeof name === 'string' ? name : null;
}
