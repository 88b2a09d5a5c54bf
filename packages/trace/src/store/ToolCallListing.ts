// The tool calls of one MCP server across runs, newest first: the input rule and the keyset cursor of
// SearchingRunStore.listToolCalls (its shapes are in StoredToolCall.ts), so every store pages alike.
import { isToolOutcome, type ToolOutcome } from '@runledger/core';
import type { StoredToolCall, ToolCallPage, ToolCallQuery } from '@runledger/trace';
import { readFailureFacts } from '../step/RunStepSchema.js';
import { invalid, nonEmptyText, object, show, time, timeProblem, UUID } from './storeValueRules.js';

/** Default and largest page size of a tool call listing. */
const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 200;

/**
 * A position in a tool call listing: calls come newest first by `createdAt`, then run id, then
 * sequence, all descending.
 *
 * @public
 */
export interface ToolCallCursorPosition {
  readonly createdAt: number;
  readonly runId: string;
  readonly sequence: number;
}

/**
 * A tool call listing query, checked, with defaults filled in and the cursor decoded.
 *
 * @public
 */
export interface NormalizedToolCallQuery {
  readonly server: string;
  readonly outcome: ToolOutcome | null;
  readonly since: number | null;
  readonly until: number | null;
  /** 1 to 200. */
  readonly limit: number;
  /** Calls strictly after this position (newest first), or null. */
  readonly after: ToolCallCursorPosition | null;
}

/**
 * Checks a tool call listing query and decodes its cursor.
 *
 * @throws RunStoreError (`invalid_input`) naming the field and its rule.
 *
 * @public
 */
export function checkToolCallQuery(query: ToolCallQuery): NormalizedToolCallQuery {
  object(query, 'ToolCallQuery');
  const server = nonEmptyText(query.server, 'ToolCallQuery.server');
  const outcome = query.outcome ?? null;
  if (outcome !== null && !isToolOutcome(outcome)) {
    throw invalid(`ToolCallQuery.outcome must be "ok", "failed" or "cancelled", got ${show(outcome)}`);
  }
  const since = query.since === undefined ? null : time(query.since, 'ToolCallQuery.since');
  const until = query.until === undefined ? null : time(query.until, 'ToolCallQuery.until');
  let limit = DEFAULT_LIMIT;
  if (query.limit !== undefined) {
    if (!Number.isSafeInteger(query.limit) || query.limit < 1) {
      throw invalid(`ToolCallQuery.limit must be a positive integer, got ${show(query.limit)}`);
    }
    limit = Math.min(query.limit, MAX_LIMIT);
  }
  const after = query.cursor === undefined || query.cursor === null ? null : decodeToolCallCursor(query.cursor);
  return { server, outcome, since, until, limit, after };
}

/**
 * The cursor of a tool call listing's next page.
 *
 * @public
 */
export function encodeToolCallCursor(position: ToolCallCursorPosition): string {
  return Buffer.from(JSON.stringify([position.createdAt, position.runId, position.sequence]), 'utf8').toString('base64url');
}

/**
 * Decodes a cursor made by {@link encodeToolCallCursor}.
 *
 * @throws RunStoreError (`invalid_input`) when it is not one.
 *
 * @public
 */
export function decodeToolCallCursor(cursor: string): ToolCallCursorPosition {
  const bad = () => invalid(`ToolCallQuery.cursor must be a nextCursor returned by listToolCalls, got ${show(cursor)}`);
  let decoded: unknown;
  try {
    if (typeof cursor !== 'string' || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw new Error('not base64url');
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  if (
    !Array.isArray(decoded) ||
    decoded.length !== 3 ||
    timeProblem(decoded[0]) !== null ||
    typeof decoded[1] !== 'string' ||
    !UUID.test(decoded[1]) ||
    !Number.isSafeInteger(decoded[2]) ||
    (decoded[2] as number) < 0
  ) {
    throw bad();
  }
  return { createdAt: decoded[0] as number, runId: decoded[1].toLowerCase(), sequence: decoded[2] as number };
}

/**
 * The page of `limit` calls made of the rows a store read newest first (up to `limit + 1`: one
 * past the page tells that there is a next one), with the next page's cursor when there is one.
 * Each call's `failureFacts` is read leniently (an object or its JSON text; anything else is null).
 *
 * @public
 */
export function toolCallPageOf(rows: readonly StoredToolCall[], limit: number): ToolCallPage {
  const calls = Object.freeze(
    rows.slice(0, limit).map((call) => Object.freeze({ ...call, failureFacts: readFailureFacts(call.failureFacts) })),
  );
  const last = calls[calls.length - 1];
  const nextCursor =
    rows.length > limit && last !== undefined
      ? encodeToolCallCursor({ createdAt: last.createdAt, runId: last.runId, sequence: last.sequence })
      : null;
  return { calls, nextCursor };
}
