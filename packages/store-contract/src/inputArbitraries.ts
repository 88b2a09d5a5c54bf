// The generated inputs of the input-rules contract (inputRulesContract.ts): values that keep to
// the store rules, values that break them, and the edges between (NUL, lone surrogates, -0, NaN,
// huge times, crafted cursors).
import { TOOL_OUTCOMES, type ToolOutcome } from '@runledger/core';
import fc from 'fast-check';

/** 2026-01-01T00:00:00Z. */
export const BASE = 1_767_225_600_000;

/** Pieces that break (or nearly break) the string rule: NUL, lone surrogates, emoji, controls. */
export const PIECES = [
  '\0',
  'a\0b',
  '\uD800',
  '\uDBFF',
  '\uDC00',
  '\uDFFF',
  'x\uD83D',
  '\uDE00y',
  '😀',
  '\uD83D\uDE00',
  '👩‍👩‍👧',
  '\u0001',
  '\u001F',
  '\u007F',
  '\u0085',
  '\r\n\t',
  '\uFEFF',
  '\uFFFD',
  '\uFFFF',
  'ä',
  ' ',
  '',
  'plain',
  "'; DROP TABLE runs; --",
  '\\',
  '"',
];

/** Any UTF-16 code unit, lone surrogates and NUL included. */
export const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit));

export const anyText: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...PIECES), weight: 3 },
  { arbitrary: fc.array(fc.constantFrom(...PIECES), { maxLength: 4 }).map((parts) => parts.join('')), weight: 3 },
  { arbitrary: fc.string({ unit: codeUnit, maxLength: 12 }), weight: 2 },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }), weight: 1 },
);

/** Numbers at and around every bound a store column has, and anything else. */
export const EDGE_NUMBERS = [
  0,
  -0,
  -1,
  0.5,
  1.5,
  -1.5,
  BASE,
  BASE + 0.25,
  2 ** 31 - 1,
  2 ** 31,
  2 ** 32,
  2 ** 53 - 1,
  2 ** 53,
  2 ** 63,
  2 ** 64,
  8.64e15,
  8.64e15 + 1,
  8.64e15 + 0.5,
  1e300,
  -1e300,
  1e307,
  Number.MAX_VALUE,
  Number.MIN_VALUE,
  Number.EPSILON,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
];

export const anyNumber: fc.Arbitrary<number> = fc.oneof(
  { arbitrary: fc.constantFrom(...EDGE_NUMBERS), weight: 4 },
  { arbitrary: fc.integer({ min: 0, max: 2 ** 31 - 1 }), weight: 1 },
  { arbitrary: fc.maxSafeInteger(), weight: 1 },
  { arbitrary: fc.double(), weight: 2 },
);

/** Strings every store keeps as they are: no NUL, no lone surrogate (emoji, controls and BOM included). */
export const goodText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('plain', '😀', '👩‍👩‍👧', 'ä', '\uFEFF', '\uFFFD', '\uFFFF', '\u0001\u001F\u007F', '\r\n\t', "'; DROP TABLE runs; --", '\\"'),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }),
  fc.string({ unit: codeUnit, minLength: 1, maxLength: 12 }).filter((text) => !/[\0\uD800-\uDFFF]/.test(text)),
);

/** Times every store keeps: integer ms from 0 to 8.64e15 (−0 reads back as 0). */
export const goodTime: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(0, -0, BASE, 2 ** 31, 2 ** 32, 8.64e15),
  fc.maxSafeNat().map((n) => n % (8.64e15 + 1)),
);
export const goodRound: fc.Arbitrary<number> = fc.oneof(fc.constantFrom(0, -0, 2 ** 31 - 1), fc.integer({ min: 0, max: 2 ** 31 - 1 }));
export const goodDuration: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(0, -0, 12.5, 1 / 3, Number.MIN_VALUE, 8.64e15),
  fc.double({ min: 0, max: 8.64e15, noNaN: true }),
);

/** Mostly a good value, often anything: a record of several fields keeps some of its inputs whole. */
export function mostly<T>(good: fc.Arbitrary<T>, any: fc.Arbitrary<T>): fc.Arbitrary<T> {
  return fc.oneof({ arbitrary: good, weight: 3 }, { arbitrary: any, weight: 1 });
}

export const outcome = fc.constantFrom<ToolOutcome | null>(...TOOL_OUTCOMES, null);

export function uuidOf(n: number): string {
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
}

export function encode(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

/** Cursors as listRuns makes them, with generated times, upper-case ids, and crafted or broken ones. */
export const anyCursor: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.tuple(goodTime, fc.integer({ min: 0, max: 5 })).map(([at, n]) => encode([at, uuidOf(n)])), weight: 4 },
  { arbitrary: fc.tuple(anyNumber, fc.integer({ min: 0, max: 5 })).map(([at, n]) => encode([at, uuidOf(n)])), weight: 4 },
  {
    arbitrary: fc
      .tuple(anyNumber, fc.integer({ min: 0, max: 5 }))
      .map(([at, n]) => encode([at, uuidOf(n).toUpperCase().replace('0000-4000', 'ABCD-4000')])),
    weight: 1,
  },
  {
    arbitrary: fc.integer({ min: 0, max: 5 }).map((n) => encode([BASE + n, `ffffffff-ffff-4fff-bfff-${n.toString(16).padStart(12, 'f')}`])),
    weight: 1,
  },
  { arbitrary: fc.jsonValue().map(encode), weight: 1 },
  { arbitrary: anyText, weight: 1 },
);

/** An object that refers to itself: JSON.stringify throws. */
function cycle(): Record<string, unknown> {
  const self: Record<string, unknown> = { note: 'cycle' };
  self['self'] = self;
  return self;
}

/** A proxy already revoked: every operation on it throws, `Array.isArray` included. */
function revokedProxy(): object {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

/**
 * Values JSON.stringify leaves out, turns into null, or throws on: a `toJSON` that returns
 * undefined, a function, a symbol or throws; functions, symbols and undefined; a BigInt; a cycle;
 * getters that throw an Error, a string or an object without `toString`; a revoked proxy. Each is
 * made afresh and gives the same JSON text (or the same throw) every time it is serialised.
 */
export const ODD_VALUES: readonly (readonly [label: string, make: () => unknown])[] = [
  ['{ toJSON: () => undefined }', () => ({ toJSON: () => undefined })],
  ['{ toJSON: () => a function }', () => ({ toJSON: () => () => 1 })],
  ['{ toJSON: () => a symbol }', () => ({ toJSON: () => Symbol('s') })],
  [
    '{ toJSON() { throw new RangeError() } }',
    () => ({
      toJSON: () => {
        throw new RangeError('toJSON failed');
      },
    }),
  ],
  ['a function', () => () => 1],
  ['a symbol', () => Symbol('s')],
  ['undefined', () => undefined],
  ['1n', () => 1n],
  ['a cycle', cycle],
  [
    'a getter that throws an Error',
    () => ({
      get boom(): unknown {
        throw new Error('getter failed');
      },
    }),
  ],
  [
    'a getter that throws a string',
    () => ({
      get boom(): unknown {
        throw 'a string'; // a caller's getter may throw anything
      },
    }),
  ],
  [
    'a getter that throws an object without toString',
    () => ({
      get boom(): unknown {
        throw Object.create(null) as Error;
      },
    }),
  ],
  ['a revoked proxy', revokedProxy],
  ['NaN', () => Number.NaN],
  ['an invalid Date', () => new Date(Number.NaN)],
  ['a Map', () => new Map([['k', 1]])],
  ['an object without prototype', () => Object.assign(Object.create(null) as object, { bare: true })],
];

/** A way to make a payload: a function, so that fast-check never touches the value itself (a revoked proxy, a throwing getter). */
export type PayloadMaker = () => unknown;

/** A maker that fast-check shows as `label` in a counterexample. */
export function payloadMaker(label: string, make: () => unknown): PayloadMaker {
  return Object.assign(() => make(), { [fc.toStringMethod]: () => label });
}

/** One of {@link ODD_VALUES}. */
const odd = fc.integer({ min: 0, max: ODD_VALUES.length - 1 }).map((i) => ODD_VALUES[i]!);

/**
 * Payloads JSON.stringify cannot make a JSON object of, or makes one of only by leaving values
 * out, as makers: an odd value as the payload itself, as a field, in a list or deeper, and objects
 * whose `toJSON` gives something else than an object (a number, a string, an array, null) or
 * another object.
 */
export const oddPayload: fc.Arbitrary<PayloadMaker> = fc.oneof(
  { arbitrary: odd.map(([label, make]) => payloadMaker(label, make)), weight: 3 },
  { arbitrary: odd.map(([label, make]) => payloadMaker(`{ value: ${label} }`, () => ({ value: make() }))), weight: 1 },
  { arbitrary: odd.map(([label, make]) => payloadMaker(`{ list: [1, ${label}] }`, () => ({ list: [1, make()] }))), weight: 1 },
  {
    arbitrary: odd.map(([label, make]) =>
      payloadMaker(`{ deep: { deeper: { value: ${label} } } }`, () => ({ deep: { deeper: { value: make() } } })),
    ),
    weight: 1,
  },
  {
    arbitrary: fc
      .jsonValue({ maxDepth: 2 })
      .map((json) => payloadMaker(`{ toJSON: () => ${JSON.stringify(json)} }`, () => ({ toJSON: () => json }))),
    weight: 2,
  },
);
