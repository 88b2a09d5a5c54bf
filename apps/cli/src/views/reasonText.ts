import { readRunTerminationReason, type RunTermination, RunTerminationKind, runTerminationOf, type StoredRun } from '@runledger/trace';
import type { Translator } from '../i18n/Translator.js';

/**
 * Why a run ended, in the reader's language, or null while it runs: the terminations runledger
 * itself writes (`startRun`'s cancels, the store's decision when a cancel and the finish cross,
 * recovery) are translated by their kind; any other reason (an agent's own error message) is shown
 * as stored.
 *
 * @internal
 */
export function reasonText(t: Translator, run: StoredRun): string | null {
  const termination = runTerminationOf(run);
  return termination === null ? null : terminationText(t, termination);
}

function terminationText(t: Translator, termination: RunTermination): string {
  switch (termination.kind) {
    case RunTerminationKind.STORE_CANCEL:
      return t.t('runs.reason.storeCancel');
    case RunTerminationKind.OPERATOR_CANCEL:
      return t.t('runs.reason.localCancel');
    case RunTerminationKind.CANCEL_WHILE_RUNNING: {
      const status = t.t(`runs.status.${termination.reported}`);
      // the reason the run's own finish gave is words: one runledger writes is translated too
      return termination.reason === null
        ? t.t('runs.reason.cancelWhileRunning', { status })
        : t.t('runs.reason.cancelWhileRunningWith', { status, reason: terminationText(t, readRunTerminationReason(termination.reason)) });
    }
    case RunTerminationKind.NO_SIGN_OF_LIFE:
      return t.t(termination.cancelRequested ? 'runs.reason.cancelNoSignOfLife' : 'runs.reason.noSignOfLife', {
        time: t.date(termination.since),
      });
    case RunTerminationKind.OTHER:
      return termination.text;
  }
}

/**
 * A reason the timeline carries as words (a lifecycle entry's `reason` detail, capped), in the
 * reader's language as {@link reasonText} shows it.
 *
 * @internal
 */
export function reasonWordsText(t: Translator, words: string): string {
  return terminationText(t, readRunTerminationReason(words));
}
