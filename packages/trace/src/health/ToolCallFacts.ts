import { isToolFailureCause, isToolOutcome, type ToolFailureCause, ToolOutcome } from '@runledger/core';
import { isAnsweredCall, isCountedCall } from './ToolCallCounting.js';
import { parsePayload, readStepOutcome } from '../step/readStepOutcome.js';
import { RunStepKind } from '../step/RunStepKind.js';
import { serverFromToolName } from './serverFromToolName.js';

/**
 * The server and outcome of one stored tool call, as server health and outcome counts see it.
 *
 * @public
 */
export interface ToolCallFacts {
  /** The server id, or null when neither the row nor its tool name names one. */
  readonly server: string | null;
  readonly outcome: ToolOutcome;
  /** Why a `failed` call failed, or null (not failed, or a cause that was not recorded). */
  readonly cause: ToolFailureCause | null;
  /** The server answered the call: its duration counts in latency ({@link isAnsweredCall}). */
  readonly answered: boolean;
  /** The call counts in the failure rate ({@link isCountedCall}). */
  readonly counted: boolean;
}

/**
 * The parts of a step (stored, or about to be appended) that {@link toolCallOf} reads.
 *
 * @public
 */
export interface ToolCallSource {
  readonly kind: string;
  /** The payload, as JSON text (a stored step) or as an object (a step to append). */
  readonly payload: unknown;
  readonly toolServer: string | null;
  readonly toolOutcome: ToolOutcome | null;
  /** The stored failure cause column, when the store keeps one; else the payload's is read. */
  readonly toolFailureCause?: string | null;
}

/**
 * Tells which server a tool step called and how the call ended, reading legacy rows too; null
 * for a step that is not a tool call with an outcome.
 *
 * @remarks
 * The one derivation every store and the pure {@link serverHealth} use, so that outcome counts,
 * the `hasOutcome` filter and server health agree everywhere. Only steps of kind `tool` count.
 * Outcome: the `toolOutcome` column when it is a valid outcome, else the payload read as the
 * timeline reads it ({@link stepOutcome}: `toolIsError` first); no outcome →
 * null. Server: the `toolServer` column when non-empty, else the payload's `toolServer` when a
 * non-empty string, else {@link serverFromToolName} of the payload's `toolName`. The payload is
 * parsed only when a column is missing; an unreadable payload gives null for what it had to
 * supply. Cause (failed calls only): the `toolFailureCause` column when a valid cause, else the
 * payload's `toolFailureCause` when a valid cause, else null ("unknown"). `answered` and `counted`
 * follow from outcome and cause by {@link isAnsweredCall} and {@link isCountedCall}. Stores call this when a step is appended or imported to fill their indexed columns.
 *
 * @public
 */
export function toolCallOf(step: ToolCallSource): ToolCallFacts | null {
  if (step.kind !== RunStepKind.TOOL) return null;
  const column = step.toolServer;
  let payload: unknown;
  let parsed = false;
  const read = (): Record<string, unknown> | null => {
    if (!parsed) {
      payload = parsePayload(step.payload);
      parsed = true;
    }
    return typeof payload === 'object' && payload !== null && !Array.isArray(payload) ? (payload as Record<string, unknown>) : null;
  };
  let outcome: ToolOutcome | null = isToolOutcome(step.toolOutcome) ? step.toolOutcome : null;
  if (outcome === null) {
    const fromPayload = readStepOutcome(read());
    if (fromPayload === '') return null;
    outcome = fromPayload;
  }
  let server: string | null = typeof column === 'string' && column.length > 0 ? column : null;
  if (server === null) {
    const record = read();
    if (record !== null) {
      const named = record['toolServer'];
      server = typeof named === 'string' && named.length > 0 ? named : serverFromToolName(record['toolName']);
    }
  }
  let cause: ToolFailureCause | null = null;
  if (outcome === ToolOutcome.FAILED) {
    const stored = step.toolFailureCause;
    if (isToolFailureCause(stored)) cause = stored;
    else {
      const named = read()?.['toolFailureCause'];
      if (isToolFailureCause(named)) cause = named;
    }
  }
  return { server, outcome, cause, answered: isAnsweredCall(outcome, cause), counted: isCountedCall(outcome, cause) };
}
