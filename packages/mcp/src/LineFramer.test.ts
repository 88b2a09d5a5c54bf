import { describe, expect, it } from 'vitest';
import { LineFramer } from './LineFramer.js';

function feed(framer: LineFramer, chunks: readonly string[]) {
  const lines: string[] = [];
  const oversized: { bytes: number; id: string | number | undefined }[] = [];
  for (const chunk of chunks) {
    framer.push(
      Buffer.from(chunk),
      (line) => lines.push(line),
      (bytes, id) => oversized.push({ bytes, id }),
    );
  }
  return { lines, oversized };
}

describe('LineFramer', () => {
  it('splits lines across chunks, drops a trailing \\r and empty lines, keeps a partial line', () => {
    const framer = new LineFramer(100);
    const { lines } = feed(framer, ['{"a":', '1}\r\n\n{"b"', ':2}\n{"c"']);
    expect(lines).toEqual(['{"a":1}', '{"b":2}']);
    expect(feed(framer, [':3}\n']).lines).toEqual(['{"c":3}']);
  });

  it('a line of exactly the limit passes; one byte more is refused with its size and id, and the next line passes', () => {
    const framer = new LineFramer(40);
    const exact = `{"result":{"t":"${'x'.repeat(14)}"},"id":7}`;
    expect(Buffer.byteLength(exact)).toBe(40);
    const over = `{"result":{"t":"${'x'.repeat(15)}"},"jsonrpc":"2.0","id":8}`;
    const { lines, oversized } = feed(framer, [`${exact}\n${over.slice(0, 10)}`, over.slice(10, 30), `${over.slice(30)}\n{"id":9}\n`]);
    expect(lines).toEqual([exact, '{"id":9}']);
    expect(oversized).toEqual([{ bytes: Buffer.byteLength(over), id: 8 }]);
  });

  it('finds the id at the start of an oversized line, as a string too, and none in a notification', () => {
    const framer = new LineFramer(10);
    const { oversized } = feed(framer, [
      `{"jsonrpc":"2.0","id":"req-1","result":{"t":"${'y'.repeat(50)}"}}\n`,
      `{"method":"notifications/message","params":{"data":"${'z'.repeat(50)}"}}\n`,
      // An "id" inside the content is not the message's id.
      `{"result":{"structured":{"id":99,"t":"${'w'.repeat(50)}"}},"jsonrpc":"2.0"}\n`,
      // A request of the server's: its id is in the server's numbering, not an answer to ours.
      `{"method":"sampling/createMessage","params":{"t":"${'v'.repeat(50)}"},"jsonrpc":"2.0","id":4}\n`,
      `{"error":{"code":-1,"message":"${'u'.repeat(50)}"},"jsonrpc":"2.0","id":5}\n`,
    ]);
    expect(oversized.map((o) => o.id)).toEqual(['req-1', undefined, undefined, undefined, 5]);
  });

  it('counts a line far over the limit to its end, over many chunks, and still finds its id', () => {
    const framer = new LineFramer(1024);
    const head = Buffer.from('{"result":{"content":[{"type":"text","text":"');
    const chunk = Buffer.alloc(64 * 1024, 0x78);
    const seen: { bytes: number; id: string | number | undefined }[] = [];
    const refuse = (bytes: number, id: string | number | undefined) => seen.push({ bytes, id });
    framer.push(head, () => undefined, refuse);
    for (let i = 0; i < 200; i++) framer.push(chunk, () => undefined, refuse);
    framer.push(Buffer.from('"}]},"jsonrpc":"2.0","id":3}\n{"result":{},"jsonrpc":"2.0","id":4}\n'), () => undefined, refuse);
    expect(seen).toEqual([{ bytes: head.length + 200 * 64 * 1024 + 28, id: 3 }]);
  });
});
