import { isRunStatus } from '@runledger/trace';
import type { Translator } from '../i18n/Translator.js';

/** What `startRun` stored for a cancel through the store before it said who cancelled. */
const OLD_STORE_CANCEL = 'cancel requested through the store';
const STORE_CANCEL = 'cancelled by an operator from outside the run (the app’s Cancel button, or another process through the store)';
const LOCAL_CANCEL = 'cancelled by the operator';
const WHILE_RUNNING = /^cancel requested while the run was running \(the run reported "([a-z]+)"(?:: ([\s\S]*))?\)$/;
const NO_SIGN = /^(cancel requested; )?no sign of life since (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z)$/;

/**
 * A run's termination reason in the reader's language: the texts runledger itself writes
 * (`startRun`'s cancels, the store's decision when a cancel and the finish cross, recovery) are
 * translated; any other reason (an agent's own error message) is shown as stored.
 *
 * @internal
 */
export function reasonText(t: Translator, reason: string): string {
  if (reason === STORE_CANCEL || reason === OLD_STORE_CANCEL) return t.t('runs.reason.storeCancel');
  if (reason === LOCAL_CANCEL) return t.t('runs.reason.localCancel');
  const crossed = WHILE_RUNNING.exec(reason);
  if (crossed !== null && isRunStatus(crossed[1])) {
    const status = t.t(`runs.status.${crossed[1]}`);
    return crossed[2] === undefined
      ? t.t('runs.reason.cancelWhileRunning', { status })
      : t.t('runs.reason.cancelWhileRunningWith', { status, reason: reasonText(t, crossed[2]) });
  }
  const stale = NO_SIGN.exec(reason);
  if (stale !== null) {
    const time = t.date(Date.parse(stale[2]!));
    return t.t(stale[1] === undefined ? 'runs.reason.noSignOfLife' : 'runs.reason.cancelNoSignOfLife', { time });
  }
  return reason;
}
