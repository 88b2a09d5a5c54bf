import type { StoredCancelRequest } from '@runledger/trace';
import type { Translator } from '../i18n/Translator.js';

/**
 * Who asked for a run's cancel, from where and why, in the reader's language (the run page and
 * `runs show` alike): "by alice from the CLI: stuck on the slow server".
 *
 * @internal
 */
export function cancelRequestText(t: Translator, request: StoredCancelRequest): string {
  const from = t.t(`runs.detail.cancelFrom.${request.from}`);
  const who =
    request.by === null ? t.t('runs.detail.cancelRequestFrom', { from }) : t.t('runs.detail.cancelRequestBy', { by: request.by, from });
  return request.reason === null ? who : `${who}: ${request.reason}`;
}
