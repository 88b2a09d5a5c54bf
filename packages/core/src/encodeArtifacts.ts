import { keepShapeAlive } from './keepShapeAlive.js';
import type { ToolArtifact } from './ToolArtifact.js';

/** The deepest nesting an artifact's data may have. */
const MAX_DEPTH = 64;

/**
 * The JSON of a list of artifacts, or the reason it cannot be kept: it cannot be encoded, or it
 * is larger than the limit.
 *
 * @internal
 */
export type ArtifactEncoding =
  { readonly ok: true; readonly json: string; readonly bytes: number } | { readonly ok: false; readonly reason: string };

/**
 * Encodes artifacts as JSON within a byte limit, refusing what JSON would silently lose or cannot
 * hold: a cycle, a BigInt, a non-finite number, nesting deeper than 64.
 *
 * @remarks
 * First a check walks the data the way `JSON.stringify` will (`toJSON`, boxed primitives, omitted
 * `undefined`) and adds up a lower bound of the JSON size, stopping as soon as it passes
 * `maxBytes`; only then is `JSON.stringify` run, on data known to be encodable and at most a few
 * times the limit. So the work is linear in `min(size of the data, maxBytes)`: a huge artifact,
 * or a small graph whose shared references expand to a huge tree, costs no more than the limit.
 *
 * @internal
 */
export function encodeArtifacts(artifacts: readonly ToolArtifact[], maxBytes: number): ArtifactEncoding {
  const walked = walkArtifacts(artifacts, maxBytes);
  if (typeof walked === 'string') {
    return { ok: false, reason: walked };
  }
  return stringifyArtifacts(artifacts, maxBytes);
}

/**
 * Whether a list of artifacts can be kept within a byte limit, or the reason it cannot: the same
 * verdict and reason as {@link encodeArtifacts}, without making the JSON when it is not needed.
 *
 * @remarks
 * The check that walks the data also adds up an upper bound of the JSON size (every UTF-16 unit
 * of a string takes at most 6 bytes, as `\uXXXX`; a number at most 25). When that bound is within
 * the limit, the artifacts fit and `JSON.stringify` is not run; otherwise the exact size decides,
 * as in {@link encodeArtifacts}.
 *
 * @internal
 */
export function checkArtifacts(artifacts: readonly ToolArtifact[], maxBytes: number): ArtifactCheck {
  const walked = walkArtifacts(artifacts, maxBytes);
  if (typeof walked === 'string') {
    return { ok: false, reason: walked };
  }
  if (walked <= maxBytes) {
    return FITS;
  }
  const encoding = stringifyArtifacts(artifacts, maxBytes);
  return encoding.ok ? FITS : encoding;
}

/**
 * The verdict of {@link checkArtifacts}.
 *
 * @internal
 */
export type ArtifactCheck = { readonly ok: true } | { readonly ok: false; readonly reason: string };

const FITS: ArtifactCheck = Object.freeze({ ok: true });

/** Walks the artifacts: the reason they cannot be kept, else an upper bound of their JSON size. */
function walkArtifacts(artifacts: readonly ToolArtifact[], maxBytes: number): string | number {
  const check = new EncodabilityCheck(maxBytes);
  let index = 0;
  try {
    check.add(2, 2); // []
    for (; index < artifacts.length; index++) {
      const artifact = artifacts[index] as ToolArtifact;
      // {"type":"…","label":"…"} and a comma between artifacts
      const comma = index === 0 ? 0 : 1;
      check.add(
        comma + 21 + artifact.type.length + artifact.label.length,
        comma + 22 + (artifact.type.length + artifact.label.length) * MAX_UNIT_BYTES,
      );
      check.data(artifact.data);
    }
  } catch (error) {
    if (error === OVER_LIMIT) {
      return `${describeCount(artifacts.length)} more than ${maxBytes} bytes as JSON, over the limit of ${maxBytes} bytes`;
    }
    const label = (artifacts[index] as ToolArtifact | undefined)?.label ?? '';
    const what = error instanceof Unencodable ? `${error.message} at ${error.path}` : `an error was thrown: ${errorText(error)}`;
    return `artifact ${index + 1} ("${clip(label)}") cannot be encoded: ${what}`;
  }
  return check.upperBound;
}

/** The JSON of artifacts the walk accepted, and its exact size against the limit. */
function stringifyArtifacts(artifacts: readonly ToolArtifact[], maxBytes: number): ArtifactEncoding {
  let json: string;
  try {
    json = JSON.stringify(artifacts);
  } catch (error) {
    // Only a toJSON or getter that answers differently the second time can get here.
    return { ok: false, reason: `the artifacts cannot be encoded as JSON: ${errorText(error)}` };
  }
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes > maxBytes) {
    return { ok: false, reason: `${describeCount(artifacts.length)} ${bytes} bytes as JSON, over the limit of ${maxBytes} bytes` };
  }
  return { ok: true, json, bytes };
}

/**
 * The most UTF-8 bytes one UTF-16 unit of a string takes in JSON: a control character or a lone
 * surrogate is written as `\uXXXX` (6 bytes); other units take at most 3 bytes.
 */
const MAX_UNIT_BYTES = 6;
/** The longest JSON text of a finite number, e.g. `-0.0000012345678901234567` or `-1.7976931348623157e+308`. */
const MAX_NUMBER_BYTES = 25;

/** Thrown inside the check when the JSON would pass the limit. */
const OVER_LIMIT: unique symbol = Symbol('over limit');

type Key = string | number;

/** Thrown inside the check for a value JSON cannot hold faithfully. */
class Unencodable {
  /** The keys from the failing value up to `data`, innermost first: added while the walk unwinds. */
  readonly keys: Key[] = [];

  constructor(readonly message: string) {}

  /** Where the value is, from the artifact's data: `$.data.rows[2].price`. */
  get path(): string {
    let path = '$.data';
    for (let index = this.keys.length - 1; index >= 0; index--) {
      const key = this.keys[index] as Key;
      path += typeof key === 'number' ? `[${key}]` : `.${key}`;
    }
    return path;
  }
}

/**
 * Walks data as `JSON.stringify` would and counts a lower bound of its JSON size in bytes: every
 * UTF-16 unit of JSON text takes at least one UTF-8 byte, and escapes only add to it.
 *
 * @remarks
 * The path of a value that cannot be encoded is only needed when one is found: each level adds
 * its key to the {@link Unencodable} on the way out, so the walk itself keeps no path.
 */
class EncodabilityCheck {
  #size = 0;
  /** An upper bound of the JSON size of what was walked. */
  #upper = 0;
  readonly #maxBytes: number;
  /** The objects and arrays being walked, from the root down: a value met again among them is a cycle. */
  readonly #ancestors: object[] = [];

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** Adds at least `units` and at most `maxBytes` bytes of JSON. */
  add(units: number, maxBytes: number): void {
    this.#size += units;
    this.#upper += maxBytes;
    if (this.#size > this.#maxBytes) {
      throw OVER_LIMIT;
    }
  }

  /** An upper bound of the JSON size in UTF-8 bytes of everything walked so far. */
  get upperBound(): number {
    return this.#upper;
  }

  /** Checks `,"data":value` of an artifact (left out of the JSON when the value is absent). */
  data(input: unknown): void {
    const value = resolve(input, 'data');
    if (!isAbsent(value)) {
      this.add(8, 8);
      this.#walk(value, 0);
    }
  }

  /** Walks a value already passed through `resolve` and known not to be absent. */
  #walk(value: unknown, depth: number): void {
    switch (typeof value) {
      case 'string':
        this.add(value.length + 2, value.length * MAX_UNIT_BYTES + 2);
        return;
      case 'number':
        if (!Number.isFinite(value)) {
          throw new Unencodable(`non-finite number ${String(value)}`);
        }
        this.add(1, MAX_NUMBER_BYTES);
        return;
      case 'boolean':
        this.add(4, 5);
        return;
      case 'bigint':
        throw new Unencodable('BigInt');
      default:
        break;
    }
    if (value === null) {
      this.add(4, 4);
      return;
    }
    const object = value as object;
    if (depth >= MAX_DEPTH) {
      throw new Unencodable(`nesting deeper than ${MAX_DEPTH}`);
    }
    // At most 64 ancestors: a scan of the stack beats hashing every object into a set.
    const ancestors = this.#ancestors;
    if (ancestors.includes(object)) {
      throw new Unencodable('cycle');
    }
    ancestors.push(object);
    if (Array.isArray(object)) {
      const length = object.length;
      const brackets = length === 0 ? 2 : length + 1;
      this.add(brackets, brackets); // brackets and commas
      for (let index = 0; index < length; index++) {
        try {
          const member = resolve(object[index], index);
          if (isAbsent(member)) {
            this.add(4, 4); // null
          } else {
            this.#walk(member, depth + 1);
          }
        } catch (error) {
          if (error instanceof Unencodable) error.keys.push(index);
          throw error;
        }
      }
    } else {
      this.add(1, 1); // {
      let present = 0;
      const record = object as Record<string, unknown>;
      for (const name of Object.keys(record)) {
        try {
          const member = resolve(record[name], name);
          if (!isAbsent(member)) {
            present++;
            this.add(name.length + 4, name.length * MAX_UNIT_BYTES + 4); // "name": and the comma or } after the value
            this.#walk(member, depth + 1);
          }
        } catch (error) {
          if (error instanceof Unencodable) error.keys.push(name);
          throw error;
        }
      }
      if (present === 0) {
        this.add(1, 1); // }
      }
    }
    ancestors.pop();
  }
}

/** Whether JSON leaves a value out (a property) or writes `null` for it (an array element). */
function isAbsent(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

/**
 * Applies `toJSON` and unwraps boxed primitives, as `JSON.stringify` does before encoding a value.
 * An array index is given as a number and turned into the string key only for a `toJSON` call.
 */
function resolve(input: unknown, key: Key): unknown {
  if (typeof input !== 'object' || input === null) {
    if (typeof input === 'bigint') {
      const toJSON = (input as unknown as { toJSON?: unknown }).toJSON;
      return typeof toJSON === 'function' ? toJSON.call(input, String(key)) : input;
    }
    return input;
  }
  let value: unknown = input;
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') {
    value = toJSON.call(value, String(key));
    if (typeof value !== 'object' || value === null) {
      return value;
    }
  }
  // Plain objects and arrays, by far the most common, are no boxed primitive.
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype === Object.prototype || prototype === Array.prototype || prototype === null) return value;
  if (value instanceof Number) return Number(value);
  if (value instanceof String) return String(value);
  if (value instanceof Boolean) return value.valueOf();
  if (value instanceof BigInt) return value.valueOf();
  return value;
}

function describeCount(count: number): string {
  return count === 1 ? '1 artifact takes' : `${count} artifacts take`;
}

function errorText(error: unknown): string {
  try {
    return error instanceof Error ? error.message : String(error);
  } catch {
    return 'an unprintable value';
  }
}

function clip(label: string): string {
  const points = Array.from(label.length > 121 ? label.slice(0, 121) : label);
  return points.length > 60 ? `${points.slice(0, 60).join('')}…` : points.join('');
}

// See keepShapeAlive: every bounded result with artifacts makes one check.
keepShapeAlive(new EncodabilityCheck(1));
