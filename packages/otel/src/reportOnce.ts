/**
 * A listener that writes one line on stderr the first time it is told of an error (the default
 * `onError` of the wrappers): `line` makes the line from the error's message.
 */
export function reportOnce(line: (message: string) => string): (error: unknown) => void {
  let told = false;
  return (error) => {
    if (told) return;
    told = true;
    process.stderr.write(`${line(error instanceof Error ? error.message : String(error))}\n`);
  };
}
