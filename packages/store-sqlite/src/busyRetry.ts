/**
 * Tells whether a driver error means that another connection holds a lock, which waiting fixes.
 *
 * @internal
 */
export function isBusyError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

/**
 * Waits a little before the next attempt: 2, 4, 8 … up to 50 ms, with jitter.
 *
 * @internal
 */
export function backoffDelay(attempt: number): Promise<void> {
  const base = Math.min(50, 2 ** Math.min(attempt + 1, 6));
  const ms = base / 2 + Math.random() * base;
  return new Promise((resolve) => setTimeout(resolve, ms));
}
