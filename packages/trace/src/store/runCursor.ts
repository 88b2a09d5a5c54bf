// The run listing's cursor: a position (the last run of a page) as the opaque text `nextCursor`
// carries, and back. A store makes and reads it; so does a program that checks a cursor a person
// typed (the CLI's --cursor) before asking any store.
import { invalid, show, TIME_RULE, timeProblem, UUID } from './storeValueRules.js';

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
 * Encodes a listing position as an opaque cursor.
 *
 * @public
 */
export function encodeRunCursor(position: RunCursorPosition): string {
  return Buffer.from(JSON.stringify([position.createdAt, position.id]), 'utf8').toString('base64url');
}

/**
 * Decodes a cursor made by {@link encodeRunCursor}.
 *
 * @throws RunStoreError (`invalid_input`) from `decodeRunCursor` when it is not one.
 *
 * @public
 */
export function decodeRunCursor(cursor: string): RunCursorPosition {
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
}
