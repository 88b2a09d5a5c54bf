import type { RunTimelineEntry } from '@runledger/trace';
import type { Translator } from '../i18n/Translator.js';

/** The two notes of each way a call that may have written ended: with a target named, and without. */
const NOTES = {
  cancelled: ['runs.detail.writeUnknown', 'runs.detail.writeUnknownNoTarget'],
  timedOut: ['runs.detail.writeUnknownTimeout', 'runs.detail.writeUnknownTimeoutNoTarget'],
  unanswered: ['runs.detail.writeUnknownUnanswered', 'runs.detail.writeUnknownUnansweredNoTarget'],
} as const;

/**
 * The note a call that may have written gets when no answer said what became of it (cancelled,
 * timed out, or failed unanswered after it was sent: {@link RunTimelineEntry.mayHaveExecuted}):
 * whether the server changed something is unknown. Null when no note is due.
 *
 * @internal
 */
export function writeUnknownNote(t: Translator, entry: RunTimelineEntry): string | null {
  if (!entry.mayHaveExecuted) return null;
  const resource = entry.details['writeResource'];
  const id = entry.details['writeId'];
  const [withTarget, withoutTarget] =
    entry.outcome === 'cancelled' ? NOTES.cancelled : entry.details['failureCause'] === 'mcp_timeout' ? NOTES.timedOut : NOTES.unanswered;
  if (resource === undefined) return t.t(withoutTarget);
  const target = id === undefined ? String(resource) : `${String(resource)} ${String(id)}`;
  return t.t(withTarget, { target });
}
