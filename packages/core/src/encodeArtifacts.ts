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
  | { readonly ok: true; readonly json: string; readonly bytes: number }
  | { readonly ok: false; readonly reason: string };

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
  const check = new EncodabilityCheck(maxBytes);
  let index = 0;
  try {
    check.add(2); // []
    for (; index < artifacts.length; index++) {
      const artifact = artifacts[index] as ToolArtifact;
      // {"type":"…","label":"…"} and a comma between artifacts
      check.add((index === 0 ? 0 : 1) + 21 + artifact.type.length + artifact.label.length);
      check.data(artifact.data);
    }
  } catch (error) {
    if (error === OVER_LIMIT) {
      return {
        ok: false,
        reason: `${describeCount(artifacts.length)} more than ${maxBytes} bytes as JSON, over the limit of ${maxBytes} bytes`,
      };
    }
    const label = (artifacts[index] as ToolArtifact | undefined)?.label ?? '';
    const what = error instanceof Unencodable ? `${error.message} at ${error.path}` : `an error was thrown: ${errorText(error)}`;
    return { ok: false, reason: `artifact ${index + 1} ("${clip(label)}") cannot be encoded: ${what}` };
  }
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

/** Thrown inside the check when the JSON would pass the limit. */
const OVER_LIMIT: unique symbol = Symbol('over limit');

/** Thrown inside the check for a value JSON cannot hold faithfully. */
class Unencodable {
  constructor(
    readonly message: string,
    readonly path: string,
  ) {}
}

type Key = string | number;

/**
 * Walks data as `JSON.stringify` would and counts a lower bound of its JSON size in bytes: every
 * UTF-16 unit of JSON text takes at least one UTF-8 byte, and escapes only add to it.
 */
class EncodabilityCheck {
  #size = 0;
  readonly #maxBytes: number;
  /** The objects and arrays being walked, from the root down: a value met again among them is a cycle. */
  readonly #ancestors: object[] = [];
  /** The keys from `data` down to the value being walked, for the path in a message. */
  readonly #keys: Key[] = [];

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  add(units: number): void {
    this.#size += units;
    if (this.#size > this.#maxBytes) {
      throw OVER_LIMIT;
    }
  }

  /** Checks `,"data":value` of an artifact (left out of the JSON when the value is absent). */
  data(input: unknown): void {
    const value = resolve(input, 'data');
    if (!isAbsent(value)) {
      this.add(8);
      this.#walk(value, 0);
    }
  }

  #fail(message: string): never {
    let path = '$.data';
    for (const key of this.#keys) {
      path += typeof key === 'number' ? `[${key}]` : `.${key}`;
    }
    throw new Unencodable(message, path);
  }

  /** Walks a value already passed through `resolve` and known not to be absent. */
  #walk(value: unknown, depth: number): void {
    switch (typeof value) {
      case 'string':
        this.add(value.length + 2);
        return;
      case 'number':
        if (!Number.isFinite(value)) {
          this.#fail(`non-finite number ${String(value)}`);
        }
        this.add(1);
        return;
      case 'boolean':
        this.add(4);
        return;
      case 'bigint':
        this.#fail('BigInt');
      default:
        break;
    }
    if (value === null) {
      this.add(4);
      return;
    }
    const object = value as object;
    if (depth >= MAX_DEPTH) {
      this.#fail(`nesting deeper than ${MAX_DEPTH}`);
    }
    // At most 64 ancestors: a scan of the stack beats hashing every object into a set.
    const ancestors = this.#ancestors;
    if (ancestors.includes(object)) {
      this.#fail('cycle');
    }
    ancestors.push(object);
    const keys = this.#keys;
    if (Array.isArray(object)) {
      const length = object.length;
      this.add(length === 0 ? 2 : length + 1); // brackets and commas
      for (let index = 0; index < length; index++) {
        keys.push(index);
        const member = resolve(object[index], String(index));
        if (isAbsent(member)) {
          this.add(4); // null
        } else {
          this.#walk(member, depth + 1);
        }
        keys.pop();
      }
    } else {
      this.add(1); // {
      let present = 0;
      const record = object as Record<string, unknown>;
      for (const name of Object.keys(record)) {
        keys.push(name);
        const member = resolve(record[name], name);
        if (!isAbsent(member)) {
          present++;
          this.add(name.length + 4); // "name": and the comma or } after the value
          this.#walk(member, depth + 1);
        }
        keys.pop();
      }
      if (present === 0) {
        this.add(1); // }
      }
    }
    ancestors.pop();
  }
}

/** Whether JSON leaves a value out (a property) or writes `null` for it (an array element). */
function isAbsent(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

/** Applies `toJSON` and unwraps boxed primitives, as `JSON.stringify` does before encoding a value. */
function resolve(input: unknown, key: string): unknown {
  if (typeof input !== 'object' || input === null) {
    if (typeof input === 'bigint') {
      const toJSON = (input as unknown as { toJSON?: unknown }).toJSON;
      return typeof toJSON === 'function' ? toJSON.call(input, key) : input;
    }
    return input;
  }
  let value: unknown = input;
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') {
    value = toJSON.call(value, key);
    if (typeof value !== 'object' || value === null) {
      return value;
    }
  }
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
