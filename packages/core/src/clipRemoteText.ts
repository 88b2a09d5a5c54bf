/** The most characters of remote text an error message repeats. */
export const REMOTE_TEXT_LIMIT = 200;

// C0 and C1 control characters, DEL, the Unicode line/paragraph separators, and the bidirectional
// formatting characters (which can make a message read differently from what it says).
const CONTROL_RUN = /[\u0000-\u001F\u007F-\u009F\u2028\u2029\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]+/gu;

/**
 * Makes remote text safe to repeat in one line of an error message: runs of control and
 * bidirectional formatting characters collapse to one space, lone surrogates become U+FFFD, and
 * the text is clipped to 200 characters on a code point boundary with an ellipsis.
 *
 * @internal
 */
export function clipRemoteText(text: unknown): string {
  const flat = String(text).replace(CONTROL_RUN, ' ').trim();
  const head = flat.length > REMOTE_TEXT_LIMIT * 2 ? flat.slice(0, REMOTE_TEXT_LIMIT * 2 + 1) : flat;
  // Lone surrogates become U+FFFD, so the message is well-formed text. (A pair split by the slice
  // above lies past the 200th code point, so it is never kept.)
  const codePoints = Array.from(Buffer.from(head, 'utf8').toString('utf8'));
  if (codePoints.length <= REMOTE_TEXT_LIMIT) {
    return codePoints.join('');
  }
  return `${codePoints.slice(0, REMOTE_TEXT_LIMIT).join('')}…`;
}
