/**
 * `encodeURIComponent` that never throws: the text is made well-formed first (each lone surrogate
 * becomes U+FFFD, as a UTF-8 encoder writes it), so a stored value with a lone surrogate (a row of
 * an older recorder) makes a link instead of a URIError and a 500. Every link and address the app
 * and the CLI build from a value goes through here.
 *
 * @internal
 */
export function uriComponent(text: string): string {
  // String.prototype.toWellFormed: ES2024, in every Node this package runs on (the lib is ES2023)
  return encodeURIComponent((text as unknown as { toWellFormed(): string }).toWellFormed());
}

/** Whether text has no lone surrogate, so that it survives a URL's UTF-8 unchanged. @internal */
export function isWellFormedText(text: string): boolean {
  return (text as unknown as { isWellFormed(): boolean }).isWellFormed();
}
