import type { RunTimelineEntry } from '@runledger/trace';
import type { Translator } from '../i18n/Translator.js';

/**
 * The note a call that may have written gets when its answer was never seen (cancelled, or timed
 * out: {@link RunTimelineEntry.mayHaveExecuted}): whether the server changed something is
 * unknown. Null when no note is due.
 *
 * @internal
 */
export function writeUnknownNote(t: Translator, entry: RunTimelineEntry): string | null {
  if (!entry.mayHaveExecuted) return null;
  const resource = entry.details['writeResource'];
  const id = entry.details['writeId'];
  const timedOut = entry.outcome !== 'cancelled';
  if (resource === undefined) return t.t(timedOut ? 'runs.detail.writeUnknownTimeoutNoTarget' : 'runs.detail.writeUnknownNoTarget');
  const target = id === undefined ? String(resource) : `${String(resource)} ${String(id)}`;
  return t.t(timedOut ? 'runs.detail.writeUnknownTimeout' : 'runs.detail.writeUnknown', { target });
}
