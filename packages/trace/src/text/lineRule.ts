// The rule of a one-line text a store or a step keeps (a title, who asked, why): storable, no
// control characters, 1 to a limit of code points; and how a rule message shows a value. Imports
// nothing of the package, so both the store checks and the step schema use it.

/** A lone surrogate: a high one not followed by a low one, or a low one not after a high one. */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
export const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

/** The longest name of who asked or decided (a cancel request's `by`, a tool approval's `by`), in code points. */
export const MAX_WHO_LENGTH = 200;
/** The longest reason typed with a request or a decision, in code points. */
export const MAX_WHY_LENGTH = 500;

/** A value as a rule message shows it: strings quoted (cut at 80 characters), other values by their kind. */
export function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined) return String(value);
  try {
    return Array.isArray(value) ? 'an array' : typeof value;
  } catch {
    // Array.isArray throws on a revoked proxy: a message never does
    return 'a revoked proxy';
  }
}

/** Why a string is not storable (a NUL, a lone surrogate), worded to follow its field's name; undefined when it is. */
export function storableProblem(value: string): string | undefined {
  const nul = value.indexOf('\0');
  if (nul !== -1) return `must not contain NUL (U+0000), found at index ${nul}, got ${show(value)}`;
  const lone = LONE_SURROGATE.exec(value);
  if (lone !== null) {
    const unit = lone[0].charCodeAt(0).toString(16).toUpperCase();
    return `must be well-formed UTF-16 (no lone surrogate), found U+${unit} at index ${lone.index}, got ${show(value)}`;
  }
  return undefined;
}

/** A control character (C0, DEL, C1): none belongs in a one-line text such as a title. */
const CONTROL_CHARACTER = /\p{Cc}/u;

/**
 * Why a value is not such a one-line text or null, worded to follow its field's name (`must be
 * …`); undefined when it is one. The one rule of {@link lineOrNull} and of the step schema's lines.
 */
export function lineProblem(value: unknown, maxLength: number): string | undefined {
  if (value === undefined || value === null) return undefined;
  const rule = `a string of 1 to ${maxLength} characters without control characters, or null`;
  if (typeof value !== 'string' || value.length === 0) return `must be ${rule}, got ${show(value)}`;
  const unstorable = storableProblem(value);
  if (unstorable !== undefined) return unstorable;
  const control = CONTROL_CHARACTER.exec(value);
  if (control !== null) {
    const unit = control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
    return `must be ${rule}: found the control character U+${unit} at index ${control.index}, got ${show(value)}`;
  }
  // code points, counted only as far as the limit needs (a long string stops early)
  let length = 0;
  for (const _ of value) {
    if (++length > maxLength) return `must be ${rule}: it has more than ${maxLength} characters, got ${show(value)}`;
  }
  return undefined;
}
