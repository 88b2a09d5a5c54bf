/**
 * Makes a string well-formed (lone surrogates become U+FFFD) and cuts it to at most `maxBytes`
 * UTF-8 bytes on a character boundary, ending the cut text with a visible marker. The marker is
 * counted inside the limit. Linear in the length of the input.
 *
 * @internal
 */
export function boundText(text: string, maxBytes: number): string {
  const wellFormed = toWellFormed(text);
  // No UTF-16 unit takes more than 3 UTF-8 bytes (a surrogate pair is 2 units for 4 bytes), so a
  // short text fits without the pass that counts its bytes.
  if (wellFormed.length * 3 <= maxBytes) {
    return wellFormed;
  }
  const totalBytes = Buffer.byteLength(wellFormed, 'utf8');
  if (totalBytes <= maxBytes) {
    return wellFormed;
  }
  let marker = `\n[truncated: ${totalBytes} bytes, limit ${maxBytes}]`;
  let markerBytes = Buffer.byteLength(marker, 'utf8');
  if (markerBytes > maxBytes) {
    marker = maxBytes >= 3 ? '…' : '';
    markerBytes = Buffer.byteLength(marker, 'utf8');
  }
  const budget = maxBytes - markerBytes;
  // Encode only as much as can be kept: no UTF-8 character is longer than 4 bytes and every
  // UTF-16 unit encodes to at least one byte, so `budget` units always cover `budget` bytes.
  const head = Buffer.from(wellFormed.slice(0, budget + 1), 'utf8');
  let cut = Math.min(budget, head.length);
  // Step back over continuation bytes (10xxxxxx) so the cut falls before a character start.
  while (cut > 0 && cut < head.length && ((head[cut] as number) & 0xc0) === 0x80) {
    cut--;
  }
  return head.subarray(0, cut).toString('utf8') + marker;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/u;

function toWellFormed(text: string): string {
  const native = (text as { toWellFormed?: () => string }).toWellFormed;
  if (typeof native === 'function') {
    return native.call(text);
  }
  return LONE_SURROGATE.test(text) ? Buffer.from(text, 'utf8').toString('utf8') : text;
}
