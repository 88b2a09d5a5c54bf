import { readRunTerminationReason, RunTerminationKind } from '@runledger/trace';
import type { Translator } from '../i18n/Translator.js';

/**
 * A run's termination reason in the reader's language: the reasons runledger itself writes
 * (`startRun`'s cancels, the store's decision when a cancel and the finish cross, recovery), read
 * by trace's `readRunTerminationReason`, are translated; any other reason (an agent's own error
 * message) is shown as stored.
 *
 * @internal
 */
export function reasonText(t: Translator, reason: string): string {
  const read = readRunTerminationReason(reason);
  switch (read.kind) {
    case RunTerminationKind.STORE_CANCEL:
      return t.t('runs.reason.storeCancel');
    case RunTerminationKind.OPERATOR_CANCEL:
      return t.t('runs.reason.localCancel');
    case RunTerminationKind.CANCEL_WHILE_RUNNING: {
      const status = t.t(`runs.status.${read.reported}`);
      return read.reason === null
        ? t.t('runs.reason.cancelWhileRunning', { status })
        : t.t('runs.reason.cancelWhileRunningWith', { status, reason: reasonText(t, read.reason) });
    }
    case RunTerminationKind.NO_SIGN_OF_LIFE:
      return t.t(read.cancelRequested ? 'runs.reason.cancelNoSignOfLife' : 'runs.reason.noSignOfLife', { time: t.date(read.since) });
    case RunTerminationKind.OTHER:
      return reason;
  }
}
