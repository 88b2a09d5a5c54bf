/**
 * The address of a server's page, `/servers/<server id>`, both ways: the path a link takes, and
 * the server id a request names.
 *
 * A server id is whatever a step recorded as its `toolServer`: the stores keep any non-empty text
 * without NUL (`@runledger/mcp` names its servers `^[a-z0-9_]{1,32}$`, but other recorders and
 * legacy rows may use any text), so the id is one URL-encoded path segment.
 */
import { isWellFormedText, uriComponent } from './uriComponent.js';

/** The longest server id the app addresses: far above any real one, far below a URL's limit. @internal */
export const SERVER_ID_MAX_LENGTH = 1024;

/**
 * The path of a server's page, or null when no path can name it: `.` and `..` (a URL resolves
 * them, encoded or not), an id longer than {@link SERVER_ID_MAX_LENGTH}, and one with a lone
 * surrogate (a row of an older recorder): a URL carries UTF-8, which has no lone surrogate, so its
 * path would name another server (U+FFFD in its place), and {@link readServerId} reads none.
 *
 * @internal
 */
export function serverPath(server: string): string | null {
  if (
    server === '' ||
    server === '.' ||
    server === '..' ||
    server.length > SERVER_ID_MAX_LENGTH ||
    server.includes('\0') ||
    !isWellFormedText(server)
  ) {
    return null;
  }
  return `/servers/${uriComponent(server)}`;
}

/**
 * The server id a path segment names (URL-decoded), or null when it names none: bad
 * percent-encoding (also a lone surrogate), empty, NUL, or longer than {@link SERVER_ID_MAX_LENGTH}.
 *
 * @internal
 */
export function readServerId(segment: string): string | null {
  let server: string;
  try {
    server = decodeURIComponent(segment);
  } catch {
    return null;
  }
  return serverPath(server) === null ? null : server;
}
