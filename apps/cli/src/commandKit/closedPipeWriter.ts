/** A stream the binary writes its output to: process.stdout or process.stderr. */
interface OutputStream {
  write(text: string): boolean;
  on(event: 'error', listener: (error: NodeJS.ErrnoException) => void): unknown;
}

/**
 * The binary's writer for stdout or stderr that drops its output once the reader has gone
 * (`runledger runs show … | head -1`: EPIPE): the command ends as it would have, with its own
 * exit code (0 for a command that succeeded), and no stack trace. Output nobody reads any more is
 * not an error of the command; every other error of the stream is thrown as before.
 *
 * @internal
 */
export function closedPipeWriter(stream: OutputStream): { write(text: string): boolean } {
  let readerGone = false;
  stream.on('error', (error) => {
    if (error.code !== 'EPIPE') throw error;
    readerGone = true;
  });
  return { write: (text) => (readerGone ? false : stream.write(text)) };
}
