// Who runs this process, as the OS names them: who asked for a cancel from the command line (or
// Ctrl+C) when no --actor names someone else.
import { userInfo } from 'node:os';

/**
 * The OS user's name, or null when the OS names none (a uid without a passwd entry, say in a
 * container) or a name that is not one line.
 *
 * @internal
 */
export function osUser(): string | null {
  try {
    const name = userInfo().username;
    return name.length > 0 && name.length <= 200 && !/\p{Cc}/u.test(name) ? name : null;
  } catch {
    return null;
  }
}
