/** The most characters of remote text an error message repeats. */
export const REMOTE_TEXT_LIMIT = 200;

// C0 and C1 control characters, DEL, and the Unicode line/paragraph separators.
const CONTROL_RUN = /[\u0000-\u001F\u007F-\u009F\u2028\u2029]+/gu;

/**
 * Makes remote text safe to repeat in one line of an error message: runs of control characters
 * collapse to one space, and the text is clipped to 200 characters on a code point boundary with
 * an ellipsis.
 *
 * @internal
 */
export function clipRemoteText(text: unknown): string {
  const flat = String(text).replace(CONTROL_RUN, ' ').trim();
  const codePoints = Array.from(flat.length > REMOTE_TEXT_LIMIT * 2 ? flat.slice(0, REMOTE_TEXT_LIMIT * 2 + 1) : flat);
  if (codePoints.length <= REMOTE_TEXT_LIMIT) {
    return codePoints.join('');
  }
  return `${codePoints.slice(0, REMOTE_TEXT_LIMIT).join('')}…`;
}
