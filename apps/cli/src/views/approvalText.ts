import type { RunTimelineDetail } from '@runledger/trace';
import type { Translator } from '../i18n/Translator.js';

/**
 * Who decided a call that needed approval, and why, in the reader's language (the run page and
 * `runs show` alike): "Approved by alice", "Refused by bob: too risky", "Refused" when no one was named.
 *
 * @internal
 */
export function approvalText(
  t: Translator,
  approval: { readonly approved: boolean; readonly by: string | null; readonly reason: string | null },
): string {
  const state = approval.approved ? 'approved' : 'refused';
  const who = approval.by === null ? t.t(`runs.detail.approval.${state}`) : t.t(`runs.detail.approval.${state}By`, { by: approval.by });
  return approval.reason === null ? who : `${who}: ${approval.reason}`;
}

/** The approval a timeline entry's details hold (`approved`, `approvedBy`, `approvalReason`), or null. */
export function approvalOfDetails(
  details: Readonly<Record<string, RunTimelineDetail>>,
): { readonly approved: boolean; readonly by: string | null; readonly reason: string | null } | null {
  const approved = details['approved'];
  if (typeof approved !== 'boolean') return null;
  const by = details['approvedBy'];
  const reason = details['approvalReason'];
  return { approved, by: typeof by === 'string' ? by : null, reason: typeof reason === 'string' ? reason : null };
}
