// How a transport error reads in a failure message: its message, its cause's, and its code.

/** The first string `code` on the error, its causes, or the first of an AggregateError's errors. */
export function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    const errors = (current as { errors?: unknown }).errors;
    if (Array.isArray(errors) && errors.length > 0) {
      current = errors[0];
      continue;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The error's message, with its cause's message and its code when the message lacks them. */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = errorCode(error);
  let message = error.message === '' ? error.name : error.message;
  // fetch() says only "fetch failed"; the reason is in the cause.
  const cause = error.cause;
  if (cause instanceof Error && cause.message !== '' && !message.includes(cause.message)) {
    message = `${message}: ${cause.message}`;
  }
  return code !== undefined && !message.includes(code) ? `${message} (${code})` : message;
}
