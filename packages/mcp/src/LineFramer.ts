/**
 * Splits a byte stream into newline-delimited lines, refusing a line longer than a limit without
 * losing the lines after it.
 *
 * @remarks
 * Linear in the bytes read: chunks are kept in a list and joined once, when their line ends (the
 * SDK's own read buffer joins on every chunk). A line over the limit is not kept: only its first
 * and last bytes are, enough to read the JSON-RPC `id` of the answer it carries, and its length is
 * counted to its end. The next line is read as usual, so one oversized answer harms nothing else.
 *
 * @internal
 */
export class LineFramer {
  readonly maxLineBytes: number;
  #chunks: Buffer[] = [];
  #length = 0;
  /** Set while a line over the limit is being skipped to its end. */
  #oversized: { head: Buffer; tail: Buffer } | undefined;

  constructor(maxLineBytes: number) {
    this.maxLineBytes = maxLineBytes;
  }

  /**
   * Feeds a chunk; calls `onLine` for each complete line within the limit (without its line end)
   * and `onOversized` for each line over it, with its length in bytes and, when it is a response,
   * the JSON-RPC id found at its start or end (else undefined).
   */
  push(chunk: Buffer, onLine: (line: string) => void, onOversized: (bytes: number, id: string | number | undefined) => void): void {
    let start = 0;
    while (start <= chunk.length) {
      const end = chunk.indexOf(0x0a, start);
      const piece = end === -1 ? chunk.subarray(start) : chunk.subarray(start, end);
      if (end !== -1 && this.#length === 0 && piece.length <= this.maxLineBytes) {
        // The common case, a whole line inside one chunk: decoded in place, never copied.
        start = end + 1;
        emitLine(piece, onLine);
        continue;
      }
      this.#add(piece);
      if (end === -1) return;
      start = end + 1;
      if (this.#oversized !== undefined) {
        const { head, tail } = this.#oversized;
        const bytes = this.#length;
        this.#reset();
        onOversized(bytes, findJsonRpcId(head, tail));
      } else {
        const joined = this.#chunks.length === 1 ? this.#chunks[0]! : Buffer.concat(this.#chunks, this.#length);
        this.#reset();
        emitLine(joined, onLine);
      }
    }
  }

  /** Drops whatever was buffered. */
  clear(): void {
    this.#reset();
  }

  #add(piece: Buffer): void {
    if (piece.length === 0) return;
    this.#length += piece.length;
    const oversized = this.#oversized;
    if (oversized !== undefined) {
      oversized.tail = keepTail(oversized.tail, piece);
      return;
    }
    // Copy: the chunk's memory may be reused by the stream.
    this.#chunks.push(Buffer.from(piece));
    if (this.#length > this.maxLineBytes) {
      const all = Buffer.concat(this.#chunks, this.#length);
      this.#chunks = [];
      this.#oversized = { head: Buffer.from(all.subarray(0, EDGE_BYTES)), tail: Buffer.from(all.subarray(-EDGE_BYTES)) };
    }
  }

  #reset(): void {
    this.#chunks = [];
    this.#length = 0;
    this.#oversized = undefined;
  }
}

const EDGE_BYTES = 256;

function emitLine(bytes: Buffer, onLine: (line: string) => void): void {
  let line = bytes.toString('utf8');
  if (line.endsWith('\r')) line = line.slice(0, -1);
  if (line.trim() !== '') onLine(line);
}

function keepTail(tail: Buffer, piece: Buffer): Buffer {
  if (piece.length >= EDGE_BYTES) return Buffer.from(piece.subarray(-EDGE_BYTES));
  return Buffer.concat([tail, piece]).subarray(-EDGE_BYTES);
}

const ID_VALUE = String.raw`(-?\d+|"(?:[^"\\]|\\.){0,128}")`;
/** `"id": N` as the last member of the outermost object (the line ends with its closing brace). */
const ID_AT_END = new RegExp(String.raw`"id"\s*:\s*${ID_VALUE}\s*\}\s*\r?$`);
/** `"id": N` as the first member (or the second, after `"jsonrpc": "2.0"`) of the outermost object. */
const ID_AT_START = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${ID_VALUE}`);

/** The start of a response: `result` or `error` first, or after `jsonrpc` and/or `id`. */
const RESPONSE_START = new RegExp(
  String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?(?:"id"\s*:\s*${ID_VALUE}\s*,\s*)?"(?:result|error)"\s*:`,
);

/**
 * The JSON-RPC id of a response of which only the first and last bytes are known; undefined for
 * anything that does not start like a response (a request or notification from the server: its id
 * belongs to the server's numbering, not to ours).
 *
 * @remarks
 * Inside a JSON string a quote is always escaped, so `"id":` followed by a value and the final
 * brace can only be a member of the outermost object; likewise right after its opening brace.
 */
function findJsonRpcId(head: Buffer, tail: Buffer): string | number | undefined {
  const start = head.toString('latin1');
  if (!RESPONSE_START.test(start)) return undefined;
  const match = ID_AT_END.exec(tail.toString('latin1')) ?? ID_AT_START.exec(start);
  if (match === null) return undefined;
  try {
    const id: unknown = JSON.parse(match[1]!);
    return typeof id === 'number' || typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}
