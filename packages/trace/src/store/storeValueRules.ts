// The value rules every store shares (storeInputChecks.ts applies them field by field): what a stored
// string, time, count or duration may be, and the error that names the field and the rule.
import { MAX_DURATION_MS, MAX_INT32, MAX_TIME_MS } from '../step/numericLimits.js';
import { RunStoreError } from './RunStoreError.js';
import { LONE_SURROGATES, lineProblem, show, storableProblem } from '../text/lineRule.js';

export { LONE_SURROGATE, LONE_SURROGATES, lineProblem, show } from '../text/lineRule.js';

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function invalid(message: string): RunStoreError {
  return RunStoreError.invalidInput(message);
}

/** The longest thrown message a refusal repeats. */
const MAX_THROWN_MESSAGE = 200;

/** What a caller's code threw, for a message: an Error as `Name: message`, anything else as {@link show}; never throws. */
export function showThrown(thrown: unknown): string {
  try {
    if (thrown instanceof Error) {
      const said = `${String(thrown.name)}: ${String(thrown.message)}`;
      return said.length > MAX_THROWN_MESSAGE ? `${said.slice(0, MAX_THROWN_MESSAGE)}…` : said;
    }
  } catch {
    // a name or message getter that throws, a revoked proxy: said below as what it is
  }
  return show(thrown);
}

/**
 * A payload as the JSON text a store keeps: a plain object (no array, no revoked proxy) whose
 * `JSON.stringify` is the text of a JSON object. Whatever the payload's `toJSON`, getters or
 * values do while it is serialised (return undefined, a number, throw anything), the caller gets
 * `invalid_input`, never another error.
 */
export function jsonObjectText(value: unknown, field: string): string {
  let array: boolean;
  try {
    array = Array.isArray(value);
  } catch {
    throw invalid(`${field} must be a plain object, got a revoked proxy`);
  }
  if (typeof value !== 'object' || value === null || array) throw invalid(`${field} must be a plain object, got ${show(value)}`);
  let json: string | undefined;
  try {
    json = JSON.stringify(value) as string | undefined;
  } catch (error) {
    throw invalid(`${field} must serialise to a JSON object, but JSON.stringify threw ${showThrown(error)}`);
  }
  // a toJSON may return undefined (no text at all), a number, a string, an array or null
  if (json === undefined) throw invalid(`${field} must serialise to a JSON object, but JSON.stringify gave undefined`);
  if (!json.startsWith('{')) throw invalid(`${field} must serialise to a JSON object, but JSON.stringify gave ${show(json)}`);
  return json;
}

export function object(value: unknown, name: string): void {
  if (typeof value !== 'object' || value === null) throw invalid(`${name} must be an object, got ${show(value)}`);
}

export function uuid(value: unknown, field: string): string {
  if (typeof value !== 'string' || !UUID.test(value)) throw invalid(`${field} must be a UUID, got ${show(value)}`);
  return value.toLowerCase();
}

/** The time rule, in words, as messages give it. */
export const TIME_RULE = `integer milliseconds since the epoch from 0 to ${MAX_TIME_MS}`;

/** What is wrong with a time, or null when it keeps the rule. */
export function timeProblem(value: unknown): string | null {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_TIME_MS) return TIME_RULE;
  return null;
}

/** A time: integer ms from 0 to 8.64e15 (−0 reads as 0). */
export function time(value: unknown, field: string): number {
  if (timeProblem(value) !== null) throw invalid(`${field} must be ${TIME_RULE}, got ${show(value)}`);
  return (value as number) + 0;
}

/** A time that defaults to the store's clock; the clock's value keeps the same rule. */
export function timeOrNow(value: unknown, now: number, field: string): number {
  if (value !== undefined) return time(value, field);
  if (timeProblem(now) !== null) throw invalid(`${field} defaults to the store's clock, which must give ${TIME_RULE}, got ${show(now)}`);
  return now + 0;
}

export function count(value: unknown, field: string): number {
  if (!Number.isSafeInteger(value) || (value as number) < 0) {
    throw invalid(`${field} must be an integer ≥ 0, got ${show(value)}`);
  }
  return (value as number) + 0;
}

/** A round or a sequence: PostgreSQL's `integer`, 0 to 2^31−1. */
export function int32(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_INT32) {
    throw invalid(`${field} must be an integer from 0 to ${MAX_INT32}, got ${show(value)}`);
  }
  return value + 0;
}

/** A duration: a finite number of ms from 0 to 8.64e15, fractions kept (−0 reads as 0). */
export function duration(value: unknown, field: string): number {
  if (typeof value !== 'number' || !(value >= 0 && value <= MAX_DURATION_MS)) {
    throw invalid(`${field} must be a number of milliseconds from 0 to ${MAX_DURATION_MS}, got ${show(value)}`);
  }
  return value + 0;
}

/** Refuses what a store cannot keep as it is: NUL (PostgreSQL text) and lone surrogates (not UTF-8). */
export function storable(value: string, field: string): string {
  const problem = storableProblem(value);
  if (problem !== undefined) throw invalid(`${field} ${problem}`);
  return value;
}

/** A string a store keeps as it is (empty allowed). */
export function text(value: unknown, field: string): string {
  if (typeof value !== 'string') throw invalid(`${field} must be a string, got ${show(value)}`);
  return storable(value, field);
}

/** A non-empty string a store keeps as it is; `alternative` completes the rule's wording (" or null"). */
export function nonEmptyText(value: unknown, field: string, alternative = ''): string {
  if (typeof value !== 'string' || value.length === 0) {
    throw invalid(`${field} must be a non-empty string${alternative}, got ${show(value)}`);
  }
  return storable(value, field);
}

/** A string a store keeps as it is, or null (undefined reads as null). */
export function textOrNull(value: unknown, field: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw invalid(`${field} must be a string or null, got ${show(value)}`);
  return storable(value, field);
}

/**
 * The longest name a store keeps in an indexed column (a run's configuration; a tool call's
 * server, tool name and call id), in characters (code points).
 *
 * @remarks
 * A character is at most 4 bytes in UTF-8, so a name is at most 1 024 bytes, and the widest index
 * row of any store (two names and a few fixed-size columns: PostgreSQL's `steps_run_calls` and
 * `steps_call_server_trouble`) stays well under PostgreSQL's btree limit of 2 704 bytes. A longer
 * name is refused as `invalid_input` by every store before anything is written.
 *
 * @public
 */
export const MAX_NAME_LENGTH = 256;

/** The name rule, in words, as messages give it. */
const NAME_RULE = `a non-empty string of at most ${MAX_NAME_LENGTH} characters`;

/** The number of characters (code points) of a string. */
function codePoints(value: string): number {
  let length = 0;
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    // a high surrogate followed by a low one is one character
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < value.length) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    length++;
  }
  return length;
}

/** Refuses a name over {@link MAX_NAME_LENGTH} characters; `rule` is how the message states the field's rule. */
function nameLength(value: string, field: string, rule: string): string {
  // at most 256 UTF-16 units is at most 256 characters: only a longer string is counted
  if (value.length <= MAX_NAME_LENGTH) return value;
  const length = codePoints(value);
  if (length > MAX_NAME_LENGTH) throw invalid(`${field} must be ${rule}, got a string of ${length} characters: ${show(value)}`);
  return value;
}

/** A name a store keeps in an indexed column: a non-empty string of at most {@link MAX_NAME_LENGTH} characters. */
export function name(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length === 0) throw invalid(`${field} must be ${NAME_RULE}, got ${show(value)}`);
  return nameLength(storable(value, field), field, NAME_RULE);
}

/**
 * A name as {@link name} checks it, or null (undefined reads as null); `emptyAllowed` also keeps
 * an empty string (a stored row that an import copies as it is).
 */
export function nameOrNull(value: unknown, field: string, emptyAllowed = false): string | null {
  if (value === undefined || value === null) return null;
  const rule = emptyAllowed ? `a string of at most ${MAX_NAME_LENGTH} characters, or null` : `${NAME_RULE}, or null`;
  if (typeof value !== 'string' || (value.length === 0 && !emptyAllowed)) throw invalid(`${field} must be ${rule}, got ${show(value)}`);
  return nameLength(storable(value, field), field, rule);
}

/** The payload fields of a tool call that stores keep in indexed columns (the server may come from the tool name). */
const PAYLOAD_NAMES = ['toolName', 'toolServer', 'toolCallId'] as const;

/**
 * Refuses a `tool` or `tool_start` step whose payload names its tool, server or call with a string
 * over {@link MAX_NAME_LENGTH} characters: stores keep them in indexed columns. `payload` is the
 * object an append gives or a payload's JSON text (an import; unreadable text names nothing).
 */
export function payloadNames(kind: string, payload: unknown, field: string): void {
  if (kind !== 'tool' && kind !== 'tool_start') return;
  let record = payload;
  if (typeof payload === 'string') {
    try {
      record = JSON.parse(payload) as unknown;
    } catch {
      return;
    }
  }
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return;
  for (const key of PAYLOAD_NAMES) {
    let value: unknown;
    try {
      value = (record as Record<string, unknown>)[key];
    } catch {
      continue; // a getter that throws names nothing (the payload was serialised already)
    }
    if (typeof value === 'string') nameLength(value, `${field}.${key}`, `a string of at most ${MAX_NAME_LENGTH} characters`);
  }
}

/**
 * A one-line text a store keeps as it is, or null (undefined reads as null): a string of 1 to
 * `maxLength` characters (code points) without control characters.
 */
export function lineOrNull(value: unknown, field: string, maxLength: number): string | null {
  const problem = lineProblem(value, maxLength);
  if (problem !== undefined) throw invalid(`${field} ${problem}`);
  return (value as string | null | undefined) ?? null;
}

/**
 * The text with every NUL and lone surrogate replaced by U+FFFD, so that any string (an error
 * message turned into a termination reason) keeps the string rule of the store input checks (storeInputChecks.ts).
 *
 * @internal
 */
export function storableText(value: string): string {
  return value.replaceAll('\0', '\uFFFD').replace(LONE_SURROGATES, '\uFFFD');
}
