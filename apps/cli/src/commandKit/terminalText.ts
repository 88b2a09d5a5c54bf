/**
 * Characters a terminal acts on instead of showing: C0 controls (ESC, BEL, CR, LF, TAB, …), DEL,
 * C1 controls (U+0080–U+009F, CSI and OSC among them), the bidi embeddings, overrides and isolates
 * (U+202A–U+202E, U+2066–U+2069), the bidi marks (U+200E, U+200F, U+061C) and the Unicode line
 * and paragraph separators (U+2028, U+2029).
 *
 * @remarks One character class, no quantifier: `replace` reads each character once (linear time).
 */
/** The same without C0, which JSON.stringify escapes itself (and whose newlines lay the JSON out). */
const UNSAFE_BEYOND_C0 = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_OR_BACKSLASH = /[\u0000-\u001f\u005c\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

function escapeOne(char: string): string {
  if (char === '\\') return '\\\\';
  const code = char.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * Makes stored text safe to print on a terminal: every control character (C0, DEL, C1) and bidi
 * control becomes a visible escape (`\x1b`, `\x07`, `\x0d`, `\u202e`), and a backslash is doubled
 * so that an escape shown is never ambiguous with text that spelled one.
 *
 * @remarks
 * The one helper for every text path of the CLI: {@link terminalTable} applies it to every cell and
 * {@link terminalLine} to every value it interpolates; text the CLI writes itself (its own
 * newlines, the table rule) does not pass through it.
 *
 * @internal
 */
export function terminalText(value: unknown): string {
  return String(value).replace(UNSAFE_OR_BACKSLASH, escapeOne);
}

/**
 * A template tag for CLI output: the literal parts are the CLI's own text (newlines kept), each
 * interpolated value passes through {@link terminalText}.
 *
 * @internal
 */
export function terminalLine(strings: TemplateStringsArray, ...values: readonly unknown[]): string {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) out += terminalText(values[i]) + (strings[i + 1] ?? '');
  return out;
}

/**
 * JSON for a terminal: exactly `JSON.stringify(value, null, 2)` once parsed, with DEL, C1 and bidi
 * controls written as `\u` escapes (JSON.stringify already escapes C0). Those characters can only
 * stand inside JSON strings, where a `\u` escape means the same character.
 *
 * @internal
 */
export function terminalJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(UNSAFE_BEYOND_C0, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
