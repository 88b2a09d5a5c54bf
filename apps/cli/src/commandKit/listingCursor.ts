// The cursors of the command line's own listings (`spool list`, `servers`): where the page before
// ended, as base64url JSON a script passes back with `--cursor`; one error for a cursor no listing printed.
import { UsageError } from './UsageError.js';

/** The `--cursor` of the page after the one that ended at `position` (any JSON object). @internal */
export function encodeListingCursor(position: object): string {
  return Buffer.from(JSON.stringify(position), 'utf8').toString('base64url');
}

/** The object a cursor made by {@link encodeListingCursor} holds, or null when it is not one. @internal */
export function decodeListingCursor(cursor: string): Record<string, unknown> | null {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
  try {
    const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    return typeof decoded === 'object' && decoded !== null && !Array.isArray(decoded) ? (decoded as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * The usage error for a `--cursor` that no earlier page of `command` printed.
 *
 * @internal
 */
export function badCursorError(command: string, cursor: string): UsageError {
  return new UsageError(
    `runledger ${command}: --cursor must be the nextCursor of an earlier ${command} (its --json, or the line under its table), got ${JSON.stringify(cursor)}`,
  );
}
